"""The cube unit's ops under pldsim-py (tests/python/programs/cube.py):
each gives torch's result, each misuse is one message at its .py line, and
a matmul's device time is charged through the front end's one hook
(cube._charge_matmul: for now m*n*k vector element operations)."""

from __future__ import annotations

import re
import unittest

import support

PROGRAM = "cube.py"
VECTOR_RATE = 128e9  # a2a3's vector_rate, elements per second (models/a2a3.model)


def run(*args: str):
    return support.pldsim_py(support.program(PROGRAM), *args)


def fault_line(name: str) -> int:
    with open(support.program(PROGRAM)) as f:
        return next(i for i, l in enumerate(f, 1) if l.rstrip().endswith(f"# FAULT {name}"))


def messages(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback", "[pldsim]")) and ": warning: " not in l]


def sim_time_us(r) -> float:
    return float(re.search(r"time=([0-9.]+) us", r.stdout + r.stderr).group(1))


class Results(unittest.TestCase):
    def check(self, mode: str) -> None:
        r = run(mode)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_load_into_mat_move_matmul_matmul_acc_and_store_acc(self):
        self.check("matmul")

    def test_int8_operands_accumulate_in_int32(self):
        self.check("int8")

    def test_vec_operands_are_taken_as_mat(self):
        self.check("vec-operands")

    def test_create_tile_acc_and_matmul_acc_init_cond(self):
        self.check("create-acc")

    def test_tile_full_and_tile_create_in_vec(self):
        self.check("full")

    def test_aic_and_aiv_functions(self):
        self.check("aic-aiv")


class Timing(unittest.TestCase):
    def test_each_matmul_is_charged_m_n_k_vector_operations(self):
        none, hundred = support.in_parallel(lambda n: run("timing", str(n)), [0, 100])
        for r in (none, hundred):
            self.assertEqual(r.returncode, 0, r.stderr)
        charged = (sim_time_us(hundred) - sim_time_us(none)) * 1e-6
        self.assertAlmostEqual(charged, 100 * 16 * 32 * 16 / VECTOR_RATE, delta=2e-9)

    def test_a_mat_load_is_a_traced_gm_load(self):
        with support.scratch() as d:
            trace = f"{d}/t.txt"
            r = support.pldsim_py("--trace", trace, support.program(PROGRAM), "matmul")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(trace) as f:
                ops = [line.split()[3] for line in f if not line.startswith("#")]
        # four loads into Mat (FP16: [16, 32] and [32, 16]), one store of the accumulator
        self.assertEqual([o for o in ops if o in ("load", "store")], ["load"] * 4 + ["store"])


class Misuse(unittest.TestCase):
    CASES = {
        "k-mismatch": "pl.matmul: the inner dimensions differ: lhs is [16, 32] (K = 32) and rhs is [16, 16] (K = 16)",
        "dtype-mismatch": "pl.matmul: lhs and rhs must have one dtype, got pl.FP32 and pl.FP16",
        "lhs-space": "pl.matmul: lhs is a Right tile; the cube reads it from Left, Mat or Vec",
        "acc-not-acc": "pl.matmul_acc: acc must be an Acc tile",
        "acc-dtype": "pl.matmul_acc: acc must be pl.FP32, the accumulator of pl.FP16 operands, got pl.FP16",
        "acc-shape": "pl.matmul_acc: acc is [16, 32] but lhs @ rhs is [16, 16]",
        "store-mat": "pl.store: writes a Vec or an Acc tile; this one is in Mat",
        "load-left": "pl.load: loads into Vec or Mat, not Left",
        "move-acc": "pl.move: a move into Acc is not supported by pldsim",
        "flag": "pl.matmul: 'a_trans' is not supported for Tile operands",
        "out-dtype": "pl.matmul: out_dtype=pl.FP16: a tile matmul's result is the cube's accumulator, pl.FP32",
        "full-value": "pl.tile.full: fills with a constant number, got str",
        "create-shape": "pl.create_tile: shape element 0 must be positive, got 0",
        "create-scale": "pl.create_tile: cannot make a LeftScale or RightScale tile",
        "add-mat": "pl.add: is a vector op and takes Vec tiles; this one is in Mat",
        "acc-bounds": "pl.store: region at offsets [8, 0] with shape [16, 16] is out of bounds of destination 'c'",
        "dead-tile": "pl.move: the tile belongs to a kernel that has returned",
        "aiv-matmul": "pl.load: runs on the cube unit, and kernel aiv_matmul is an AIV function",
        "aic-add": "pl.create_tile: runs on the vector core, and kernel aic_add is an AIC function",
    }

    def test_each_misuse_is_one_message_at_its_line(self):
        names = list(self.CASES)
        for name, r in zip(names, support.in_parallel(run, names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = messages(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"cube.py:{fault_line(name)}: rank 0: ", lines[0])
                self.assertIn(self.CASES[name], lines[0])


if __name__ == "__main__":
    unittest.main()
