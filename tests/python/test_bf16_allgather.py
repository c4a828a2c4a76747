"""A BF16 allgather whose rank count and row length are pl.dynamic: one
program, compiled for 1, 2 and 5 ranks, each called at two row lengths,
in a kernel and as the host's builtin (upstream's dynamic-size case)."""

from __future__ import annotations

import re
import unittest

import support

SHOWN = "tests/python/programs/bf16_allgather.py"


class DynamicBF16Allgather(unittest.TestCase):
    def test_one_program_at_one_two_and_five_ranks_and_two_row_lengths(self):
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = support.pldsim_py("--backend", backend, SHOWN, "-d", "0", "-d", "0,1", "-d", "0,1,2,3,4",
                                      cwd=support.SRC)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                for p in (1, 2, 5):
                    self.assertIn(f"P={p}: N=64 and N=96 gathered", r.stdout)
                if backend == "sim":
                    # the row length is the run's: the bytes moved follow it
                    moved = re.findall(r"P=5 time=[0-9.]+ us moved=([0-9.]+ \w+)", r.stdout + r.stderr)
                    self.assertEqual(len(moved), 2, r.stdout + r.stderr)
                    self.assertNotEqual(moved[0], moved[1])


if __name__ == "__main__":
    unittest.main()
