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
    return support.fault_line(support.program("async_put.py"), name)


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

    def test_the_async_ring_is_slower_at_4_kib_as_on_the_machine(self):
        sync, asyn = support.in_parallel(lambda m: run(m), ["sync", "async"])
        self.assertEqual(sync.returncode, 0, sync.stderr)
        self.assertEqual(asyn.returncode, 0, asyn.stderr)
        # a2a3 (models/a2a3.model): 4 KiB; the put is one GM read and a
        # push over the link, the async put is the issue, one block's
        # sdma_lat and the link at the engine's rate, behind the compute
        # (one GM read and two vector ops); then one poll.  All in us.  The
        # engine's fixed cost, fitted to pto-isa's SDMA reads, is more than
        # the sync put and the compute together: the async program is the
        # slower, as a 4 KiB SDMA read takes 3.8x the sync one on the 910B.
        m = support.model_us()
        nbytes = 4096.0
        gm = m["hbm_lat"] + nbytes / m["hbm_bw"]
        flow = m["link_lat"] + nbytes / m["link_bw"]
        put = gm + m["push_lat"] + flow
        compute = gm + 2 * 1024 / m["vector_rate"]
        engine = m["sdma_lat"] + m["link_lat"] + nbytes / min(m["link_bw"], m["sdma_bw"])
        saved = put + compute - (m["sdma_issue"] + max(compute, engine) + m["poll_lat"])
        self.assertLess(saved, -1.0)
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
        m = support.model_us()
        nbytes = 32768.0
        gm = m["hbm_lat"] + nbytes / m["hbm_bw"]
        flow, vop = m["link_lat"] + nbytes / m["link_bw"], 8192 / m["vector_rate"]
        engine = m["sdma_lat"] + m["link_lat"] + nbytes / min(m["link_bw"], m["sdma_bw"])
        put, compute = gm + m["push_lat"] + flow, gm + 25 * vop
        saved = put + compute - (m["sdma_issue"] + max(compute, engine) + m["poll_lat"])
        self.assertAlmostEqual(saved, -0.0652, places=3)  # the walkthrough's table
        self.assertAlmostEqual(sim_time(runs[1].stdout) - sim_time(runs[0].stdout), saved, delta=0.0015)

    def test_a_notify_before_the_wait_is_a_race(self):
        r = run("early-notify")
        self.assertEqual(r.returncode, 5, r.stderr)
        # issue 28: named as every other Python message names them
        self.assertIn(f"{SHOWN}:{fault_line('early-load')}: rank 0: race: pl.load read window 'dst_buf'", r.stderr)
        self.assertIn(f"rank 1's pld.tensor.put_async (a write in flight) at {SHOWN}:{fault_line('early-put')}", r.stderr)

    def test_each_misuse_is_one_line(self):
        cases = {
            "not-flat": ("rank 0", "pld.tensor.put_async", "the region [2, 32] is not logically 1-D"),
            "not-a-session": ("rank 0", "pld.tensor.put_async", "expects an AsyncSession (from pld.system.async_session); got DistributedTensor"),
            "never-waited": ("rank ", "pld.tensor.put_async", "kernel step ends with this put_async in flight"),
            "wait-twice": ("rank 0", "pld.system.wait_async_event", f"the event of the put_async at {SHOWN}:{fault_line('early-put')} was already waited"),
            # issue 28: refused at the wait, not later as a put left in flight
            "wait-bad-session": ("rank 0", "pld.system.wait_async_event", "expects an AsyncSession (from pld.system.async_session); got int"),
        }
        runs = support.in_parallel(run, list(cases))
        for (mode, (rank, op, text)), r in zip(cases.items(), runs):
            with self.subTest(mode=mode):
                self.assertNotEqual(r.returncode, 0, r.stderr)
                lines = message_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith(f"{SHOWN}:{fault_line(mode)}: {rank}"), lines[0])
                self.assertIn(f": {op}: {text}", lines[0])

    def test_an_exception_with_a_put_in_flight_is_the_error_reported(self):
        # issue 28: the kernel's end-of-kernel check ran first and blamed the put
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = support.pldsim_py("--backend", backend, SHOWN, "raise-in-flight", "-d", "0,1", cwd=support.SRC)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(f"{SHOWN}:{fault_line('raise-in-flight')}: rank ", r.stderr)
                self.assertIn("ZeroDivisionError", r.stderr)
                self.assertNotIn("in flight", r.stderr)


if __name__ == "__main__":
    unittest.main()
