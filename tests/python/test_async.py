"""put_async under pldsim-py: the ring lands at P = 2..4, a region moves
only its bytes, the async program beats its synchronous twin by the closed
form of docs/models.md, a notify before the wait is a race, and each
misuse is one message at the .py line."""

from __future__ import annotations

import re
import unittest

import support

SHOWN = "tests/python/programs/async_put.py"


def fault_line(name: str) -> int:
    with open(support.program("async_put.py")) as f:
        return next(i for i, l in enumerate(f, 1) if l.rstrip().endswith(f"# FAULT {name}"))


def run(mode: str, devices: str = "0,1"):
    return support.pldsim_py(SHOWN, mode, "-d", devices, cwd=support.SRC)


def sim_time(stdout: str) -> float:
    return float(re.search(r" time=([0-9.]+) us", stdout).group(1))


def message_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback", "[pldsim]")) and ": warning: " not in l]


class AsyncPut(unittest.TestCase):
    def test_the_ring_lands_at_two_to_four_ranks(self):
        cases = [("async", "0,1"), ("async", "0,1,2"), ("async", "0,1,2,3"), ("region", "0,1,2")]
        for (mode, devices), r in zip(cases, support.in_parallel(lambda c: run(*c), cases)):
            with self.subTest(mode=mode, devices=devices):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                moved = re.search(r"moved=([0-9.]+) KiB", r.stdout)
                ranks = devices.count(",") + 1
                self.assertEqual(float(moved.group(1)), ranks * (4.0 if mode == "async" else 2.0))

    def test_the_async_ring_is_faster_by_the_overlapped_compute(self):
        sync, asyn = support.in_parallel(lambda m: run(m), ["sync", "async"])
        self.assertEqual(sync.returncode, 0, sync.stderr)
        self.assertEqual(asyn.returncode, 0, asyn.stderr)
        # a2a3: 4 KiB; the put is one GM read and the link, the async put
        # is the issue, one block's sdma_lat and the link, behind the
        # compute (one GM read and two vector ops); then one poll
        nbytes, hbm_lat, hbm_bw, lat, bw = 4096.0, 0.5, 1.6e6, 1.0, 56e3  # us, B/us
        put = hbm_lat + nbytes / hbm_bw + lat + nbytes / bw
        compute = hbm_lat + nbytes / hbm_bw + 2 * 1024 / 128e3
        engine = 0.5 + lat + nbytes / bw
        saved = put + compute - (0.1 + max(compute, engine) + 0.2)
        self.assertGreater(saved, 0.2)
        self.assertAlmostEqual(sim_time(sync.stdout) - sim_time(asyn.stdout), saved, delta=0.0015)

    def test_the_overlap_example_saves_what_its_walkthrough_says(self):
        # docs/overlap.md: 32 KiB per rank, 25 vector ops of compute
        runs = support.in_parallel(
            lambda extra: support.pldsim_py("--topology", "mesh:4,dispatch_lat=0", "docs/examples/overlap.py", *extra, cwd=support.SRC),
            [[], ["--sync"]],
        )
        for r in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines()[-1], "OK")
        nbytes = 32768.0
        gm, flow, vop = 0.5 + nbytes / 1.6e6, 1.0 + nbytes / 56e3, 8192 / 128e3
        put, compute, engine = gm + flow, gm + 25 * vop, 0.5 + flow
        saved = put + compute - (0.1 + max(compute, engine) + 0.2)
        self.assertAlmostEqual(saved, 1.8056, places=3)
        self.assertAlmostEqual(sim_time(runs[1].stdout) - sim_time(runs[0].stdout), saved, delta=0.0015)

    def test_a_notify_before_the_wait_is_a_race(self):
        r = run("early-notify")
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn(f"{SHOWN}:{fault_line('early-load')}: rank 0: race: pl_load read window 'dst_buf'", r.stderr)
        self.assertIn(f"rank 1's pld_tensor_put_async (a write in flight) at {SHOWN}:{fault_line('early-put')}", r.stderr)

    def test_each_misuse_is_one_line(self):
        cases = {
            "not-flat": ("rank 0", "pld.tensor.put_async", "the region [2, 32] is not logically 1-D"),
            "not-a-session": ("rank 0", "pld.tensor.put_async", "expects an AsyncSession (from pld.system.async_session); got DistributedTensor"),
            "never-waited": ("rank ", "pld.tensor.put_async", "kernel step ends with this put_async in flight"),
            "wait-twice": ("rank 0", "pld.system.wait_async_event", f"the event of the put_async at {SHOWN}:{fault_line('early-put')} was already waited"),
        }
        runs = support.in_parallel(run, list(cases))
        for (mode, (rank, op, text)), r in zip(cases.items(), runs):
            with self.subTest(mode=mode):
                self.assertNotEqual(r.returncode, 0, r.stderr)
                lines = message_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith(f"{SHOWN}:{fault_line(mode)}: {rank}"), lines[0])
                self.assertIn(f": {op}: {text}", lines[0])


if __name__ == "__main__":
    unittest.main()
