"""The front end's surface: put/get with chunks, the reduce ops, upstream's
checks, --compile-only and output_dir, direct calls, --seed, the PLD_*
variables, and that pldsim's pypto is visible only inside pldsim-py."""

from __future__ import annotations

import os
import re
import textwrap
import unittest

import support

FEATURES = support.program("features.py")


def features(mode: str, *opts: str, env: dict[str, str] | None = None):
    return support.pldsim_py(*opts, FEATURES, mode, env=env)


def sim_time(stdout: str) -> float:
    return float(re.search(r" time=([0-9.]+) us", stdout).group(1))


class Constructs(unittest.TestCase):
    def test_put_and_get_in_chunks_move_the_data_and_take_their_time(self):
        runs = dict(zip(
            ("put", "put-chunks", "put-pipeline", "get-chunks"),
            support.in_parallel(features, ["put", "put-chunks", "put-pipeline", "get-chunks"]),
        ))
        for mode, r in runs.items():
            with self.subTest(mode=mode):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
        whole, chunked, piped = (sim_time(runs[m].stdout) for m in ("put", "put-chunks", "put-pipeline"))
        # 16 staged chunks pay 16 GM round trips; double buffering hides
        # the GM side of all but one behind the transfers
        self.assertGreater(chunked, whole)
        self.assertLess(piped, chunked)
        self.assertGreater(piped, whole)

    def test_tile_put_and_get_stage_through_the_callers_tiles(self):
        modes = ["put-chunks", "tile-put", "put-pipeline", "tile-put-pipeline", "get-chunks", "tile-get"]
        runs = dict(zip(modes, support.in_parallel(features, modes)))
        for mode, r in runs.items():
            with self.subTest(mode=mode):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
        # the stage's shape is the chunk: the same time as the tensor form with those chunks
        for tensor_form, tile_form in (("put-chunks", "tile-put"), ("put-pipeline", "tile-put-pipeline"), ("get-chunks", "tile-get")):
            self.assertEqual(sim_time(runs[tile_form].stdout), sim_time(runs[tensor_form].stdout), tile_form)

    def test_pipeline_without_chunks_is_upstreams_value_error(self):
        r = features("pipeline-alone")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(
            "pld.tensor.put: pipeline=True requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows=0, chunk_cols=0)",
            r.stderr,
        )

    def test_allreduce_takes_max_min_and_prod_in_both_modes(self):
        r = features("reduce-ops")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_reduce_scatter_takes_max_min_and_prod_in_a_kernel(self):
        # upstream's in-kernel reduce_scatter with Max/Min/Prod (issue 40)
        r = features("reduce-scatter-ops")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_an_int8_all_to_all_v_clamps_its_counts(self):
        # upstream's INT8 all_to_all_v (PR 2714), counts clamped to [0, MAX_RECV]: recv_counts
        # report the clamped count, and the rows not sent read 0, on sim and threads
        runs = support.in_parallel(lambda b: support.pldsim_py("--backend", b, FEATURES, "a2av-int8"), ["sim", "threads"])
        for backend, r in zip(["sim", "threads"], runs):
            with self.subTest(backend=backend):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_a_dynamic_dim_bound_two_ways_is_a_value_error(self):
        r = features("dynamic-mismatch")
        self.assertEqual(r.returncode, 1)
        self.assertIn(
            "ValueError: argument 'y' of double_host: dimension 0 is pl.dynamic('NR'), already bound to 2 "
            "by an earlier argument, but this one has 3",
            r.stderr,
        )
        self.assertNotIn("pldsim/", r.stderr)

    def test_a_computed_dim_is_solved_checked_and_usable_in_the_body(self):
        r = features("composite")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        r = features("composite-mismatch")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("argument 'x' of composite: dimension 0 is M * 2, which no value of M makes 3", r.stderr)

    def test_string_annotations_name_the_factorys_locals(self):
        r = support.pldsim_py(support.program("factory.py"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_an_op_pldsim_lacks_says_so(self):
        r = features("unsupported")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"features\.py:\d+: rank 0: pl\.gemv: not supported by pldsim")

    def test_a_host_orchestrator_can_be_called_directly(self):
        r = features("direct")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("P=2", r.stdout)

    def test_a_kernel_called_from_plain_python_runs_on_one_device(self):
        r = features("kernel-alone")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("P=1", r.stdout)

    def test_valid_shape_clamp_and_carried_loops(self):
        r = features("ragged")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)

    def test_a_yield_of_the_wrong_count_is_upstreams_value_error(self):
        r = features("yield-count")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"features\.py:\d+: rank 0: pl\.yield_: the loop carries 2 value\(s\) \(init_values\) but pl\.yield_ gives 1")

    def test_host_builtins_dispatch_the_collective_to_every_rank(self):
        prog = support.program("host_builtins.py")
        r = support.pldsim_py(prog)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        self.assertEqual(r.stderr, "")  # no warning: pldsim's private signal has a line of its own
        r = support.pldsim_py(prog, "ring")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        r = support.pldsim_py(prog, "ring-mesh-signal")
        self.assertEqual(r.returncode, 3)
        self.assertRegex(
            r.stderr,
            r"host_builtins\.py:\d+: host: pld\.tensor\.allreduce: the host ring allreduce needs an INT32 signal of shape "
            r"\[2\(P-1\)\+1, P\] = \[7, 4\] \(one row per round and one for the final barrier\); got 'sig_buf' \[4, 1\] INT32",
        )
        r = support.pldsim_py(prog, "cores")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        r = support.pldsim_py(prog, "cores-too-many")
        self.assertEqual(r.returncode, 3)
        self.assertRegex(
            r.stderr,
            r"host_builtins\.py:\d+: host: pld\.tensor\.allreduce: \.core_num 49 exceeds the 48 vector cores \(aiv_cores\) of dev0",
        )
        r = support.pldsim_py(prog, "cores-huge")  # an OverflowError traceback once
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertRegex(
            r.stderr,
            r"host_builtins\.py:\d+: host: pld\.tensor\.allreduce: core_num 100000000000000000000 is more "
            r"cores than any device has; expected 1 to the device's vector cores \(aiv_cores\)",
        )
        r = support.pldsim_py(prog, "ring-max")
        self.assertEqual(r.returncode, 3)
        self.assertRegex(r.stderr, r"host_builtins\.py:\d+: host: pld\.tensor\.allreduce: the host ring allreduce supports only PLD_REDUCE_SUM")
        r = support.pldsim_py(prog, "kernel-no-signal")
        self.assertEqual(r.returncode, 3)
        self.assertRegex(r.stderr, r"host_builtins\.py:\d+: rank 0: pld\.tensor\.allreduce: in a kernel needs a signal window")

    def test_prepare_gives_a_handle_that_runs_the_program(self):
        prog = support.program("prepared.py")
        r = support.pldsim_py(prog)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("[pldsim] backend=sim platform=a2a3sim P=1"), 3, r.stdout)
        self.assertIn("OK", r.stdout)
        for mode, status, text in (
            ("closed", 1, "RuntimeError: Doubler: this prepared program called after close"),
            ("two-devices", 3, "host: chip: is a per-device function (@pl.function): the host orchestrator dispatches it with device=r"),
        ):
            with self.subTest(mode=mode):
                r = support.pldsim_py(prog, mode)
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertIn(text, r.stderr)

        r = support.pldsim_py(prog, "keep-windows")  # a program without windows keeps none
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)

    def test_a_compiled_program_runs_again_in_one_process(self):
        r = features("twice")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("[pldsim] backend=sim"), 3, r.stdout)
        self.assertIn("OK", r.stdout)


