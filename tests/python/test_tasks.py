"""Task graphs under pldsim-py: pl.manual_scope with pl.at tasks and
pld.system.defer_wait.  Deferred waiters free their cores, so a graph with
as many waiters as cores (and more) completes on sim and threads; the same
graph with blocking waits deadlocks, and the report says why; one core
fewer and it completes; each misuse is one message at the .py line."""

from __future__ import annotations

import unittest

import support

SHOWN = "tests/python/programs/deferred.py"
CORES = "mesh:2,aiv_cores=4"


def fault_line(name: str) -> int:
    return support.fault_line(support.program("deferred.py"), name)


def run(mode: str, waiters: int, backend: str = "sim"):
    env = {"PLD_TOPOLOGY": CORES, "PLD_BACKEND": backend}
    return support.pldsim_py(SHOWN, mode, str(waiters), env=env, cwd=support.SRC)


def message_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback", "[pldsim]")) and ": warning: " not in l]


class DeferredCompletion(unittest.TestCase):
    def test_deferred_waiters_free_their_cores(self):
        cases = [(4, "sim"), (9, "sim"), (4, "threads")]
        for (waiters, backend), r in zip(cases, support.in_parallel(lambda c: run("deferred", *c), cases)):
            with self.subTest(waiters=waiters, backend=backend):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_blocking_waiters_on_every_core_deadlock(self):
        full, spare = support.in_parallel(lambda w: run("blocking", w), [4, 3])
        self.assertEqual(spare.returncode, 0, spare.stderr)
        self.assertEqual(full.returncode, 4, full.stderr)
        self.assertIn("deadlock", full.stderr)
        self.assertIn("5 tasks of this manual scope never started: all 4 AIV cores are held by tasks blocked in waits", full.stderr)
        self.assertIn("deferred.py:", full.stderr)

    def test_each_misuse_is_one_message_at_its_line(self):
        cases = {
            "incore": "pld.system.defer_wait: defer_wait belongs in a task of its own",
            "eq": "pld.system.defer_wait: .cmp is PLD_WAIT_EQ; deferred completion supports only PLD_WAIT_GE",
            "negative": "pld.system.defer_wait: expected -1 is outside [0, 2147483647]",
            "foreign-dep": "pl.at: deps[0] is 0, not a task id",
            "host-level": "pl.at: level=<Level.HOST",
            "returns": "pl.at: a pl.at body is a task of its own, submitted now and run later: it cannot return",
        }
        names = list(cases)
        for name, r in zip(names, support.in_parallel(lambda m: run(m, 1), names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = message_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"deferred.py:{fault_line(name)}: ", lines[0])
                self.assertIn(cases[name], lines[0])


if __name__ == "__main__":
    unittest.main()
