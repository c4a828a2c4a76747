"""check_gin_format: pldsim-gin-perf against nccl-tests' device-API GIN
suite (src/device_api/gin: utils/args.cc, utils/common.cc, README.md): its
program names, flags and sweep; its opening line, headers and rows in the
suite's printf widths and decimals; its units (MiB/s = 2^20 B/s, 10^6
messages/s, latency = time per iteration / 2); its rule of exactly 2
ranks; and one refusal line, status 2, for what the suite refuses or pld
cannot express.  Run by tests/scripts/check_gin_format.sh with
PLDSIM_BUILDDIR set; prints "N passed, N failed" and exits 1 on a
failure."""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_tests  # noqa: E402

BUILD = os.environ.get("PLDSIM_BUILDDIR", ".")
GIN = os.path.join(BUILD, "tools", "pldsim-gin-perf")
THROUGHPUT = ["ginPutBW_perf", "ginGetBW_perf", "ginSignalBW_perf"]
LATENCY = ["ginPutLatency_ping_perf", "ginPutLatency_pingPong_perf", "ginGetLatency_ping_perf",
           "ginSignalLatency_ping_perf", "ginSignalLatency_pingPong_perf"]
TITLES = {"ginPutBW_perf": "GIN PUT BANDWIDTH/MESSAGE RATE",
          "ginGetBW_perf": "GIN GET BANDWIDTH/MESSAGE RATE",
          "ginSignalBW_perf": "GIN SIGNAL MESSAGE RATE",
          "ginPutLatency_ping_perf": "GIN PUT PING LATENCY",
          "ginPutLatency_pingPong_perf": "GIN PUT_SIGNAL PING-PONG LATENCY",
          "ginGetLatency_ping_perf": "GIN GET PING LATENCY",
          "ginSignalLatency_ping_perf": "GIN SIGNAL PING LATENCY",
          "ginSignalLatency_pingPong_perf": "GIN SIGNAL PING-PONG LATENCY"}
# the suite's printf formats: header, then each row's cells (width, decimals)
BW_HEADER = "%12s  %14s  %18s  %20s" % ("Size(B)", "Num_Messages", "Bandwidth(MiB/s)",
                                        "Message_Rate(MPPS)")
LAT_HEADER = "%12s  %8s  %14s" % ("Size(B)", "Iters", "Latency(us)")
BW_ROW = re.compile(r"^ {0,11}\d{1,12}  [ \d]{13}\d  [ \d]{13}\d\.\d{3}  [ \d]{15}\d\.\d{3}$")
LAT_ROW = re.compile(r"^ {0,11}\d{1,12}  [ \d]{7}\d  [ \d]{9}\d\.\d{3}$")


