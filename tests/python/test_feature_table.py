"""docs/python.md's table of upstream features (runs / refused / missing)
matches the front end: tests/python/programs/feature_table.py resolves
every row's name the way a program would."""

from __future__ import annotations

import os
import unittest

import support

CHECKER = support.program("feature_table.py")
DOC = os.path.join(support.SRC, "docs", "python.md")


class FeatureTable(unittest.TestCase):
    def test_every_row_of_the_table_is_true(self):
        r = support.pldsim_py(CHECKER, DOC)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        last = r.stdout.splitlines()[-1]
        self.assertRegex(last, r"^\d+ rows, 0 wrong$")
        self.assertGreaterEqual(int(last.split()[0]), 40)

    def test_a_row_that_is_not_true_is_named(self):
        with support.scratch() as d:
            doc = os.path.join(d, "python.md")
            with open(doc, "w") as f:
                f.write("<!-- feature-table -->\n| feature | status |\n|---|---|\n"
                        "| `pl.sort32` | missing |\n| `pl.gemv` | runs |\n| `ir.compile` | runs |\n"
                        "| `pld.tensor.allgather(defer=)` | runs |\n| `pld.tensor.allreduce(defer=)` | runs |\n"
                        "<!-- /feature-table -->\n")
            r = support.pldsim_py(CHECKER, doc)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout.splitlines(), [
            "MISMATCH pl.sort32: the table says missing, the front end has it as runs",
            "MISMATCH pl.gemv: the table says runs, the front end has it as refused",
            "MISMATCH pld.tensor.allreduce(defer=): the table says runs, the front end has it as missing",
            "5 rows, 3 wrong"])


if __name__ == "__main__":
    unittest.main()
