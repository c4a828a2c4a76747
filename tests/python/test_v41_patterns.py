"""The newer patterns of pypto-lib's DeepSeek-V4.1 layers (issue 50), in
programs of our own (tests/python/programs/v41_patterns.py): a self-put
followed by a peer's remote_load and add; credits retired by a negative
atomic add to one's own signal, with one window reused for several rounds;
a 3-D signal of 512-byte lanes completed by defer_wait; and
pl.system.task_dummy as a source (deps=[]) and as a fan-in over a
pl.array of task ids and over a list of its elements; FP8 payloads and
E8M0 scales carried in INT8 and UINT8 windows and re-viewed as FP8
(pl.reinterpret_view), with casts to and from FP8 that must give torch's
bytes; FP32 values carried as BF16 bit pairs and pulled with remote_load.  Each program checks its results against torch and prints OK."""

from __future__ import annotations

import re
import unittest

import support

# torch.float8_e8m0fnu came with torch 2.7 (float8_e4m3fn with 2.1)
try:
    import torch

    FP8_TORCH = hasattr(torch, "float8_e8m0fnu")
    TORCH_VERSION = torch.__version__
except ImportError:
    FP8_TORCH, TORCH_VERSION = False, "none"

PROGRAM = support.program("v41_patterns.py")


def run(*args: str, env: dict[str, str] | None = None):
    return support.pldsim_py(PROGRAM, *args, env=env)


class V41Patterns(unittest.TestCase):
    def assert_all_ok(self, cases: list[tuple[str, ...]]) -> None:
        for case, r in zip(cases, support.in_parallel(lambda c: run(*c), cases)):
            with self.subTest(case=case):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                self.assertNotIn("warning", r.stderr)

    def test_each_pattern_computes_what_torch_does(self):
        self.assert_all_ok([("self-put-load",), ("credit-rounds",), ("credit-rounds", "3"), ("lanes-defer",), ("dummy-fanin",), ("bf16-pairs",)])

    def test_the_self_put_moves_nothing_across_the_link(self):
        # each rank's put to itself is a local copy; only the pulls of the
        # peer's row (64 FP32) and the credits (4 B) cross: 2 x (256 + 4) B
        r = run("self-put-load")
        self.assertEqual(r.returncode, 0, r.stderr)
        moved = re.search(r" moved=(\d+) B", r.stdout)
        self.assertIsNotNone(moved, r.stdout)
        self.assertEqual(int(moved.group(1)), 2 * (64 * 4 + 4))

    @unittest.skipUnless(FP8_TORCH, f"the FP8 programs' torch reference needs torch.float8_e8m0fnu (torch 2.7 or later); this torch is {TORCH_VERSION}")
    def test_fp8_in_byte_windows_and_casts_give_torchs_bytes(self):
        self.assert_all_ok([("fp8-window",), ("fp8-casts",)])

    def test_the_fp8_window_moves_the_bytes_of_fp8_not_of_fp32(self):
        if not FP8_TORCH:
            self.skipTest(f"needs torch 2.7 or later; this torch is {TORCH_VERSION}")
        # each rank sends 64 x 32 FP8 codes (1 B each), 64 E8M0 scales and a
        # 4-byte credit: 2 x (2048 + 64 + 4) B = 4232 B = 4.1 KiB
        r = run("fp8-window")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(" moved=4.1 KiB", r.stdout)

    def test_a_reinterpret_to_a_size_that_does_not_divide_is_one_line(self):
        r = run("reinterpret-odd")
        self.assertNotEqual(r.returncode, 0)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(
            lines[0],
            r"v41_patterns\.py:\d+: rank 0: pl\.reinterpret_view: the last axis of the tile holds 34 bytes \(34 pl\.INT8\), not a whole number of pl\.FP32 elements$",
        )


if __name__ == "__main__":
    unittest.main()