def run(args, argv0=None, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([argv0 or GIN] + args, capture_output=True, text=True, env=e,
                          timeout=600)


def table(r, program):
    assert r.returncode == 0, (program, r.returncode, r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    opening = "# %s: rsm=" % TITLES[program]
    assert lines[0].startswith(opening), (lines[0], opening)
    assert lines[0].count(", local mem type=device, remote mem type=device") == 1, lines[0]
    throughput = program in THROUGHPUT
    assert lines[1] == (BW_HEADER if throughput else LAT_HEADER), lines[1]
    rows = []
    for ln in lines[2:]:
        assert (BW_ROW if throughput else LAT_ROW).match(ln), (program, ln)
        assert len(ln) == len(lines[1]), (ln, lines[1])  # the header's widths
        rows.append([float(x) for x in ln.split()])
    return lines[0], rows


def test_every_program_prints_the_suites_table():
    for program in THROUGHPUT + LATENCY:
        extra = ["--gin_op", "put_signal"] if program == "ginPutLatency_pingPong_perf" else []
        r = run([program, "-e", "64", "-n", "20", "-w", "2"] + extra)
        opening, rows = table(r, program)
        assert [int(row[0]) for row in rows] == [4, 8, 16, 32, 64], rows
        assert "simulated" in r.stderr, r.stderr
        if program in THROUGHPUT:
            assert opening.endswith(", ctas=1, threads=1"), opening
            for size, messages, mib, mpps in rows:
                assert messages == 20
                payload = 0 if program == "ginSignalBW_perf" else size
                # MiB/s and MPPS are the same time: messages x size / 2^20 and messages / 1e6
                want = mpps * 1e6 * payload / 2 ** 20
                assert abs(mib - want) <= 0.001 + want * 0.001, (program, size, mib, want)
                assert mpps > 0
        else:
            assert all(row[1] == 20 and row[2] > 0 for row in rows), rows


def test_the_defaults_and_the_sweep():
    # -b 4 -e 4M -f 2: 21 sizes; -n 500 and -w 50
    _, rows = table(run(["ginSignalLatency_ping_perf"]), "ginSignalLatency_ping_perf")
    assert [int(row[0]) for row in rows] == [4 << k for k in range(21)], rows
    assert all(row[1] == 500 for row in rows)
    # -i replaces -f; K/M/G are binary
    _, rows = table(run(["ginPutLatency_ping_perf", "-b", "1K", "-e", "2K", "-i", "256",
                         "-n", "2", "-w", "0"]), "ginPutLatency_ping_perf")
    assert [int(row[0]) for row in rows] == [1024, 1280, 1536, 1792, 2048], rows
    # a step that would overflow past -e ends the sweep (2^50 x 10000 > 2^63)
    # (the size is wider than %12zu, so the row is read without the widths)
    r = run(["ginSignalLatency_ping_perf", "-b", "1048576G", "-e", "1048576G", "-f", "10000",
             "-n", "1", "-w", "0"])
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert [int(ln.split()[0]) for ln in r.stdout.splitlines()[2:]] == [1 << 50], r.stdout


def test_latency_is_half_the_time_per_iteration():
    # a ping of n iterations takes n times one: the printed latency is that
    # time over 2 whatever -n is, and a ping-pong's round trip is two
    # signals, so its one-way latency is at least a signal ping's
    _, one = table(run(["ginSignalLatency_ping_perf", "-e", "4", "-n", "1", "-w", "0"]),
                   "ginSignalLatency_ping_perf")
    _, many = table(run(["ginSignalLatency_ping_perf", "-e", "4", "-n", "100", "-w", "0"]),
                    "ginSignalLatency_ping_perf")
    assert abs(one[0][2] - many[0][2]) <= 0.0011, (one, many)
    _, pp = table(run(["ginSignalLatency_pingPong_perf", "-e", "4", "-n", "100"]),
                  "ginSignalLatency_pingPong_perf")
    assert pp[0][2] >= many[0][2], (pp, many)


def test_bidirectional_sums_both_ranks():
    # two ranks on a full-duplex link do not slow each other: --gin_bd's
    # figures are twice one rank's, and so is its message count
    args = ["ginPutBW_perf", "-b", "1K", "-e", "64K", "-f", "8", "-n", "50", "-w", "5"]
    _, uni = table(run(args), "ginPutBW_perf")
    opening, bd = table(run(args + ["--gin_bd"]), "ginPutBW_perf")
    assert ", bidirectional" in opening, opening
    for u, b in zip(uni, bd):
        assert b[1] == 2 * u[1], (u, b)
        assert abs(b[2] - 2 * u[2]) <= 0.002 + u[2] * 1e-6, (u, b)


def test_an_installed_link_picks_the_program():
    real = os.path.join(BUILD, "tools", ".libs", "pldsim-gin-perf")
    if not os.path.exists(real):  # a static build has no libtool wrapper
        real = GIN
    env = {"LD_LIBRARY_PATH": os.path.join(BUILD, ".libs")}
    with tempfile.TemporaryDirectory() as d:
        link = os.path.join(d, "pldsim-ginGetBW_perf")
        os.symlink(os.path.abspath(real), link)
        table(run(["-e", "8", "-n", "2"], argv0=link, env=env), "ginGetBW_perf")


def test_refusals():
    bad = [
        # the suite's own checks
        ["ginPutBW_perf", "-b", "0"], ["ginPutBW_perf", "-b", "6"], ["ginPutBW_perf", "-e", "10"],
        ["ginPutBW_perf", "-b", "8K", "-e", "4K"], ["ginPutBW_perf", "-f", "1"],
        ["ginPutBW_perf", "-i", "6"], ["ginPutBW_perf", "-w", "-1"], ["ginPutBW_perf", "-n", "0"],
        ["ginPutBW_perf", "-n", "x"], ["ginPutBW_perf", "-b", "1X"], ["ginPutBW_perf", "-c", "0"],
        ["ginPutBW_perf", "--gin_tx_depth", "0"], ["ginPutBW_perf", "--gin_op", "get"],
        ["ginPutBW_perf", "--gin_rsm", "warp"], ["ginPutBW_perf", "--gin_rsm", "thread"],
        ["ginGetBW_perf", "--gin_op", "put"], ["ginPutBW_perf", "--gin_strong_signal"],
        ["ginPutLatency_ping_perf", "--gin_ag"], ["ginPutLatency_ping_perf", "--gin_bd"],
        ["ginPutLatency_ping_perf", "-c", "2"], ["ginPutBW_perf", "--gin_ag", "-t", "33"],
        ["ginPutLatency_pingPong_perf", "--gin_op", "put_counter"],
        ["ginPutBW_perf", "--local_mem_type", "gpu"], ["ginPutBW_perf", "--bogus"],
        ["ginPutBW_perf", "stray"], ["no_such_perf"],
        # the rank rule
        ["ginPutBW_perf", "--devices", "0-3"], ["ginPutBW_perf", "--devices", "0"],
        # what pld cannot express
        ["ginPutBW_perf", "--gin_op", "put_counter"], ["ginPutLatency_pingPong_perf"],
        ["ginPutBW_perf", "-c", "2"], ["ginPutBW_perf", "-t", "64"],
        ["ginGetBW_perf", "--remote_mem_type", "host"],
        ["ginSignalBW_perf", "-n", "2000000000"], ["ginSignalBW_perf", "-e", "16M", "-i", "4"],
    ]
    for args in bad:
        r = run(args)
        assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
        assert r.stdout == "", (args, r.stdout)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("pldsim-"), (args, r.stderr)
    r = run(["ginPutBW_perf", "--devices", "0-3"])
    assert "GIN perf benchmarks require exactly 2 MPI ranks (got 4)" in r.stderr, r.stderr


if __name__ == "__main__":
    sys.exit(script_tests.run_all(globals()))
