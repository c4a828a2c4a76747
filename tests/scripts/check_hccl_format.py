"""check_hccl_format: pldsim-hccl-test against CANN's hccl_test, as its
documentation and its source describe it (oam-tools docs/zh/hccl_test:
execution.md's "结果说明", cmdline_options_desc.md; src/hccl_test's
print_execution_time and parse_cmd_line).  The table is compared column
by column: names, units, widths, decimals, the check's values; the sizes
follow hccl_test's loop; alg_bandwidth is the operator's buffer over
aveg_time; each refusal is one line with exit status 2.  Run by
tests/scripts/check_hccl_format.sh with PLDSIM_BUILDDIR set; prints
"N passed, N failed" and exits 1 on a failure."""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import nccl_tests_log  # noqa: E402
import script_tests  # noqa: E402

BUILD = os.environ.get("PLDSIM_BUILDDIR", ".")
HCCL = os.path.join(BUILD, "tools", "pldsim-hccl-test")
PERF = os.path.join(BUILD, "tools", "pldsim-perf")
PROGRAMS = ["all_reduce_test", "all_gather_test", "reduce_scatter_test", "broadcast_test",
            "alltoall_test"]
REFUSED = ["reduce_test", "scatter_test", "alltoallv_test", "alltoallvc_test",
           "all_gatherv_test", "reduce_scatterv_test"]

# The documented table: each column's name with its unit, and how its value
# is printed (hccl_opbase_rootinfo_base: "%-17llu | %-14.2f | %-20.5f | %s").
COLUMNS = [("data_size(Bytes):", "bytes", 17, r"\d+"),
           ("aveg_time(us):", "us", 14, r"\d+\.\d{2}"),
           ("alg_bandwidth(GB/s):", "GB/s", 20, r"\d+\.\d{5}"),
           ("check_result:", None, None, r"success|failed|NULL")]
OPENING = re.compile(r"^the minbytes is (\d+), maxbytes is (\d+), iters is (\d+), "
                     r"warmup_iters is (\d+)$")


def run(args, argv0=None, env=None, timeout=600):
    e = dict(os.environ)
    e.pop("PLDSIM_PERF_TEST_CORRUPT", None)
    e.update(env or {})
    return subprocess.run([argv0 or HCCL] + args, capture_output=True, text=True, env=e,
                          timeout=timeout)


def table(out):
    """hccl_test's log as a parser of it reads it: the opening line's four
    numbers and the rows, each checked against the documented columns."""
    lines = [ln for ln in out.splitlines() if not ln.startswith("Warning: ")]
    m = OPENING.match(lines[0])
    assert m, lines[0]
    header = lines[1].split(" | ")
    assert header == [c[0] for c in COLUMNS], header
    assert lines[1] == "%-15s | %-12s | %-18s | %s" % tuple(header), lines[1]
    rows = []
    for ln in lines[2:]:
        cells = ln.split(" | ")
        assert len(cells) == 4, ln
        for (name, unit, width, pattern), cell in zip(COLUMNS, cells):
            if width:  # left-justified in its printf width
                assert len(cell) == width, (name, cell)
            assert re.fullmatch(pattern, cell.strip()), (name, cell)
        rows.append({"size": int(cells[0]), "us": float(cells[1]), "gbps": float(cells[2]),
                     "check": cells[3]})
    return [int(g) for g in m.groups()], rows


def ok(r, what):
    assert r.returncode == 0, "%s: exit %d\n%s%s" % (what, r.returncode, r.stdout, r.stderr)
    return table(r.stdout)


