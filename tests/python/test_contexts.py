"""Python on SimGrid's coroutines (issue 30, item 3).  On sim, pldsim-py
runs every rank on one OS thread and switches C stacks between them, each
rank in a Python thread state of its own; PLDSIM_PY_CONTEXTS=thread runs
each rank on an OS thread of its own, as before.  Python state must live
across the switches (deep stacks, generators, thread-local values), and
every report must be what the thread contexts give, byte for byte.  The
programs are programs/stacks.py and programs/faults.py."""

from __future__ import annotations

import sys
import unittest

import support

SHOWN = "tests/python/programs/stacks.py"  # as the messages print it (run from the source tree)
THREAD = {"PLDSIM_PY_CONTEXTS": "thread"}
DEFAULT = {"PLDSIM_PY_CONTEXTS": ""}  # the coroutines, whatever the caller's shell sets


def run(program: str, mode: str, *opts: str, env: dict[str, str] | None = None):
    return support.pldsim_py(*opts, f"tests/python/programs/{program}", mode, cwd=support.SRC, env=env)


def both(program: str, cases: list[tuple[str, ...]]) -> list[tuple]:
    """Each case (a mode and pldsim's options) run on the coroutines (the
    default) and on threads."""
    each = [(env, *c) for c in cases for env in (DEFAULT, THREAD)]
    runs = support.in_parallel(lambda c: run(program, *c[1:], env=c[0]), each)
    return [(runs[2 * i], runs[2 * i + 1]) for i in range(len(cases))]


def report_lines(stderr: str) -> list[str]:
    """The lines that are neither a traceback's nor its source lines."""
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback"))]


class Contexts(unittest.TestCase):
    maxDiff = None  # a difference between the two runs is read whole
    @classmethod
    def setUpClass(cls):
        modes = ["deep-raise", "recursion", "recursion-error", "generators", "thread-state", "threads"]
        cls.runs = dict(zip(modes, both("stacks.py", [(m,) for m in modes])))

    def assert_same_on_threads(self, mode: str):
        fast, threads = self.runs[mode]
        self.assertEqual(
            (fast.returncode, fast.stdout, fast.stderr), (threads.returncode, threads.stdout, threads.stderr)
        )

    def test_the_ranks_share_one_os_thread_unless_threads_are_asked_for(self):
        fast, threads = self.runs["threads"]
        self.assertEqual(fast.returncode, 0, fast.stderr)
        # the coroutines need CPython 3.11 (docs/python.md); built for another
        # Python (Debian 13's 3.13), pldsim-py runs each rank on a thread
        shared = 1 if sys.version_info[:2] == (3, 11) else 2
        self.assertIn(f"threads: {shared} OS thread(s) ran the ranks\n", fast.stdout)
        self.assertEqual(threads.returncode, 0, threads.stderr)
        self.assertIn("threads: 2 OS thread(s) ran the ranks\n", threads.stdout)

    def test_a_kernel_that_raises_deep_in_its_stack_is_reported_once_at_its_line(self):
        r = self.runs["deep-raise"][0]
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr.count("Traceback (most recent call last):"), 1, r.stderr)
        self.assertIn("  [Previous line repeated 297 more times]\n", r.stderr)
        line = support.fault_line(support.program("stacks.py"), "deep-raise")
        self.assertEqual(
            report_lines(r.stderr),
            [
                "ZeroDivisionError: integer division or modulo by zero",
                f"{SHOWN}:{line}: rank 1: kernel kernel: ZeroDivisionError: integer division or modulo by zero "
                "(a Python exception; traceback above)",
            ],
        )
        self.assertIn("(failed)", r.stdout)
        self.assertNotIn("OK", r.stdout.splitlines())
        self.assert_same_on_threads("deep-raise")

    def test_endless_recursion_is_a_recursion_error_of_the_rank(self):
        r = self.runs["recursion-error"][0]
        self.assertEqual(r.returncode, 1, r.stderr)
        line = support.fault_line(support.program("stacks.py"), "recursion-error")
        self.assertEqual(
            report_lines(r.stderr)[-1],
            f"{SHOWN}:{line}: rank 1: kernel kernel: RecursionError: maximum recursion depth exceeded "
            "(a Python exception; traceback above)",
        )
        self.assert_same_on_threads("recursion-error")

    def test_deep_recursion_through_c_calls_lives_across_switches(self):
        r = self.runs["recursion"][0]
        self.assertEqual(r.returncode, 0, r.stderr)
        for rank in (0, 1):
            self.assertIn(f"recursion: rank {rank}: 4000 levels, sum True\n", r.stdout)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")
        self.assert_same_on_threads("recursion")

    def test_generators_live_across_switches_and_between_ranks(self):
        r = self.runs["generators"][0]
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("generators: rank 0: 0 10 caught KeyError('k') at 10", lines)
        self.assertIn("generators: rank 1: 100 110 caught KeyError('k') at 110", lines)
        self.assertIn("generators: started by rank 0 / finished by rank 1; closed [0, 100]", lines)
        self.assertIn("generators: y is x[0] + x[1]: True", lines)
        self.assertEqual(lines[-1], "OK")
        self.assert_same_on_threads("generators")

    def test_each_rank_keeps_its_own_thread_state(self):
        r = self.runs["thread-state"][0]
        self.assertEqual(r.returncode, 0, r.stderr)
        for rank in (0, 1):
            self.assertIn(f"thread-state: rank {rank}: own values True, GIL held 1, sorted [1, 2, 3, 4, 5]\n", r.stdout)
        self.assert_same_on_threads("thread-state")

    def test_every_fault_is_reported_as_on_threads(self):
        # errors, deadlocks, timeouts and races: the same status, output and report
        cases = [("ok",), ("python-error",), ("host-error",), ("misuse",), ("bad-type",), ("caught",),
                 ("bad-arg",), ("host-kernel",), ("deadlock",), ("deadlock", "--wait-timeout", "1ms"),
                 ("race",), ("race", "--races", "warn")]
        for case, (fast, threads) in zip(cases, both("faults.py", cases)):
            with self.subTest(case=case):
                self.assertEqual(
                    (fast.returncode, fast.stdout, fast.stderr), (threads.returncode, threads.stdout, threads.stderr)
                )

    def test_a_bad_value_is_refused_before_the_run(self):
        r = run("stacks.py", "threads", env={"PLDSIM_PY_CONTEXTS": "fibers"})
        self.assertEqual(r.returncode, 2, r.stderr)
        # one line, naming the variable (issue 41: libpld's words alone did not)
        self.assertEqual(r.stderr.strip(), "pldsim-py: PLDSIM_PY_CONTEXTS='fibers': expected thread, raw, ucontext or boost (or unset)")


if __name__ == "__main__":
    unittest.main()
