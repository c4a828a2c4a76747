"""pypto-lib's way of running its examples: a compiled program's parameter
metadata (_get_metadata, by which pypto-lib's golden runner orders its
arguments), pypto.runtime.benchmark and its statistics, whose device times
are the simulated ones, and RunConfig's former name enable_l2_swimlane."""

from __future__ import annotations

import re
import unittest

import support


def run(mode: str):
    return support.pldsim_py(support.program("runtime_api.py"), mode)


def summary_time_us(stderr_or_stdout: str) -> float:
    return float(re.search(r"time=([0-9.]+) us", stderr_or_stdout).group(1))


def run_code(name: str, code: str):
    """pldsim-py on a program of `code`, written to NAME.py in a scratch folder."""
    with support.scratch() as d:
        path = f"{d}/{name}.py"
        with open(path, "w") as f:
            f.write(code)
        return support.pldsim_py(path)


def refusal_lines(r) -> list[str]:
    """The non-blank lines of a run's stderr (a refusal is exactly one)."""
    return [ln for ln in r.stderr.splitlines() if ln.strip()]

class Metadata(unittest.TestCase):
    def test_parameters_directions_shapes_and_dtypes(self):
        r = run("metadata")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(
            lines[:6],
            [
                "x In [-1, 1, 64] pl.FP32",
                "acc InOut [2, 1, 64] pl.FP32",
                "y Out [-1, 1, 64] pl.FP32",
                "k In None pl.FP32",
                "outputs [2]",
                "results [pl.Tensor[[ROWS, 1, 64], pl.FP32]]",
            ],
        )
        self.assertEqual(lines[-1], "OK")


class NewestImports(unittest.TestCase):
    def test_pypto_ir_has_the_config_and_the_program_class(self):
        # upstream's newest path: from pypto.ir import DistributedConfig, DistributedCompiledProgram
        r = run("newest-imports")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_loading_a_compiled_directory_is_refused_in_one_line(self):
        # pypto-lib's synthetic_token_loop.py compiles in a child, then
        # loads with from_dir; pldsim writes no kernels to load
        code = (
            "from pypto.ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig\n"
            "DistributedCompiledProgram.from_dir('build/prefill', platform='a5sim', distributed_config=DistributedConfig(device_ids=[0, 1]))\n"
        )
        r = run_code("load", code)
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = refusal_lines(r)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"load\.py:2: .*DistributedCompiledProgram\.from_dir: loading a compiled program from 'build/prefill' is not supported by pldsim")

    def test_the_backend_type_is_set_once_and_the_ir_is_refused_in_one_line(self):
        # pypto-lib's qwen3_14b/rope_qkv_regen.py sets the global backend,
        # compiles, then reads compiled.program (the IR), which pldsim lacks
        code = (
            "import pypto.language as pl\n"
            "import torch\n"
            "from pypto.backend import BackendType, get_backend_type, set_backend_type\n"
            "from pypto.runtime import RunConfig\n"
            "set_backend_type(BackendType.Ascend910B)\n"
            "set_backend_type(BackendType.Ascend910B)\n"
            "try:\n"
            "    set_backend_type(BackendType.Ascend950)\n"
            "except ValueError as e:\n"
            "    print('ValueError', e)\n"
            "print(get_backend_type().name)\n"
            "@pl.jit\n"
            "def double(x: pl.Tensor[[1, 64], pl.FP32], y: pl.InOut[pl.Tensor[[1, 64], pl.FP32]]):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP, name_hint='double'):\n"
            "        pl.store(pl.mul(pl.load(x, [0, 0], [1, 64]), 2.0), [0, 0], y)\n"
            "    return y\n"
            "print(double._param_names())\n"
            "compiled = double.compile(torch.ones(1, 64), torch.zeros(1, 64), config=RunConfig())\n"
            "print(hasattr(compiled, 'program'))\n"
            "print(compiled.program)\n"
        )
        r = run_code("ir", code)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(
            r.stdout.splitlines(),
            [
                "ValueError set_backend_type: the backend type is already Ascend910B; it cannot become Ascend950",
                "Ascend910B",
                "['x', 'y']",  # upstream's JIT function's _param_names (decode_fwd_mtp.py orders its specs by it)
                "False",
            ],
        )
        lines = refusal_lines(r)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"ir\.py:20: .*\.program: the compiled IR is not available on pldsim")

    def test_asking_for_the_pto_isa_headers_is_refused_in_one_line(self):
        # qwen3_14b/paged_attention_cce.py builds external CCE kernels
        code = "from pypto.runtime import pto_isa_include_dir\nprint('imported')\nINC = pto_isa_include_dir()\n"
        r = run_code("cce", code)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["imported"])
        lines = refusal_lines(r)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"cce\.py:3: pypto\.runtime\.pto_isa_include_dir: the PTO-ISA headers serve external CCE kernels")


class Benchmark(unittest.TestCase):
    def test_statistics_are_the_simulated_times(self):
        r = run("benchmark")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line and not line.startswith("BenchmarkStats"))
        # warmup + rounds runs, each one simulation (one summary line each)
        self.assertEqual(len(re.findall(r"\[pldsim\] ", r.stdout + r.stderr)), 4)
        self.assertEqual(out["rounds"], "3 warmup 1")
        run_us = summary_time_us(r.stdout + r.stderr)
        union = eval(out["union"])  # noqa: S307 - our own program's list
        self.assertEqual(union, [run_us] * 3, "the union window is the run, as the summary gives it")
        device = eval(out["device_wall_us"])  # noqa: S307
        host = eval(out["host_wall_us"])  # noqa: S307
        self.assertEqual(len(set(device)), 1, "every run is the same simulation")
        self.assertTrue(0 < device[0] < host[0] <= run_us, (device, host, run_us))
        self.assertEqual(out["effective"], out["device_wall_us"])
        self.assertEqual(out["tasks"], "{(0, 0): 'chip', (1, 0): 'chip'}")
        self.assertEqual(out["all_zero_device"], "False")
        self.assertEqual(float(out["last_run_time_us"]), run_us)

    def test_bad_arguments_raise_as_upstream(self):
        r = run("bench-args")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("rounds: ValueError: rounds must be positive, got 0", r.stdout)
        self.assertIn("warmup: ValueError: warmup must be non-negative, got -1", r.stdout)
        self.assertIn("platform: ValueError: benchmark(): platform= and device_id= do not apply", r.stdout)
        self.assertIn("device_id: ValueError: benchmark(): platform= and device_id= do not apply", r.stdout)
        self.assertIn("program: TypeError: benchmark(): expects a compiled program", r.stdout)


class RunConfigFormerNames(unittest.TestCase):
    def test_enable_l2_swimlane_is_enable_chip_swimlane(self):
        code = (
            "import warnings\n"
            "from pypto.runtime import RunConfig\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    c = RunConfig(platform='a5sim', enable_l2_swimlane=True)\n"
            "print(c.enable_chip_swimlane, c.enable_l2_swimlane, c.backend_type.name, [x.category.__name__ for x in w])\n"
            "try:\n"
            "    RunConfig(enable_l2_swimlane=1, enable_chip_swimlane=1)\n"
            "except ValueError as e:\n"
            "    print('ValueError', e)\n"
        )
        r = run_code("rc", code)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "True True Ascend950 ['DeprecationWarning']")
        self.assertTrue(lines[1].startswith("ValueError RunConfig got both enable_chip_swimlane and its former name"), lines[1])


if __name__ == "__main__":
    unittest.main()
