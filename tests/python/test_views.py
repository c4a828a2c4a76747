"""Tensor views and tensor-level ops under pldsim-py: pl.slice,
pl.tensor.slice, subscripts and subscript-writes of host tensors and
windows, pl.assemble, pl.add / pl.tensor.add and pl.cast of tensors, and
pld.tensor.remote_store (computed values, host slices, atomic Add) and the
unified pld.remote_store; each misuse is one message naming the .py line,
the rank and the op.  The program is programs/views.py."""

from __future__ import annotations

import os
import unittest

import support

PROGRAM = "tests/python/programs/views.py"  # as the messages print it (run from the source tree)


def fault_line(name: str) -> int:
    with open(support.program("views.py")) as f:
        return next(i for i, l in enumerate(f, 1) if l.rstrip().endswith(f"# FAULT {name}"))


def run(mode: str, *opts: str):
    return support.pldsim_py(*opts, "--no-summary", PROGRAM, mode, cwd=support.SRC)


def message_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback")) and ": warning: " not in l]


class Views(unittest.TestCase):
    def test_views_and_tensor_ops_compute_what_torch_does(self):
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = run("ok", "--backend", backend, "--no-cacheline-check")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_the_tensor_ops_are_traced_as_the_loads_and_stores_they_lower_to(self):
        with support.scratch() as d:
            trace = os.path.join(d, "t.txt")
            r = support.pldsim_py("--no-summary", "--trace", trace, PROGRAM, "ok", cwd=support.SRC)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(trace) as f:
                rank0 = [l.split() for l in f if l.split()[2:3] == ["r0"]]
        ops = [row[3] for row in rank0]
        # pl.tensor.add(row, row) loads its operand twice and adds; the push
        # of a host slice is a load and a remote store; the cast is traced
        self.assertIn("cast", ops)
        self.assertGreaterEqual(ops.count("remote_store"), 2)
        self.assertGreaterEqual(ops.count("remote_store_add"), 2)
        i = ops.index("remote_store")
        self.assertEqual(ops[i - 1], "add")  # the computed value is pushed from its tile
        j = ops.index("remote_store", i + 1)
        self.assertEqual(ops[j - 1], "load")  # the host slice is loaded first, as upstream bridges it
        self.assertEqual(rank0[j][7], "256")  # one [1, 64] FP32 row

    def assert_one_line(self, mode: str, op: str, text: str, status: int = 3):
        r = run(mode)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertEqual(message_lines(r.stderr), [f"{PROGRAM}:{fault_line(mode)}: rank 0: {op}: {text}"], r.stderr)
        self.assertNotIn("OK", r.stdout.splitlines())

    def test_a_slice_outside_its_tensor_is_refused_by_libpld(self):
        self.assert_one_line(
            "slice-oob", "pl.slice", "region at offsets [3, 0] with shape [2, 64] is out of bounds of tensor 'x' [4, 64] (dim 0: 3 + 2 > 4)"
        )

    def test_a_subscript_outside_its_window_is_refused(self):
        self.assert_one_line("subscript-oob", "tensor.slice", "slice 0:5 of dim 0 is outside the tensor's 4 (or empty)")

    def test_a_subscript_write_of_another_shape_is_refused(self):
        self.assert_one_line("assign-shape", "tensor.assemble", "Subscript-write shape mismatch: the window is [2, 64], the source is [1, 64]")

    def test_a_tensor_add_of_two_shapes_names_pl_add(self):
        self.assert_one_line("add-shape", "pl.add", "shape mismatch: [4, 64] vs [1, 64]")

    def test_pl_tensor_add_refuses_a_tile(self):
        self.assert_one_line("tensor-add-tile", "pl.tensor.add", "expects a tensor, got Tile; a tile's op is pl.tile.add (or pl.add)")

    def test_tensor_remote_store_refuses_a_window_and_a_tile_as_upstream(self):
        tail = "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into another use pld.tensor.put."
        self.assert_one_line("trs-window", "pld.tensor.remote_store", f"expects a Tensor src (a tensor-level value); got DistributedTensor. {tail}")
        self.assert_one_line("trs-tile", "pld.tensor.remote_store", f"expects a Tensor src (a tensor-level value); got Tile. {tail}")
        self.assert_one_line("trs-target", "pld.tensor.remote_store", "expects a DistributedTensor target (window-bound); got Tensor")

    def test_tensor_remote_store_region_and_dtype_are_checked_by_libpld(self):
        self.assert_one_line(
            "trs-oob", "pld.tensor.remote_store",
            "region at offsets [0, 0] with shape [4, 64] is out of bounds of target 'dst_buf' [2, 64] (dim 0: 0 + 4 > 2)",
        )
        self.assert_one_line("trs-dtype", "pld.tensor.remote_store", "dtype mismatch: tile is INT32 but target 'dst_buf' is FP32")

    def test_assemble_of_a_tile_is_refused(self):
        self.assert_one_line("assemble-tile", "pl.assemble", "writes a tensor into a tensor; the source is a tile: write a tile with pl.store")

    def test_a_float_to_int_cast_needs_a_mode_pldsim_has(self):
        self.assert_one_line("cast-round", "pl.cast", "rounding mode 'round' of a float-to-integer cast is not supported by pldsim (mode='trunc' is)")


if __name__ == "__main__":
    unittest.main()
