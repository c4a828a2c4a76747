"""The idioms of pypto-lib's DeepSeek-V4 model files, in programs written
here (tests/python/programs/model_idioms.py): pl.jit.inline helpers,
bind_dynamic, pl.tensor.dim, sub-region puts into a window band, credit
barriers, task ids as scalars and in arrays, pl.system.task_dummy, the
three forms of pl.spmd, the tensor-level vector math and matmul, an L1
operand gathered row by row (pl.create_l1, pl.gather_row),
torch.unravel_index for an older torch, and the one-line stop of a
program that needs a newer torch."""

from __future__ import annotations

import re
import unittest

import support

PROGRAM = support.program("model_idioms.py")


def idioms(mode: str, *args: str):
    return support.pldsim_py(PROGRAM, mode, *args)


class ModelIdioms(unittest.TestCase):
    def test_a_band_gather_moves_each_ranks_rows_once_to_each_peer(self):
        for rows in ("5", "1"):
            with self.subTest(rows=rows):
                r = idioms("gather", rows)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                # rows x 32 BF16 to the one peer, from each of the 2 ranks, and the
                # 4 credits of the two barriers (the resets stay on the rank)
                moved = re.search(r" moved=(\d+) B", r.stdout)
                self.assertIsNotNone(moved, r.stdout)
                self.assertEqual(int(moved.group(1)), 2 * int(rows) * 32 * 2 + 4 * 4)

    def test_bind_dynamic_refuses_a_dimension_that_contradicts_its_binding(self):
        r = idioms("bind-mismatch")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("model_idioms.py:", r.stderr)
        self.assertIn("bind_dynamic: dimension 1 of the tensor is 10, but LOCAL is already bound to 5", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_each_idiom_runs_and_matches_its_reference(self):
        # each program checks its own results against torch (or numpy) and
        # prints OK: task ids through inline helpers, arrays and dummies; the
        # three forms of pl.spmd; pl.spmd_submit(self.KERNEL, pl.no_dep(t));
        # the INT8 row quantisation on whole and
        # ragged blocks; a tensor matmul in K chunks; the cast modes on
        # halves, saturating; a softmax over a padded valid part; gathers,
        # writes into a value and an accumulator read by vector ops; AIV lanes,
        # pl.cmp and pl.scope; mask gathers and scatters, writes into tiles and
        # stores of a leading region; compile()
        # with samples in another order; torch.unravel_index; pl.sort32 and
        # both forms of pl.mrgsort against a stable argsort (with ties), and
        # gather's output_dtype; a matmul through pl.tile.transpose_view; the
        # reshape of a strided column window in a kernel; an inline helper's
        # own binding of a pl.dynamic, an unset task-id element, and an
        # assemble into a computed value (qwen3_14b/prefill_fwd.py)
        cases = [("task-id",), ("spmd",), ("self-submit",), ("quant", "13"), ("quant", "16"), ("matmul",), ("rounding",),
                 ("softmax",), ("compile-order",), ("staged",), ("lanes",), ("masks",), ("unravel",),
                 ("sort",), ("transpose-view",), ("orch-assemble",), ("gather-row",), ("prefetch",), ("init-value",),
                 ("big-assemble",), ("tile-assemble",), ("column-reshape",), ("qwen3-idioms",)]
        for case, r in zip(cases, support.in_parallel(lambda c: idioms(*c), cases)):
            with self.subTest(case=case):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_an_assemble_in_a_manual_scope_is_refused(self):
        r = idioms("orch-assemble-manual")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(len(support.messages(r.stderr)), 1, r.stderr)
        self.assertRegex(r.stderr, r"model_idioms\.py:\d+: rank 0: pl\.assemble: a copy of tensors in a manual scope has nothing to order it")
        self.assertNotIn("Traceback", r.stderr)

    def assert_refused(self, mode: str, message: str):
        """Mode `mode` stops with status 3 and one line: the program's line
        marked `# FAULT mode`, rank 0, then `message`."""
        r = idioms(mode)
        self.assertEqual(r.returncode, 3, r.stderr)
        line = support.fault_line(PROGRAM, mode)
        self.assertEqual(support.messages(r.stderr), [f"{PROGRAM}:{line}: rank 0: {message}"])
        self.assertNotIn("Traceback", r.stderr)

    def test_a_row_gather_past_its_l1_accumulator_is_refused(self):
        self.assert_refused(
            "gather-row-outside",
            "pl.gather_row: rows 7..9 of dimension 0 run outside acc [8, 32] (dst_offset [7, 0], valid_shape [2, 32])",
        )

    def test_a_prefetch_of_a_tensor_that_is_not_flat_is_refused(self):
        self.assert_refused(
            "prefetch-2d",
            "pl.prefetch.async_prefetch: src must be flat, every dimension 1 but the last ([N] or [1, N]), got [4, 32]: pl.reshape it",
        )

    def test_a_nonzero_bf16_init_value_is_refused(self):
        self.assert_refused(
            "init-value-bf16",
            "pl.create_tensor: a non-zero init_value (1.0) of a BF16 tensor: upstream's codegen fills only integer and 32/64-bit float tensors (use pl.full)",
        )

    def test_a_slice_past_a_tensors_end_reads_the_part_inside_and_warns_once(self):
        r = idioms("overread")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")
        line = support.fault_line(PROGRAM, "overread")
        warnings = [l for l in r.stderr.splitlines() if ": warning: " in l]
        self.assertEqual(len(warnings), 1, r.stderr)
        self.assertTrue(
            warnings[0].startswith(f"{PROGRAM}:{line}: tensor.slice: warning: the slice [16, 32] at [0, 0] runs past the tensor's end [8, 32]"),
            r.stderr,
        )

    def test_the_profile_splits_a_runs_wall_time(self):
        r = support.pldsim_py(PROGRAM, "matmul", env={"PLDSIM_PY_PROFILE": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(
            r"^\[pldsim\] profile: call ([\d.]+) s = setup ([\d.]+) s \+ run ([\d.]+) s "
            r"\(torch's matmul products ([\d.]+) s, Python and the simulator ([\d.]+) s\)$",
            r.stderr,
            re.M,
        )
        self.assertIsNotNone(m, r.stderr)
        call, setup, run_s, products, rest = map(float, m.groups())
        self.assertAlmostEqual(call, setup + run_s, delta=0.011)
        self.assertAlmostEqual(run_s, products + rest, delta=0.011)
        # without the variable, no profile line
        self.assertNotIn("profile:", idioms("matmul").stderr)

    def test_a_program_that_needs_a_newer_torch_stops_at_its_line_naming_that_torch(self):
        # Debian 12's torch (1.13) has no float8: pypto-lib's DeepSeek-V4 files
        # name torch.float8_e4m3fn in their weight generators
        r = idioms("older-torch")
        self.assertEqual(r.returncode, 2, r.stderr)
        line = support.fault_line(PROGRAM, "older-torch")
        self.assertRegex(
            r.stderr,
            rf"^{re.escape(PROGRAM)}:{line}: torch\.float8_e4m3fn needs torch >= 2\.1, and \S+ has torch \S+; "
            r"\./bootstrap installs torch 2\.13 \(its CPU build\) where pip reaches PyPI, "
            r"or name another interpreter with \./configure PYTHON=\.\.\.\n$",
        )
        self.assertNotIn("OK", r.stdout.splitlines())


if __name__ == "__main__":
    unittest.main()
