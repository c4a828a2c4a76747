"""The allgather-GEMM program of docs/what-if.md (docs/examples/allgather_gemm.py):
its result is torch's product in each mode, overlapping the allgather with
the GEMM is faster than doing them in turn, and the timelines the study
shows are what the program draws today."""

from __future__ import annotations

import json
import os
import unittest

import support

PROGRAM = os.path.join(support.SRC, "docs", "examples", "allgather_gemm.py")
# every rank starts at once: the host's dispatch skew would hide the gap
TOPOLOGY = "hccs,dispatch_lat=0"


def device_wall_us(*args: str) -> float:
    with support.scratch() as d:
        summary = os.path.join(d, "summary.json")
        r = support.pldsim_py("--no-summary", "--topology", TOPOLOGY, "--summary-json", summary, PROGRAM, *args)
        assert r.returncode == 0 and r.stdout.splitlines()[-1] == "OK", r.stdout + r.stderr
        with open(summary) as f:
            return json.load(f)["run"]["device_wall_us"]


class Result(unittest.TestCase):
    def test_every_mode_computes_the_product(self):
        # two K steps (pl.matmul, then pl.matmul_acc), odd core counts, each
        # order of the peers' tiles, and the whole allgather first (--sync)
        cases = [
            ["-d", "0,1", "-k", "512", "--comm-cores", "3", "--gemm-cores", "5"],
            ["-d", "0,1,2", "--order", "source", "--gemm-cores", "30"],
            ["-d", "0,1,2", "--sync", "--comm-cores", "1"],
        ]
        for args, r in zip(cases, support.in_parallel(lambda a: support.pldsim_py(PROGRAM, *a), cases)):
            with self.subTest(args=args):
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_a_size_the_tiles_do_not_divide_is_refused(self):
        r = support.pldsim_py(PROGRAM, "-m", "100")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("-m 100 is not a multiple of --tile-m 32", r.stderr)


class Overlap(unittest.TestCase):
    def test_overlap_is_faster_than_the_allgather_then_the_gemm(self):
        # P = 4, 2 comm and 8 gemm cores: the puts take about as long as the
        # GEMM, so overlapping them saves a good part of the shorter one
        args = ["-d", "0,1,2,3", "--comm-cores", "2", "--gemm-cores", "8"]
        overlap, sync = support.in_parallel(lambda a: device_wall_us(*a), [args, args + ["--sync"]])
        self.assertLess(overlap, 0.8 * sync, f"overlap {overlap:.1f} us, sync {sync:.1f} us")

    def test_the_study_timelines_are_current(self):
        # docs/what-if.md shows these two; regenerate them with the commands
        # of its "Allgather against GEMM" section
        for mode in ("overlap", "sync"):
            with self.subTest(mode=mode), support.scratch() as d:
                now = os.path.join(d, "now.svg")
                extra = ["--sync"] if mode == "sync" else []
                r = support.pldsim_py(
                    "--no-summary", "--topology", TOPOLOGY, "--trace", now, PROGRAM, "-d", "0,1", "--comm-cores", "2", "--gemm-cores", "4", *extra
                )
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(now) as f, open(os.path.join(support.SRC, "docs", "img", f"allgather-gemm-{mode}.svg")) as g:
                    self.assertTrue(f.read() == g.read(), f"docs/img/allgather-gemm-{mode}.svg is stale")


if __name__ == "__main__":
    unittest.main()
