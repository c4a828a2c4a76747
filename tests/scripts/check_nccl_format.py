"""check_nccl_format: pldsim-perf as a drop-in for nccl-tests' programs.
Its output goes through nccl_tests_log (a parser for real nccl-tests logs);
every nccl-tests flag is taken or reported ignored; -n and -w calls run;
NCCL_TESTS_MIN_BW fails the run; -J writes nccl-tests' JSON; an installed
link's name picks the collective.  Run by tests/scripts/check_nccl_format.sh with
PLDSIM_BUILDDIR set; prints "N passed, N failed" and exits 1 on a failure."""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import nccl_tests_log  # noqa: E402
import script_tests  # noqa: E402

BUILD = os.environ.get("PLDSIM_BUILDDIR", ".")
PERF = os.path.join(BUILD, "tools", "pldsim-perf")
NAMES = ["all_reduce_perf", "all_gather_perf", "broadcast_perf", "reduce_scatter_perf",
         "alltoall_perf", "sendrecv_perf"]
# nccl-tests' flags (common.cu's getopt table) that mean nothing on pldsim
IGNORED = [("-t", "--nthreads"), ("-m", "--agg_iters"), ("-p", "--parallel_init"),
           ("-G", "--cudagraph"), ("-C", "--report_cputime"), ("-R", "--local_register"),
           ("-T", "--timeout"), ("-S", "--report_timestamps"), ("-M", "--memory"),
           ("-x", "--cta_policy"), ("-u", "--unalign"), ("-y", "--stream_null"),
           ("-D", "--device_implementation"), ("-V", "--device_cta_count"),
           ("-I", "--per_iter_timing"), ("-K", "--per_iter_skip"), ("-k", None)]


def run(args, env=None, argv0=None, timeout=600):
    e = dict(os.environ)
    e.pop("NCCL_TESTS_MIN_BW", None)
    e.update(env or {})
    cmd = [argv0 or PERF] + args
    return subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)


def ok(r, what):
    assert r.returncode == 0, "%s: exit %d\n%s%s" % (what, r.returncode, r.stdout, r.stderr)
    return nccl_tests_log.parse(r.stdout)


def test_every_collective_parses():
    for name in NAMES:
        for check in ("0", "1"):
            r = run([name, "-b", "64", "-e", "4K", "-f", "4", "-g", "4", "-n", "2", "-c", check])
            log = ok(r, name)
            assert log.program == name, log.program
            assert log.params["ngpus"] == 4 and log.params["validation"] == int(check)
            assert len(log.ranks) == 4 and all("simulated" in k["name"] for k in log.ranks)
            assert [row["size"] for row in log.rows][-1] <= 4096
            if check == "1":
                assert all(row[h]["wrong"] == 0 for row in log.rows
                           for h in ("out_of_place", "in_place")), name
            assert log.out_of_bounds == 0 and log.min_bw_check == ""


def test_the_issues_sweep_has_nccl_tests_rows():
    # the issue's command; -n 1 -w 0 keep it to a few seconds of simulation
    r = run(["all_reduce_perf", "-b", "8", "-e", "128M", "-f", "2", "-g", "8", "-n", "1",
             "-w", "0"])
    log = ok(r, "all_reduce_perf 8..128M")
    assert log.params["ngpus"] == 8 and len(log.ranks) == 8
    assert [row["size"] for row in log.rows] == [8 << k for k in range(25)]
    assert [row["count"] for row in log.rows] == [2 << k for k in range(25)]
    assert all(row["type"] == "float" and row["redop"] == "sum" and row["root"] == -1
               for row in log.rows)
    # the 16-byte parts of allgather and friends: sizes round down, as nccl-tests'
    r = run(["all_gather_perf", "-b", "8", "-e", "1K", "-f", "2", "-g", "8", "-n", "1"])
    log = ok(r, "all_gather_perf")
    assert [row["size"] for row in log.rows] == [0, 0, 0, 0, 128, 256, 512, 1024]
    assert [row["count"] for row in log.rows] == [0, 0, 0, 0, 4, 8, 16, 32]


def test_every_nccl_tests_flag_is_taken():
    args = ["all_reduce_perf", "-b", "1K", "-e", "2K", "-i", "1K", "-f", "1", "-g", "2",
            "-n", "2", "-w", "1", "-c", "1", "-o", "max", "-d", "half", "-r", "1", "-a", "3",
            "-z", "1", "-N", "2"]
    for short, long in IGNORED:
        args += [short, "1"]
        if long:
            args += [long + "=1"]
    r = run(args)
    log = ok(r, "every flag")
    for short, long in IGNORED:
        assert ("ignoring %s 1:" % short) in r.stderr, (short, r.stderr)
        if long:
            assert ("ignoring %s 1:" % long) in r.stderr, (long, r.stderr)
    # one line each (ASan's own "ignoring" warnings do not count)
    expected = len(IGNORED) + sum(1 for _, lg in IGNORED if lg)
    assert r.stderr.count("pldsim-perf: ignoring ") == expected, r.stderr
    assert log.params["step"] == 1024 and log.params["steptype"] == "bytes"
    assert len(log.rows) == 4  # 1K, 2K, twice (-N 2)
    assert all(row["type"] == "half" and row["redop"] == "max" for row in log.rows)
    assert any(c.startswith("# Blocking Enabled: wait and barrier") for c in log.comments)
    # the long forms and pldsim's own spellings
    r = run(["allreduce", "--minbytes", "1K", "--maxbytes", "1K", "--ngpus", "2", "--iters",
             "1", "--warmup_iters", "0", "--check", "--op", "prod", "--datatype", "float",
             "--average", "0", "--blocking", "0", "--run_cycles", "1", "--races", "off"])
    log = ok(r, "long forms")
    assert log.params["validation"] == 1 and log.rows[0]["redop"] == "prod"
    r = run(["broadcast", "-b", "1K", "-e", "1K", "--devices", "0-2", "--root", "2"])
    assert ok(r, "--devices").rows[0]["root"] == 2


