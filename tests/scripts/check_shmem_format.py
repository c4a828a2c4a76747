"""check_shmem_format: pldsim-shmem-perf against NVSHMEM's device
point-to-point perftests (perftest/common/utils.cu's read_args and
print_table_basic, perftest/device/pt-to-pt/*.cu): the options block, the
"#job" line, the header and the rows in print_table_basic's widths and
decimals, GB/sec in 10^9 B/s, latency per iteration not halved (so a
ping-pong's is twice GIN's one-way figure for the same exchange), the
rule of exactly two PEs, and one refusal line, status 2, for every bad
value.  Run by tests/scripts/check_shmem_format.sh with PLDSIM_BUILDDIR
set; prints "N passed, N failed" and exits 1 on a failure."""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_tests  # noqa: E402

BUILD = os.environ.get("PLDSIM_BUILDDIR", ".")
SHMEM = os.path.join(BUILD, "tools", "pldsim-shmem-perf")
GIN = os.path.join(BUILD, "tools", "pldsim-gin-perf")
ROW = re.compile(r"^(\d+) {2,}(None|Thread|Warp|Block) {2,}(\d+\.\d{6}) *$")


def run(args, argv0=None, env=None, prog=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([argv0 or prog or SHMEM] + args, capture_output=True, text=True,
                          env=e, timeout=600)


def tables(r):
    """The tables of a run: [(job, header, [(size, scope, value)])], after
    checking the options block and each line's widths."""
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    assert lines[0] == "Runtime options after parsing command line arguments ", lines[0]
    assert lines[1].startswith("min_size: ") and "use_egm: " in lines[1], lines[1]
    assert lines[2].startswith("Note: Above is full list of options"), lines[2]
    out, i = [], 3
    while i < len(lines):
        if lines[i] == "Note: This test measures full round-trip latency":
            i += 1
            continue
        assert lines[i].startswith("#"), lines[i]
        job = lines[i][1:].strip()
        head = lines[i + 1]
        rows, i = [], i + 2
        while i < len(lines) and not lines[i].startswith("#"):
            m = ROW.match(lines[i])
            assert m, lines[i]
            # "%-10lu  %-8s  %-16.6lf": left-justified in their widths
            assert lines[i][:10].rstrip() == m.group(1) and lines[i][12:20].rstrip() == m.group(2)
            assert len(lines[i]) == 38, repr(lines[i])
            rows.append((int(m.group(1)), m.group(2), float(m.group(3))))
            i += 1
        out.append((job, head, rows))
    return out


def header(var):
    return "%-10s  %-8s  %-16s" % ("size(B)", "scope", var)


def test_bandwidth_tables():
    for prog, job in (("shmem_put_bw", "shmem_put_bw"), ("shmem_get_bw", "shmem_get_bw")):
        (j, head, rows), = tables(run([prog, "-e", "64k", "-n", "20", "-w", "2"]))
        assert j == job + "_uni" and head == header("BW (GB/sec)"), (j, head)
        assert [r[0] for r in rows] == [4 << k for k in range(15)], rows
        assert all(r[1] == "None" and r[2] > 0 for r in rows)
        # both PEs on a full-duplex link: --bidir sums two equal figures
        (j2, _, bidi), = tables(run([prog, "-e", "64k", "-n", "20", "-w", "2", "--bidir"]))
        assert j2 == job + "_bidi", j2
        for u, b in zip(rows, bidi):
            assert abs(b[2] - 2 * u[2]) <= 2e-6 + u[2] * 1e-5, (u, b)


def test_latency_tables_and_the_round_trip():
    t = tables(run(["shmem_put_latency", "-e", "1k", "-n", "20"]))
    assert [x[0] for x in t] == ["shmem_put_latency"] * 3, t
    assert [x[2][0][1] for x in t] == ["Thread", "Warp", "Block"], t
    assert all(x[1] == header("latency (us)") for x in t)
    # the defaults: 4 B to 4 MiB by 2
    (_, _, rows), = tables(run(["shmem_put_signal_ping_pong_latency"]))
    assert [r[0] for r in rows] == [4 << k for k in range(21)], rows
    r = run(["shmem_signal_ping_pong_latency", "-n", "2000"])
    assert "Note: This test measures full round-trip latency" in r.stdout
    (job, _, rows), = tables(r)
    assert job == "shmem_sig_ping_lat" and len(rows) == 1 and rows[0][0] == 8, (job, rows)
    # NVSHMEM's ping-pong is the round trip; GIN's the same exchange over 2.
    # GIN times rank 0, which waits first and sends last: n round trips
    # less half of one plus a send, so many iterations make the edge small
    g = subprocess.run([GIN, "ginSignalLatency_pingPong_perf", "-e", "4", "-n", "2000"],
                       capture_output=True, text=True, timeout=600)
    one_way = float(g.stdout.splitlines()[-1].split()[2])
    assert abs(rows[0][2] - 2 * one_way) <= rows[0][2] * 1e-3, (rows, one_way)
    (_, _, puts), = tables(run(["shmem_put_signal_ping_pong_latency", "-b", "1k", "-e", "1k",
                                "-n", "2000"]))
    g = subprocess.run([GIN, "ginPutLatency_pingPong_perf", "--gin_op", "put_signal", "-b",
                        "1K", "-e", "1K", "-n", "2000"], capture_output=True, text=True,
                       timeout=600)
    one_way = float(g.stdout.splitlines()[-1].split()[2])
    assert abs(puts[0][2] - 2 * one_way) <= puts[0][2] * 1e-3, (puts, one_way)


def test_an_installed_link_picks_the_program():
    real = os.path.join(BUILD, "tools", ".libs", "pldsim-shmem-perf")
    if not os.path.exists(real):  # a static build has no libtool wrapper
        real = SHMEM
    env = {"LD_LIBRARY_PATH": os.path.join(BUILD, ".libs")}
    with tempfile.TemporaryDirectory() as d:
        link = os.path.join(d, "pldsim-shmem_get_latency")
        os.symlink(os.path.abspath(real), link)
        t = tables(run(["-e", "8", "-n", "2"], argv0=link, env=env))
        assert t[0][0] == "shmem_get_latency", t


def test_refusals():
    bad = [["shmem_put_bw", "-b", "0"], ["shmem_put_bw", "-b", "4x"], ["shmem_put_bw", "-e", "-1"],
           ["shmem_put_bw", "-b", "8k", "-e", "4k"], ["shmem_put_bw", "-f", "1"],
           ["shmem_put_bw", "-n", "0"], ["shmem_put_bw", "-w", "-2"], ["shmem_put_bw", "-c", "0"],
           ["shmem_put_bw", "-d", "complex"], ["shmem_put_bw", "-s", "grid"],
           ["shmem_put_bw", "-o", "avg"], ["shmem_put_bw", "-a", "frob"],
           ["shmem_put_bw", "-m", "3"], ["shmem_put_bw", "--dir", "up"],
           ["shmem_put_bw", "--issue", "gpu"], ["shmem_put_bw", "--msgrate"],
           ["shmem_put_bw", "-x"], ["shmem_put_bw", "stray"], ["shmem_put_latency", "--bidir"],
           ["shmem_put_bw", "--devices", "0-2"], ["shmem_put_bw", "--devices", "1"],
           ["shmem_put_signal_ping_pong_latency", "-n", "3g"], ["shmem_p_latency"],
           ["shmem_put_bw", "--chunk", "0"]]
    for args in bad:
        r = run(args)
        assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
        assert r.stdout == "", (args, r.stdout)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("pldsim-"), (args, r.stderr)
    r = run(["shmem_put_bw", "--devices", "0-2"])
    assert "This test requires exactly two processes (got 3)" in r.stderr, r.stderr


if __name__ == "__main__":
    sys.exit(script_tests.run_all(globals()))
