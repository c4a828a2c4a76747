"""The newer patterns of pypto-lib's DeepSeek-V4.1 layers (issue 50), in
programs of our own (tests/python/programs/v41_patterns.py): a self-put
followed by a peer's remote_load and add; credits retired by a negative
atomic add to one's own signal, with one window reused for several rounds;
a 3-D signal of 512-byte lanes completed by defer_wait; and
pl.system.task_dummy as a source (deps=[]) and as a fan-in over a
pl.array of task ids and over a list of its elements.  Each program
checks its results against torch and prints OK.

Not here yet: FP8 / E8M0 data carried in INT8 / UINT8 windows and
re-viewed as FP8 (pl.reinterpret_view, pl.FP8E4M3FN): pldsim has no FP8
dtypes."""

from __future__ import annotations

import re
import unittest

import support

PROGRAM = support.program("v41_patterns.py")


def run(*args: str, env: dict[str, str] | None = None):
    return support.pldsim_py(PROGRAM, *args, env=env)


class V41Patterns(unittest.TestCase):
    def test_each_pattern_computes_what_torch_does(self):
        cases = [("self-put-load",), ("credit-rounds",), ("credit-rounds", "3"), ("lanes-defer",), ("dummy-fanin",)]
        for case, r in zip(cases, support.in_parallel(lambda c: run(*c), cases)):
            with self.subTest(case=case):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                self.assertNotIn("warning", r.stderr)

    def test_the_self_put_moves_nothing_across_the_link(self):
        # each rank's put to itself is a local copy; only the pulls of the
        # peer's row (64 FP32) and the credits (4 B) cross: 2 x (256 + 4) B
        r = run("self-put-load")
        self.assertEqual(r.returncode, 0, r.stderr)
        moved = re.search(r" moved=(\d+) B", r.stdout)
        self.assertIsNotNone(moved, r.stdout)
        self.assertEqual(int(moved.group(1)), 2 * (64 * 4 + 4))


if __name__ == "__main__":
    unittest.main()
