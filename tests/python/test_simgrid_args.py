"""pldsim-py hands SimGrid's --cfg and --log to the run, repeatable, as
every C program does, and --save-platform writes the platform."""

from __future__ import annotations

import os
import re
import tempfile
import unittest

import support

SHOWN = "tests/python/programs/async_put.py"


def run(*flags: str):
    return support.pldsim_py(*flags, SHOWN, "sync", "-d", "0,1", cwd=support.SRC)


def sim_time(stdout: str) -> float:
    return float(re.search(r" time=([0-9.]+) us", stdout).group(1))


class SimGridArgs(unittest.TestCase):
    def test_cfg_and_log_reach_simgrid(self):
        cm02, lv08, flag, last = support.in_parallel(
            lambda f: run(*f),
            [(), ("--cfg=network/model:LV08", "--log=root.thresh:critical"), ("--network-model", "LV08"), ("--cfg=network/model:LV08", "--cfg", "network/model:CM02")],
        )
        for r in (cm02, lv08, flag, last):
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sim_time(lv08.stdout), sim_time(flag.stdout))
        self.assertNotEqual(sim_time(lv08.stdout), sim_time(cm02.stdout))
        self.assertEqual(sim_time(last.stdout), sim_time(cm02.stdout))

    def test_a_setting_simgrid_refuses_is_one_message(self):
        r = run("--cfg=bogus/key:1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--cfg 'bogus/key:1': pldsim passes no SimGrid setting 'bogus/key'", r.stderr)

    def test_a_value_simgrid_would_abort_on_is_one_message(self):
        # issue 28: SimGrid aborts (134) on these; the runner's flags are libpld's checks
        for flag, message in (
            ("--cfg=network/bandwidth-factor:0", "expected network/bandwidth-factor a number in [1e-06, 1000000]"),
            ("--log=root.app:file:/nonexistent/x", "cannot write /nonexistent/x: directory /nonexistent does not exist"),
        ):
            r = run(flag)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(message, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_save_platform_writes_the_xml(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.xml")
            r = run("--save-platform", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                self.assertIn("<platform version=", f.read())


if __name__ == "__main__":
    unittest.main()
