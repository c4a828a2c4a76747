"""Collectives in a chip orchestration body, and the host's all_to_all_v
launched core_num blocks wide (upstream's RFC
#2521, PRs #2738/#2743) under pldsim-py: B = L if L < P else
floor(L / P) * P blocks, K = B / P lanes a peer, a [P, stride] signal
whose lanes reset themselves, one log line a call, and stride < B refused
before the launch.  tests/python/programs/a2av_blocks.py checks the rows,
the clamped counts and the signal itself."""

from __future__ import annotations

import re
import unittest

import support

SHOWN = "tests/python/programs/a2av_blocks.py"
CALL_LINE = support.fault_line(support.program("a2av_blocks.py"), "call")


def run(cores: int, stride: int, devices: str = "0,1", *more: str, flags: tuple[str, ...] = ()):
    return support.pldsim_py(*flags, SHOWN, str(cores), str(stride), *more, "-d", devices, cwd=support.SRC)


def last_call_us(trace: str, rank: str) -> float:
    """The last all_to_all_v call on `rank` in a text trace: from its
    builtin kernel's launch to the last event of the call, in us."""
    start = end = 0.0
    with open(trace) as f:
        for line in f:
            c = line.split()
            if line.startswith("#") or len(c) < 4 or c[2] != rank or not c[-1].endswith(f":{CALL_LINE}"):
                continue
            if c[3] == "launch":
                start, end = float(c[0]), float(c[1])
            else:
                end = max(end, float(c[1]))
    return (end - start) / 1000


class Blocks(unittest.TestCase):
    def test_rows_counts_and_lanes_for_every_launch_width(self):
        # one block on a lane signal; K = 2; L not a multiple of P; B < P
        # (block b for the peers d % B == b); K = 2 at P = 4; lanes with no rows
        cases = [(1, 2, "0,1", "sim"), (4, 4, "0,1", "sim"), (5, 4, "0,1", "sim"), (3, 3, "0,1,2,3", "sim"),
                 (9, 8, "0,1,2,3", "sim"), (48, 48, "0,1,2", "sim"), (3, 3, "0,1,2,3", "threads"), (9, 8, "0,1,2,3", "threads")]
        runs = support.in_parallel(lambda c: run(c[0], c[1], c[2], flags=("--backend", c[3])), cases)
        for (cores, stride, devices, backend), r in zip(cases, runs):
            with self.subTest(core_num=cores, devices=devices, backend=backend):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_each_call_says_how_it_launched(self):
        wide, narrow = support.in_parallel(lambda c: run(*c), [(5, 4, "0,1"), (3, 3, "0,1,2,3")])
        self.assertEqual(wide.returncode, 0, wide.stderr)
        line = (f"[pldsim] {SHOWN}:{CALL_LINE}: all_to_all_v core_num 5 over 2 ranks: 4 blocks, "
                "2 lanes a peer, signal stride 4")
        self.assertEqual([l for l in wide.stdout.splitlines() if "core_num" in l], [line, line])
        self.assertIn("core_num 3 over 4 ranks: 3 blocks, block b for the peers d with d % 3 == b, "
                      "signal stride 3", narrow.stdout)

    def test_more_blocks_move_the_rows_sooner(self):
        widths = [1, 4, 16]
        with support.scratch() as d:
            def timed(cores: int):
                trace = f"{d}/{cores}.txt"
                r = run(cores, cores, "0,1", "64", "full", flags=("--trace", trace))
                self.assertEqual(r.returncode, 0, r.stderr)
                return last_call_us(trace, "r1")
            took = support.in_parallel(timed, widths)
        # 64 KiB a peer in 256-element tiles: K lanes carry a peer's rows
        # side by side (on a2a3: 61.6, 25.3 and 9.1 us)
        self.assertLess(took[1], took[0])
        self.assertLess(took[2], took[1])
        self.assertGreater(took[0] / took[2], 4, took)

    def test_a_signal_narrower_than_the_blocks_is_refused_before_the_launch(self):
        r = run(5, 3)
        self.assertEqual(r.returncode, 3, r.stderr)
        lines = support.messages(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(f"a2av_blocks.py:{CALL_LINE}: host: pld.tensor.all_to_all_v: core_num 5 needs an INT32 "
                      "signal of shape [2, stride] with stride >= 4 (one column per block: core_num 5 launches "
                      "B = 4 blocks); got", lines[0])
        self.assertNotIn("core_num 5 over", r.stdout)  # nothing launched
        self.assertIsNone(re.search(r"launch .*a2av_blocks", r.stdout))


CHIP = "tests/python/programs/chip_collectives.py"


class ChipOrchestration(unittest.TestCase):
    """Collectives written in a FunctionType.Orchestration body (upstream's
    PR #2635): one host dispatch per rank, and each call one builtin kernel
    launched on that rank."""

    def test_one_dispatch_per_rank_and_one_launch_per_call(self):
        lines = {name: support.fault_line(support.program("chip_collectives.py"), name) for name in ("a2av", "allreduce")}
        cases = [("1", "0,1"), ("1", "0,1,2,3"), ("4", "0,1,2")]
        with support.scratch() as d:
            def go(case):
                cores, devices = case
                trace = f"{d}/{cores}-{len(devices)}.txt"
                return support.pldsim_py("--trace", trace, CHIP, cores, "-d", devices, cwd=support.SRC), trace
            for (cores, devices), (r, trace) in zip(cases, support.in_parallel(go, cases)):
                with self.subTest(core_num=cores, devices=devices):
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(r.stdout.splitlines()[-1], "OK")
                    P = len(devices.split(","))
                    with open(trace) as f:
                        rows = [l.split() for l in f if not l.startswith("#")]
                    self.assertEqual(sum(1 for c in rows if c[2] == "host" and c[3] == "dispatch"), P)
                    for name, line in lines.items():
                        for rank in range(P):
                            launches = [c for c in rows if c[2] == f"r{rank}" and c[3] == "launch" and c[-1].endswith(f":{line}")]
                            self.assertEqual(len(launches), 1, f"{name} on r{rank}")


if __name__ == "__main__":
    unittest.main()