class Runner(unittest.TestCase):
    def test_compile_only_prints_the_output_directory_and_runs_nothing(self):
        r = support.pldsim_py(support.step("08_allreduce_mesh"), "--compile-only")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.fullmatch(r"compile_only done: (\S+)\n", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertNotIn("[pldsim]", r.stdout)
        # a temporary directory, removed at exit, as upstream's when
        # save_kernels is off
        self.assertFalse(os.path.exists(m.group(1)))

    def test_save_kernels_keeps_the_output_directory(self):
        with support.scratch() as tmp:
            prog = os.path.join(tmp, "keep.py")
            out = os.path.join(tmp, "out")
            with open(prog, "w") as f:
                f.write(textwrap.dedent(f"""
                    import pypto.language as pl
                    import torch
                    from pypto.runtime import RunConfig

                    @pl.jit.incore
                    def k(x: pl.Tensor[[1, 64], pl.FP32]):
                        pl.load(x, [0, 0], [1, 64])

                    compiled = k.compile(torch.zeros(1, 64), config=RunConfig(save_kernels=True, save_kernels_dir={out!r}))
                    print(compiled.output_dir)
                """))
            r = support.pldsim_py(prog)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), out)
            text = open(os.path.join(out, "pldsim-program.txt")).read()
            self.assertIn("k: kernel (@pl.jit.incore)", text)
            self.assertIn("device_ids: [0] (P = 1)", text)

    def test_upstreams_config_checks(self):
        for code, error in (
            ("RunConfig(platform='x86')", "ValueError: Invalid platform 'x86'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."),
            ("DistributedConfig(device_ids=[])", "ValueError: DistributedConfig.device_ids must not be empty"),
            ("DistributedConfig(device_ids=[-1])", "ValueError: DistributedConfig.device_ids must be non-negative device indices, got [-1]"),
            ("DistributedConfig(aicpu_thread_num=1)", "aicpu_thread_num must be 0 (architecture default) or at least 2, got 1"),
        ):
            with self.subTest(code=code), support.scratch() as tmp:
                prog = os.path.join(tmp, "cfg.py")
                with open(prog, "w") as f:
                    f.write("from pypto.runtime import RunConfig\n")
                    f.write("from pypto.ir.distributed_compiled_program import DistributedConfig\n")
                    f.write(code + "\n")
                r = support.pldsim_py(prog)
                self.assertEqual(r.returncode, 1)
                self.assertIn(error, r.stderr)

    def test_the_seed_makes_the_inputs_the_same_every_run(self):
        a, b, c = support.in_parallel(
            lambda opts: features("seed", *opts), [[], ["--seed", "0"], ["--seed", "7"]], workers=3
        )
        for r in (a, b, c):
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(a.stdout, b.stdout)  # the default seed is 0
        self.assertNotEqual(a.stdout, c.stdout)

    def test_pld_variables_are_the_options(self):
        with support.scratch() as tmp:
            t1, t2 = os.path.join(tmp, "a.txt"), os.path.join(tmp, "b.txt")
            step = support.step("10_allreduce_ring")
            a = support.pldsim_py("--topology", "ring:4", "--trace", t1, step)
            b = support.pldsim_py(step, env={"PLD_TOPOLOGY": "ring:4", "PLD_TRACE": t2})
            self.assertEqual(a.returncode, 0, a.stderr)
            self.assertEqual(b.returncode, 0, b.stderr)
            self.assertEqual(a.stdout, b.stdout)
            self.assertEqual(support.trace_rows(t1), support.trace_rows(t2))
            self.assertIn("platform=topology ring:4", a.stdout)
            s = support.pldsim_py("--summary", step)
            self.assertIn("== run summary:", s.stdout)
            quiet = support.pldsim_py(step, env={"PLD_NO_SUMMARY": "1"})
            self.assertEqual(quiet.stdout, "OK\n")

    def test_the_program_gets_its_own_arguments(self):
        r = support.pldsim_py("--no-summary", support.step("11_allreduce_reveal"), "-d", "0,1,2", "--mode", "ring")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "OK\n")
        h = support.pldsim_py(support.step("11_allreduce_reveal"), "--help")
        self.assertEqual(h.returncode, 0)
        self.assertIn("--mode {mesh,ring}", h.stdout)

    def test_help_and_version(self):
        h = support.pldsim_py("--help")
        self.assertEqual(h.returncode, 0)
        for flag in ("--topology", "--platform", "--trace", "--summary", "--races", "--backend", "--wait-timeout", "--seed", "--no-data"):
            self.assertIn(flag, h.stdout)
        self.assertIn("[PLD_TOPOLOGY]", h.stdout)
        v = support.pldsim_py("--version")
        self.assertRegex(v.stdout, r"^pldsim-py \(pldsim\) \d+\.\d+\.\d+\n$")

    def test_pldsims_pypto_is_seen_only_inside_the_runner_and_its_programs_children(self):
        with support.scratch() as tmp:
            real = os.path.join(tmp, "site", "pypto")
            os.makedirs(real)
            with open(os.path.join(real, "__init__.py"), "w") as f:
                f.write("WHO = 'the real pypto'\n")
            prog = os.path.join(tmp, "who.py")
            with open(prog, "w") as f:
                f.write("import pypto\nprint(getattr(pypto, 'WHO', None) or ('pldsim' if pypto.__pldsim__ else '?'))\n")
            env = {"PYTHONPATH": os.path.join(tmp, "site")}
            inside = support.pldsim_py(prog, env=env)
            self.assertEqual(inside.stdout, "pldsim\n", inside.stderr)
            python = open(support.RUNNER).readline()[2:].strip()
            outside = support.run([python, prog], env=env)
            self.assertEqual(outside.stdout, "the real pypto\n", outside.stderr)
            # an interpreter the program starts is part of its run (a model
            # file compiling its parts with `sys.executable part.py
            # --compile-only`): it sees pldsim's pypto too
            parent = os.path.join(tmp, "parent.py")
            with open(parent, "w") as f:
                f.write("import subprocess, sys\n"
                        f"r = subprocess.run([sys.executable, {prog!r}], capture_output=True, text=True)\n"
                        "print('child:', r.stdout.strip() or r.stderr.strip().splitlines()[-1])\n")
            child = support.pldsim_py(parent, env=env)
            self.assertEqual(child.stdout, "child: pldsim\n", child.stderr)


if __name__ == "__main__":
    unittest.main()