def buffer_bytes(program, size, P, es=4):
    """cal_execution_time's bytes: the operator's buffer, from hccl_test's
    counts (all_gather and reduce_scatter: 1/P of the count per rank, times
    P; alltoall: the count rounded up to P's multiple)."""
    count = -(-size // es)
    if program in ("all_gather_test", "reduce_scatter_test"):
        return -(-count // P) * es * P
    if program == "alltoall_test":
        return -(-count // P) * P * es
    return count * es


def test_every_program_prints_hccl_tests_table():
    for program in PROGRAMS:
        for check in ("0", "1"):
            r = run([program, "-p", "4", "-b", "1K", "-e", "64K", "-f", "4", "-n", "2",
                     "-w", "1", "-c", check])
            opening, rows = ok(r, program)
            assert opening == [1024, 65536, 2, 1], opening
            assert [row["size"] for row in rows] == [1024, 4096, 16384, 65536], rows
            assert all(row["check"] == ("success" if check == "1" else "NULL")
                       for row in rows), (program, rows)
            for row in rows:
                assert row["us"] > 0
                want = buffer_bytes(program, row["size"], 4) / row["us"] * 1e-3
                assert abs(row["gbps"] - want) <= 1e-5 + want * 0.006, (program, row, want)
            assert "simulated" in r.stderr, r.stderr


def test_the_documented_sweeps():
    # cmdline_options_desc.md's example: -b 100M -e 400M -f 2 is 100M, 200M, 400M
    _, rows = ok(run(["all_reduce_test", "-p", "2", "-b", "100M", "-e", "400M", "-f", "2",
                      "-n", "1", "-w", "0", "-c", "0"]), "-f 2")
    assert [row["size"] for row in rows] == [100 << 20, 200 << 20, 400 << 20], rows
    # no -i: steps of (e - b) / 10
    _, rows = ok(run(["all_reduce_test", "-p", "2", "-b", "1K", "-e", "2K", "-n", "1",
                      "-w", "0", "-c", "0"]), "default step")
    assert [row["size"] for row in rows] == [1024 + 102 * k for k in range(11)], rows
    # -i N: that step; a factor is truncated to whole bytes, as u64 * double is
    _, rows = ok(run(["all_reduce_test", "-p", "2", "-b", "1000", "-e", "1300", "-i", "100",
                      "-n", "1", "-w", "0", "-c", "0"]), "-i")
    assert [row["size"] for row in rows] == [1000, 1100, 1200, 1300], rows
    _, rows = ok(run(["all_reduce_test", "-p", "2", "-b", "1000", "-e", "3000", "-f", "1.5",
                      "-n", "1", "-w", "0", "-c", "0"]), "-f 1.5")
    assert [row["size"] for row in rows] == [1000, 1500, 2250], rows
    # a step that would overflow past -e ends the sweep
    _, rows = ok(run(["all_reduce_test", "-p", "2", "-b", "1", "-e", "2", "-i",
                      "9223372036854775807", "-n", "1", "-w", "0", "-c", "0"]), "huge -i")
    assert [row["size"] for row in rows] == [1], rows
    # the defaults: 64M once, -n 20, -w 10
    opening, rows = ok(run(["all_reduce_test", "-p", "2", "-c", "0"]), "defaults")
    assert opening == [64 << 20, 64 << 20, 20, 10] and len(rows) == 1, (opening, rows)


def test_time_is_rank_0s_per_call_as_pldsim_perf_times_it():
    # the same call, timed by nccl-tests' rules with -a 0 (rank 0): out-of-place
    # for all_reduce_test, in-place for broadcast_test
    for program, nccl, half in (("all_reduce_test", "all_reduce_perf", "out_of_place"),
                                ("broadcast_test", "broadcast_perf", "in_place")):
        _, rows = ok(run([program, "-p", "4", "-b", "64K", "-e", "64K", "-n", "5", "-w", "2",
                          "-c", "0"]), program)
        r = subprocess.run([PERF, nccl, "-g", "4", "-b", "64K", "-e", "64K", "-n", "5",
                            "-w", "2", "-a", "0"], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        perf = float(nccl_tests_log.parse(r.stdout).rows[0][half]["time"])
        assert abs(rows[0]["us"] - perf) <= 0.0101, (program, rows[0], perf)


def test_check_values():
    # a wrong result is "failed", and the run's status says so
    r = run(["all_reduce_test", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0"],
            env={"PLDSIM_PERF_TEST_CORRUPT": "1"})
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    _, rows = table(r.stdout)
    assert [row["check"] for row in rows] == ["failed"], rows
    # beyond the ranks whose product stays exact, hccl_test checks nothing:
    # NULL, after its warning
    r = run(["all_reduce_test", "-p", "16", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0",
             "-o", "prod", "-d", "fp16"])
    _, rows = ok(r, "overflow")
    assert r.stdout.splitlines()[1] == ("Warning: The calculation result overflows, No "
                                        "verification is performed."), r.stdout
    assert [row["check"] for row in rows] == ["NULL"], rows
    # -o on a program without a reduction: hccl_test's warning, then the run
    r = run(["all_gather_test", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0",
             "-o", "max"])
    ok(r, "-o on all_gather_test")
    # after the opening line, before the header, as hccl_test prints it
    assert r.stdout.splitlines()[1] == ("Warning: The -o,--op <sum/prod/min/max> option does "
                                        "not take effect. Check the cmd parameter."), r.stdout


def test_an_installed_link_picks_the_program():
    real = os.path.join(BUILD, "tools", ".libs", "pldsim-hccl-test")
    if not os.path.exists(real):  # a static build has no libtool wrapper
        real = HCCL
    env = {"LD_LIBRARY_PATH": os.path.join(BUILD, ".libs")}
    with tempfile.TemporaryDirectory() as d:
        link = os.path.join(d, "pldsim-reduce_scatter_test")
        os.symlink(os.path.abspath(real), link)
        r = run(["-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0"], argv0=link, env=env)
        ok(r, "link")
        assert r.stderr.startswith("pldsim-reduce_scatter_test: "), r.stderr


def test_refusals():
    bad = [
        ["all_reduce_test", "-b", "1X"], ["all_reduce_test", "-e", "-4"],
        ["all_reduce_test", "-b", "2M", "-e", "1M"], ["all_reduce_test", "-i", "0"],
        ["all_reduce_test", "-i", "x"], ["all_reduce_test", "-f", "1"],
        ["all_reduce_test", "-f", "nan"], ["all_reduce_test", "-o", "avg"],
        ["all_reduce_test", "-d", "int8"], ["all_reduce_test", "-d", "float"],
        ["all_reduce_test", "-n", "0"], ["all_reduce_test", "-n", "1.5"],
        ["all_reduce_test", "-w", "-1"], ["all_reduce_test", "-c", "3"],
        ["all_reduce_test", "-p", "0"], ["all_reduce_test", "-p", "17"],
        ["all_reduce_test", "--ranks", "12"], ["broadcast_test", "-p", "4", "-r", "4"],
        ["all_reduce_test", "-z", "2"], ["all_reduce_test", "-a", "fast"],
        ["all_reduce_test", "-x", "1"], ["all_reduce_test", "-xyz"],
        ["all_reduce_test", "--nthreads", "1"],
        ["all_reduce_test", "stray"], ["all_reduce_test", "-b"],
        ["all_reduce_test", "-b", "0", "-e", "1K", "-f", "2"],
        ["all_reduce_test", "-b", "1", "-e", "1G", "-i", "1"],
        ["all_reduce_test", "--ranks", "16", "--devices", "0-15"],
        ["no_such_test"],
    ] + [[name] for name in REFUSED]
    for args in bad:
        r = run(args)
        assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
        assert r.stdout == "", (args, r.stdout)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("pldsim-"), (args, r.stderr)
    # a run that fails prints no table, not even its opening line
    r = run(["all_reduce_test", "-p", "2", "-b", "1K", "-e", "1K", "--topology", "bogus"])
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout)
    for name in REFUSED:  # the line says what pld lacks
        assert "pld" in run([name]).stderr.split(":", 2)[2]


def test_hardware_switches_are_taken_and_said():
    r = run(["all_reduce_test", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0",
             "-z", "1", "-m", "0", "-s", "1", "-t", "1", "-a", "aiv"])
    ok(r, "switches")
    for said in ("-z 1", "-s 1", "-t 1", "-a aiv"):
        assert "ignoring %s" % said in r.stderr, (said, r.stderr)
    assert "-m 0" not in r.stderr


if __name__ == "__main__":
    sys.exit(script_tests.run_all(globals()))