def stores(n, w):
    """Allreduce stores in a trace of -g 2 -n n -w w: one per rank per call."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as t:
        r = run(["all_reduce_perf", "-b", "1K", "-e", "1K", "-g", "2", "-n", str(n), "-w", str(w),
                 "--trace", t.name])
        ok(r, "trace")
        return sum(1 for line in open(t.name) if line.split()[3:4] == ["store"])


def test_iterations_and_warmup_run_and_average():
    # every -w and -n call runs: w warm-up calls, then n per half
    assert stores(1, 0) == 2 * 2
    assert stores(3, 2) == 2 * (2 + 2 * 3)
    # the time is per call: the same with 1 or 20 calls, and -z 1 adds the
    # barrier after each call to it
    t = {}
    for args in (["-n", "1"], ["-n", "20"], ["-n", "20", "-z", "1"]):
        r = run(["all_reduce_perf", "-b", "4K", "-e", "4K", "-g", "4"] + args)
        t[" ".join(args)] = ok(r, args).rows[0]["in_place"]["time"]
    assert t["-n 1"] == t["-n 20"] and t["-n 20 -z 1"] > t["-n 20"], t


def test_min_bw_fails_the_run():
    args = ["all_reduce_perf", "-b", "1K", "-e", "2K", "-f", "2", "-g", "2", "-n", "1"]
    r = run(args, env={"NCCL_TESTS_MIN_BW": "1000000"})
    assert r.returncode == 1, (r.returncode, r.stdout)
    assert nccl_tests_log.parse(r.stdout).min_bw_check == "FAILED"
    r = run(args, env={"NCCL_TESTS_MIN_BW": "0"})
    assert ok(r, "MIN_BW 0").min_bw_check == "OK"


def test_json_output():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.json")
        args = ["reduce_scatter_perf", "-b", "1K", "-e", "4K", "-f", "2", "-g", "4", "-n", "2",
                "-c", "1", "-J", path]
        log = ok(run(args), "-J")
        ok(run(args), "-J again")  # never over an existing file: out.json.0
        assert sorted(os.listdir(d)) == ["out.json", "out.json.0"]
        doc = json.load(open(path))
        for key in ("version", "start_time", "args", "env", "config", "results", "out_of_bounds",
                    "average_bus_bandwidth", "errors", "end_time"):
            assert key in doc, key
        assert doc["version"] == 3 and doc["config"]["ngpus"] == 4
        assert doc["config"]["step_factor"] == 2 and len(doc["config"]["devices"]) == 4
        assert len(doc["results"]) == len(log.rows)
        for res, row in zip(doc["results"], log.rows):
            assert res["size"] == row["size"] and res["count"] == row["count"]
            assert res["redop"] == "sum" and res["root"] == "    -1"
            for h in ("out_of_place", "in_place"):
                assert set(res[h]) == {"time", "alg_bw", "bus_bw", "nwrong"}
                assert abs(res[h]["time"] - row[h]["time"]) < 0.01 and res[h]["nwrong"] == 0
            assert res["actual_iterations"] == 2
        assert doc["out_of_bounds"] == {"count": 0, "okay": "true"}
        assert doc["average_bus_bandwidth"]["okay"] == "unchecked"
        r = run(["all_reduce_perf", "-J", os.path.join(d, "out.txt")])
        assert r.returncode == 2 and "only JSON output" in r.stderr


def test_an_installed_link_picks_the_collective():
    real = os.path.join(BUILD, "tools", ".libs", "pldsim-perf")
    if not os.path.exists(real):  # a static build has no libtool wrapper
        real = PERF
    env = {"LD_LIBRARY_PATH": os.path.join(BUILD, ".libs")}
    with tempfile.TemporaryDirectory() as d:
        for name in ("pldsim-alltoall_perf", "broadcast_perf"):
            link = os.path.join(d, name)
            os.symlink(os.path.abspath(real), link)
            r = run(["-b", "1K", "-e", "1K", "-g", "2", "-n", "1"], env=env, argv0=link)
            log = ok(r, name)
            assert log.program == name.replace("pldsim-", ""), log.program


def test_refusals():
    for args, msg in (
        (["all_reduce_perf", "-n", "0"], "bad iteration count '0' for -n"),
        (["all_reduce_perf", "-z", "4"], "bad --blocking '4'"),
        (["all_reduce_perf", "-N", "0"], "bad --run_cycles '0'"),
        (["all_reduce_perf", "-o", "avg"], "bad --op 'avg'"),
        (["all_reduce_perf", "-d", "int8"], "bad --datatype 'int8'"),
        (["all_reduce_perf", "-g", "2", "--devices", "0-3"], "give -g or --devices, not both"),
        (["all_reduce_perf", "-b", "1", "-e", "1M", "-i", "1", "-f", "1"], "more than 65536 sizes"),
        (["all_reduce_perf", "-g"], "-g needs a value"),
        (["all_reduce_perf", "--bogus"], "unknown option '--bogus'"),
        (["all_reduce_perf", "stray"], "unexpected argument 'stray'"),
    ):
        r = run(args)
        assert r.returncode == 2 and msg in r.stderr, (args, r.returncode, r.stderr)
        assert r.stderr.count("pldsim-perf: ") == 1, r.stderr


if __name__ == "__main__":
    sys.exit(script_tests.run_all(globals()))
