"""prepare(persistent=True) under pldsim-py: windows, data and signal cells
alike, survive from one call to the next with reset_persistent_windows=False
and are zeroed with the reset; the comm domain is allocated once, as
upstream's worker counts it; the race detector stays right across calls
(programs/persistent.py asserts the values)."""

from __future__ import annotations

import os
import tempfile
import unittest

import support

PROGRAM = "tests/python/programs/persistent.py"


def run(mode: str, *opts: str):
    return support.pldsim_py("--no-summary", *opts, PROGRAM, mode, cwd=support.SRC)


class Persistent(unittest.TestCase):
    def test_kept_windows_survive_a_second_call_and_a_reset_clears_them(self):
        for backend in ("sim", "threads"):
            for mode in ("keep", "reset", "plain"):
                with self.subTest(backend=backend, mode=mode):
                    r = run(mode, "--backend", backend)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(r.stdout.strip(), "OK")

    def test_reset_without_persistent_is_upstreams_value_error(self):
        r = run("bad-reset")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("ValueError: DistributedWorker reset_persistent_windows=True requires persistent=True\n", r.stderr)

    def test_a_stale_kept_signal_is_a_race_the_detector_reports(self):
        # the second call's wait passes on the first call's credit, so its
        # read of the cell races the peer's new notify
        r = run("stale")
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertRegex(
            r.stderr,
            r"persistent\.py:\d+: rank 1: race: pld\.system\.notify wrote window 'sig_buf' bytes \[0, 4\) of rank 0's copy "
            r".* unordered with rank 0's pl\.read",
        )

    def test_the_workers_allocation_counter_is_the_only_internal(self):
        # the counter itself is asserted by persistent.py; the rest is refused
        src = (
            "from pldsim.program import _WorkerCounters\n"
            "w = _WorkerCounters()\n"
            "assert w._next_alloc_id == 0\n"
            "try:\n"
            "    w._live_domains\n"
            "except AttributeError as e:\n"
            "    print(e)\n"
        )
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "probe.py")
            with open(path, "w") as f:
                f.write(src)
            r = support.pldsim_py(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("prepare()._w._live_domains: pldsim has no runtime worker", r.stdout)


if __name__ == "__main__":
    unittest.main()
