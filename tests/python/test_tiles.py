"""Reductions and reshapes of Vec tiles, on-core arrays and pl.const under
pldsim-py (tests/python/programs/tiles.py): each gives torch's result, a
reduction is charged one vector operation per element, and each misuse
is one message at its .py line."""

from __future__ import annotations

import unittest

import support

PROGRAM = "tiles.py"
VECTOR_RATE = 128e9  # a2a3's vector_rate, elements per second (models/a2a3.model)


def run(*args: str):
    return support.pldsim_py(support.program(PROGRAM), *args)


def fault_line(name: str) -> int:
    return support.fault_line(support.program(PROGRAM), name)


messages = support.messages


sim_time_us = support.sim_time_us


class Results(unittest.TestCase):
    def check(self, mode: str) -> None:
        r = run(mode)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_row_and_col_reductions_of_a_tile_and_its_valid_part(self):
        self.check("reduce")

    def test_row_sum_of_a_tensor(self):
        self.check("tensor-reduce")

    def test_reshape(self):
        self.check("reshape")

    def test_array_create_subscripts_get_and_update_element(self):
        self.check("array")

    def test_const(self):
        self.check("const")


class Timing(unittest.TestCase):
    def test_a_row_sum_is_charged_one_vector_operation_per_element(self):
        none, many = support.in_parallel(lambda n: run("timing", str(n)), [0, 1000])
        for r in (none, many):
            self.assertEqual(r.returncode, 0, r.stderr)
        charged = (sim_time_us(many) - sim_time_us(none)) * 1e-6
        self.assertAlmostEqual(charged, 1000 * 8 * 16 / VECTOR_RATE, delta=2e-9)


class Misuse(unittest.TestCase):
    CASES = {
        "tmp-dtype": "pl.tile.row_sum: tmp_tile must have the input's dtype, pl.FP32, got pl.FP16",
        "tmp-small": "pl.tile.row_max: tmp_tile [8, 8] is smaller than the input [8, 16] in dimension 1",
        "no-tmp": "pl.row_sum: a tile's reduction needs tmp_tile",
        "tensor-tmp": "pl.row_sum: a tensor's reduction takes no tmp_tile",
        "row-min-dtype": "pl.tile.row_min: takes INT16, INT32, FP16 or FP32 tiles, got pl.INT8",
        "one-dim": "pl.tile.col_max: needs a tile of 2 or more dimensions, got 1",
        "mat-input": "pl.tile.col_sum: reduces a Vec tile; the input is in Mat",
        "reshape-size": "pl.tile.reshape: cannot reshape a tile of 128 elements ([8, 16]) into [8, 8]",
        "reshape-valid": "pl.tile.reshape: no valid part of shape [16, 8] holds exactly the valid part [8, 3]",
        "array-dtype": "pl.array.create: an array's dtype must be an integer, BOOL or TASK_ID, got pl.FP32",
        "array-extent": "pl.array.create: the extent must be positive, got 0",
        "array-index": "array.update_element: index 4 is outside the array's 4 elements",
        "array-value": "array.update_element: an array of pl.INT32 holds integers, got float",
        "const-type": "pl.const: takes a number, got str",
    }

    def test_each_misuse_is_one_message_at_its_line(self):
        names = list(self.CASES)
        for name, r in zip(names, support.in_parallel(run, names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = messages(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"tiles.py:{fault_line(name)}: rank 0: ", lines[0])
                self.assertIn(self.CASES[name], lines[0])


if __name__ == "__main__":
    unittest.main()
