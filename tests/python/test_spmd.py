"""SPMD launches under pldsim-py (tests/python/programs/spmd.py):
pl.spmd_submit's blocks see their index and count, run at once on the
device's simulated cores (as many at a time as it has), a consumer
submitted with deps= runs after every block of its producer, pl.submit,
pl.pipeline and pl.unroll run their loops, and each misuse is one message
at its .py line."""

from __future__ import annotations

import unittest

import support

PROGRAM = "spmd.py"


def run(*args: str, topology: str | None = None):
    env = {"PLD_TOPOLOGY": topology} if topology else None
    return support.pldsim_py(support.program(PROGRAM), *args, env=env)


def fault_line(name: str) -> int:
    return support.fault_line(support.program(PROGRAM), name)


messages = support.messages


sim_time_us = support.sim_time_us


class Launches(unittest.TestCase):
    def check(self, mode: str) -> None:
        r = run(mode)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_spmd_submit_blocks_see_get_block_idx_and_get_block_num(self):
        self.check("blocks")

    def test_submit_with_deps_runs_after_every_block(self):
        self.check("deps")

    def test_pipeline_unroll_and_const(self):
        self.check("loops")

    def test_blocks_run_at_once_on_the_simulated_cores(self):
        # a2a3 has 48 vector cores: four blocks take as long as one; on a
        # device with 2 cores, 2 blocks take as long as one, 3 and 4 as two
        cases = [("1", None), ("4", None), ("2", "mesh:2,aiv_cores=2"), ("3", "mesh:2,aiv_cores=2"), ("4", "mesh:2,aiv_cores=2")]
        one, four, two_on_2, three_on_2, four_on_2 = [sim_time_us(r) for r in support.in_parallel(lambda c: run("timing", c[0], topology=c[1]), cases)]
        self.assertEqual(four, one)
        self.assertEqual(two_on_2, one)
        self.assertEqual(three_on_2, four_on_2)
        launch = support.model_us()["launch_lat"]
        self.assertGreater(four_on_2, two_on_2 + launch, "a second round of blocks, each more than a launch")


class Misuse(unittest.TestCase):
    CASES = {
        "no-core-num": "pl.spmd_submit: needs the core_num keyword argument",
        "zero-core-num": "pl.spmd_submit: core_num must be a positive integer, got 0",
        # issue 41, class 2: each ran out of memory, or silently took 7.9 GB
        "huge-core-num": "pl.spmd_submit: core_num 10000000 is more blocks than a launch can have; expected 1 to 65535",
        "huge-spmd": "pl.spmd: core_num 10000000 is more blocks than a launch can have; expected 1 to 65535",
        "huge-array": "pl.array.create: the extent 1000000000 is more than an array can hold; expected 1 to 1048576",
        "not-a-kernel": "pl.spmd_submit: submits a kernel (self.kernel, an InCore, AIC or AIV function)",
        "bad-dep": "pl.submit: deps[0] is 3, not a task id",
        "predicate": "pl.spmd_submit: predicate= is not supported by pldsim",
        "block-in-device": "pl.tile.get_block_idx: only a kernel has a block index",
        "bad-arg": "where_am_i: argument 'out' of where_am_i is annotated pl.Tensor[[4, 8], pl.INT32]",
        "pipeline-stage": "pl.pipeline: stage must be a positive integer, got 0",
        "pipeline-no-stage": "pl.pipeline: needs stage= (a positive integer)",
        "unroll-carried": "pl.unroll: an unrolled loop carries no values (init_values)",
    }

    def test_each_misuse_is_one_message_at_its_line(self):
        names = list(self.CASES)
        for name, r in zip(names, support.in_parallel(run, names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = messages(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"spmd.py:{fault_line(name)}: rank ", lines[0])
                self.assertIn(self.CASES[name], lines[0])


if __name__ == "__main__":
    unittest.main()
