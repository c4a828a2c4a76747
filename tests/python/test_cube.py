"""The cube unit's ops under pldsim-py (tests/python/programs/cube.py):
each gives torch's result, each misuse is one message at its .py line; and
the cube model's times against their closed forms
(tests/python/programs/cube_time.py, docs/models.md "The cube unit")."""

from __future__ import annotations

import json
import os
import unittest

import support

PROGRAM = "cube.py"
TIMED = "cube_time.py"
QUIET = "mesh:1,dispatch_lat=0"  # one device, no host dispatch: the kernel alone


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


def timed(*args: str, topology: str = QUIET):
    return support.pldsim_py("--topology", topology, support.program(TIMED), *args)


def matmul_us(m: dict, dtype: str, mm: int, n: int, k: int) -> float:
    """cost.c's matmul: cube_lat + 2 M N K / rate, M, N, K rounded up to
    the fractal (16 x 16, by 32 bytes of the dtype along K)."""
    size = {"FP16": 2, "BF16": 2, "FP32": 4, "INT8": 1}[dtype]
    rate = {"FP16": "cube_rate", "BF16": "cube_rate", "FP32": "cube_fp32_rate", "INT8": "cube_int8_rate"}[dtype]
    kt = 32 // size
    up = lambda x, q: -(-x // q) * q  # noqa: E731
    return m["cube_lat"] + 2 * up(mm, 16) * up(n, 16) * up(k, kt) / m[rate]


def l1_load_us(m: dict[str, float], nbytes: int) -> float:
    """A load of `nbytes` from GM into L1: a GM access at the cube's own
    load rate, l1_bw (hbm_bw where the model gives none)."""
    return m["hbm_lat"] + nbytes / (m.get("l1_bw") or m["hbm_bw"])


class Timing(unittest.TestCase):
    def test_a_gemm_is_its_loads_moves_fractals_and_drain(self):
        """launch + G(A) + G(B) + A/l0a_bw + B/l0b_bw + matmul + l0c_lat +
        C/l0c_bw, for each dtype, with sizes that fill the fractals and
        sizes that do not."""
        m = support.model_us()
        cases = [("FP16", 64, 48, 96), ("FP16", 20, 17, 40), ("BF16", 16, 16, 16), ("INT8", 32, 32, 64), ("FP32", 16, 24, 8)]
        runs = support.in_parallel(lambda c: timed("gemm", c[0], *map(str, c[1:])), cases)
        for (dtype, mm, n, k), r in zip(cases, runs):
            with self.subTest(dtype=dtype, m=mm, n=n, k=k):
                self.assertEqual(r.returncode, 0, r.stderr)
                size = {"FP16": 2, "BF16": 2, "FP32": 4, "INT8": 1}[dtype]
                a, b, c = mm * k * size, k * n * size, mm * n * 4
                want = m["launch_lat"] + l1_load_us(m, a) + l1_load_us(m, b) + a / m["l0a_bw"] + b / m["l0b_bw"] + matmul_us(m, dtype, mm, n, k) + m["l0c_lat"] + c / m["l0c_bw"]
                self.assertAlmostEqual(sim_time_us(r), want, delta=0.0015)  # time= has 3 decimals

    def test_each_matmul_acc_of_l1_operands_moves_them_into_l0(self):
        """cube.py's timing mode: N matmul_acc of [16, 32] @ [32, 16] FP16
        tiles held in L1: each moves both into L0A and L0B (MTE1), then
        multiplies (M).  The pipes run at once (docs/models.md, "The cube's
        pipes"): a matmul's moves overlap the matmul before it, so N of them
        take one pair of moves and one matmul, N - 1 steps of the slower
        pipe, then the drain.  With N = 0 the drain overlaps the two loads,
        which take longer, so it adds nothing there."""
        m = support.model_us()
        none, hundred = support.in_parallel(lambda n: run("timing", str(n)), [0, 100])
        for r in (none, hundred):
            self.assertEqual(r.returncode, 0, r.stderr)
        moves = 1024 / m["l0a_bw"] + 1024 / m["l0b_bw"]
        mad = matmul_us(m, "FP16", 16, 16, 32)
        drain = m["l0c_lat"] + 1024 / m["l0c_bw"]
        loads = 2 * l1_load_us(m, 1024)
        self.assertGreater(loads, drain)
        self.assertAlmostEqual(sim_time_us(hundred) - sim_time_us(none), moves + mad + 99 * max(moves, mad) + drain, delta=0.002)

    def test_gemm_py_refuses_bad_sizes_naming_its_own_flags(self):
        gemm = os.path.join(support.SRC, "bench", "gemm.py")
        for args, msg in (
            (["-m", "0"], "-m must be positive"),  # it named a --m flag, which does not exist
            (["--tile-k", "-1"], "--tile-k must be positive"),
            (["-n", "100"], "-n 100 is not a multiple of its tile (256)"),
        ):
            with self.subTest(args=args):
                r = support.pldsim_py("--timing-only", gemm, *args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertTrue(r.stderr.splitlines()[-1].endswith(f"error: {msg}"), r.stderr)

    def test_a_gemm_k_loop_runs_at_its_slowest_pipe(self):
        """bench/gemm.py on one AIC: one 128 x 256 output tile, K = 1024 in
        4 L1 panels of 4 matmuls each (docs/models.md, "The cube's pipes").
        The loads stream on MTE2 from the launch; a panel's moves wait for
        its loads, its matmuls for their moves; the drain waits for the
        last matmul.  Three models: as it is (the loads are the slowest
        pipe, then the last panel's moves and matmuls follow them), with
        the loads and moves free (the matmuls alone), and with the
        matmuls and moves free (the loads alone)."""
        m = support.model_us()
        fast = "l0a_bw=1000TBps,l0b_bw=1000TBps"
        # free loads need the device's own reads unlimited too: a lone core
        # gets no more than gm_read_bw (docs/models.md, "Shared GM bandwidth")
        specs = ["hccs", f"hccs,l1_bw=1000TBps,gm_read_bw=0,{fast}", f"hccs,cube_rate=1e21,cube_lat=0,{fast}"]
        runs = support.in_parallel(
            lambda spec: support.pldsim_py("--timing-only", "--no-summary", "--topology", spec, os.path.join(support.SRC, "bench", "gemm.py"), "--cores", "1", "-m", "128", "-n", "256", "-k", "1024"),
            specs,
        )
        walls = []
        for r in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
            walls.append(float(r.stdout.split("device_wall_us=")[1].split()[0]))
        a, b = 128 * 256 * 2, 256 * 256 * 2  # one panel of A and of B, FP16
        panel_loads = l1_load_us(m, a) + l1_load_us(m, b)
        moves = (a / 4) / m["l0a_bw"] + (b / 4) / m["l0b_bw"]
        mad = matmul_us(m, "FP16", 128, 256, 64)
        drain = m["l0c_lat"] + 128 * 256 * 4 / m["l0c_bw"]
        self.assertGreater(panel_loads, 4 * max(moves, mad))  # the premise: MTE2 is the slowest
        self.assertGreater(mad, moves)
        launch, free = support.task_start_us(m), 1e9  # 1000 TBps, in bytes per us
        want = [
            launch + 4 * panel_loads + moves + 4 * mad + drain,
            launch + 2 * m["hbm_lat"] + (a + b) / free + (a + b) / 4 / free + 16 * mad + drain,
            launch + 4 * (2 * m["hbm_lat"] + (a + b) / m["l1_bw"]) + (a + b) / free + drain,
        ]
        for spec, got, w in zip(specs, walls, want):
            with self.subTest(topology=spec):
                self.assertAlmostEqual(got, w, delta=1e-6)

    def test_a_cube_kernel_waits_while_its_pipes_run_on(self):
        """A cube kernel's pipes run past its clock.  A wait publishes
        nothing, so it does not settle them: in docs/examples/
        allgather_gemm.py (one cube core, one comm core a rank, two tiles
        of the peer's rows) each wait for a peer's tile starts while the
        pipes still work on the rank's own tiles, and the load of the
        peer's tile starts only when its wait ends.  The kernel ends after
        its last pipe op."""
        with support.scratch() as d:
            trace = os.path.join(d, "t.txt")
            r = support.pldsim_py("--topology", "hccs,dispatch_lat=0", "--trace", trace, os.path.join(support.SRC, "docs", "examples", "allgather_gemm.py"),
                                  "-d", "0,1", "--comm-cores", "1", "--gemm-cores", "1", "-m", "64", "-k", "64", "-n", "256", "--tile-m", "32", "--tile-k", "64", "--tile-n", "256")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(trace) as f:  # in order of start
                rows = [line.split() for line in f if not line.startswith("#")]
        for rank in ("r0", "r1"):
            mine = [(float(c[0]), float(c[1]), c[3], c[5]) for c in rows if c[2] == rank]
            waits = [(t0, t1) for t0, t1, op, _ in mine if op == "wait_ge"]
            pipes = [(t0, t1) for t0, t1, op, _ in mine if op in ("load", "move", "matmul", "store")]
            peer_loads = [t0 for t0, _, op, where in mine if op == "load" and where == "gathered_buf"]
            kernel_end = max(t1 for t0, t1, op, _ in mine if op != "dispatch")
            self.assertEqual((len(waits), len(peer_loads)), (2, 2), rank)
            with self.subTest(rank=rank):
                self.assertTrue(any(s <= waits[0][0] < e for s, e in pipes), f"{rank}: the pipes were idle at the first wait")
                for (_, wait_end), load in zip(waits, peer_loads):
                    self.assertGreaterEqual(load, wait_end)
                self.assertEqual(kernel_end, max(e for _, e in pipes))

    def test_a_notify_to_its_own_rank_lands_when_the_cube_core_makes_it(self):
        """bench/gemm_ar.py, small: each cube core notifies a tile's ready
        cell on its own rank once the tile is stored, and a vector core of
        the same rank waits for it.  The cube core's clock runs far ahead
        of SimGrid's (its pipes), so the update must land at its model
        time: every wait ends a poll after its notify or its own start,
        whichever is later (the first ones ended at the launch, 4 us
        early, when the update was applied at SimGrid's time).  The GM is unshared here, which would otherwise
        keep the cube core's clock near SimGrid's."""
        with support.scratch() as d:
            trace = os.path.join(d, "t.txt")
            r = support.pldsim_py("--timing-only", "--no-summary", "--topology", "hccs,dispatch_lat=0,gm_read_bw=0,gm_write_bw=0", "--trace", trace,
                                  os.path.join(support.SRC, "bench", "gemm_ar.py"), "-d", "0-1", "-m", "256", "-k", "256", "-n", "512", "--gemm-cores", "2", "--comm-cores", "2")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(trace) as f:
                rows = [c for c in (line.split() for line in f if not line.startswith("#")) if c[5] == "ready_buf"]
        m = support.model_us()
        notified = {(c[2], c[6]): float(c[1]) for c in rows if c[3] == "notify_set"}
        waits = [(c[2], c[6], float(c[0]), float(c[1])) for c in rows if c[3] == "wait_ge"]
        self.assertEqual(len(waits), 8)
        for rank, cell, start, end in waits:
            with self.subTest(rank=rank, cell=cell):
                self.assertAlmostEqual(end, max(start, notified[(rank, cell)]) + m["poll_lat"] * 1e3, delta=1e-3)

    def test_the_summary_counts_overlapping_pipe_ops_once(self):
        """--summary's busy time is the span of the rank's timeline where
        an op runs, not the sum of its ops: a GEMM on one cube core,
        whose pipes overlap, is busy for exactly its device wall (launch
        included) less the wait for its task's submission, and never idle
        for less than nothing (issue 42's review: busy summed to 2.8x the
        wall, idle -35 us)."""
        with support.scratch() as d:
            out = os.path.join(d, "s.json")
            r = support.pldsim_py("--timing-only", "--no-summary", "--summary-json", out, os.path.join(support.SRC, "bench", "gemm.py"), "--cores", "1", "-m", "1024", "-n", "1024", "-k", "1024")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                rank = json.load(f)["ranks"][0]
        self.assertAlmostEqual(rank["busy_us"], rank["device_wall_us"] - support.model_us()["submit_lat"], delta=1e-6)
        self.assertGreaterEqual(rank["idle_us"], 0)

    def test_cube_and_vector_cores_are_separate_resources(self):
        """An AIC task beside an AIV task takes as long as the longer of
        them, not their sum; the AIV task, submitted second, starts one
        submission later."""
        submit = support.model_us()["submit_lat"]
        for w in ("10", "400"):
            both, cube, vec = support.in_parallel(lambda a: timed(*a), [("overlap", w), ("cubes", "1", w), ("scale", w)])
            for r in (both, cube, vec):
                self.assertEqual(r.returncode, 0, r.stderr)
            with self.subTest(w=w):
                self.assertAlmostEqual(sim_time_us(both), max(sim_time_us(cube), sim_time_us(vec) + submit), delta=0.0015)
                self.assertLess(sim_time_us(both), sim_time_us(cube) + sim_time_us(vec) - 1.0)

    def test_aic_cores_blocks_run_at_once(self):
        """a2a3 has 24 AIC: 24 blocks of an AIC function take one block's
        time, the 25th a second round; with aic_cores = 2, 3 blocks take
        two rounds.  The device's GM is not shared here: 24 drains at once
        would share gm_write_bw (test_gm_share.py)."""
        alone = QUIET + ",gm_read_bw=0,gm_write_bw=0"
        cases = [("1", alone), ("24", alone), ("25", alone), ("2", alone + ",aic_cores=2"), ("3", alone + ",aic_cores=2")]
        one, full, over, two_of_2, three_of_2 = [sim_time_us(r) for r in support.in_parallel(lambda c: timed("cubes", c[0], "10", topology=c[1]), cases)]
        submit = support.model_us()["submit_lat"]  # once for all the blocks
        self.assertAlmostEqual(full, one, delta=0.0015)
        self.assertAlmostEqual(two_of_2, one, delta=0.0015)
        self.assertAlmostEqual(over, 2 * one - submit, delta=0.003)
        self.assertAlmostEqual(three_of_2, 2 * one - submit, delta=0.003)

    def test_a_model_without_a_cube_rate_refuses_the_matmul(self):
        r = timed("gemm", "FP16", "16", "16", "16", topology=QUIET + ",cube_rate=0")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("pl.matmul: platform topology mesh:1,dispatch_lat=0,cube_rate=0 gives dev0 no cube rate for FP16", r.stderr)

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
