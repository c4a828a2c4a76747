"""--timing-only: no values but the integers that steer, the same simulated times.

A timing-only run skips the loads' copies, the vector math and the cube's
products (torch, in Python) and the stores into host tensors, for every
dtype but the 32- and 64-bit integers (routes, counts); the charges
are those of a run with data, so its times, bytes and trace must be the
same to the bit.  A read of a value gives 0 and says so once; pypto-lib's
golden runner (a stand-in here, programs/golden/) computes and checks
nothing."""

from __future__ import annotations

import os
import re
import unittest

import support

PROGRAM = support.program("timing_only.py")
# the run's line: its time, its bytes, what it says after them (up to the
# trust shares it ends with)
SUMMARY = re.compile(r"^\[pldsim\] backend=sim .* time=([0-9.]+ us) moved=(\S+ \S+)(.*?)(?: trust: .*)?$", re.M)


def summary(out: str) -> tuple[str, str, str]:
    m = SUMMARY.search(out)
    assert m, out
    return m.group(1), m.group(2), m.group(3).strip()


class TimingOnly(unittest.TestCase):
    def test_a_layer_has_the_same_time_bytes_and_trace_with_and_without_values(self):
        with support.scratch() as d:
            runs = {}
            for flags in ((), ("--timing-only",)):
                trace = os.path.join(d, f"trace{len(flags)}.txt")
                runs[flags] = (support.pldsim_py("--trace", trace, *flags, PROGRAM, "layer"), trace)
            (data, data_trace), (timed, timed_trace) = runs[()], runs[("--timing-only",)]
            self.assertEqual(data.returncode, 0, data.stderr)
            self.assertEqual(timed.returncode, 0, timed.stderr)
            self.assertEqual(data.stdout.splitlines()[-1], "OK")
            # the store into y was charged, not done: y keeps its -7s
            self.assertEqual(timed.stdout.splitlines()[-1], "UNTOUCHED")
            t_data, t_timed = summary(data.stdout), summary(timed.stdout)
            self.assertEqual(t_data[:2], t_timed[:2])
            self.assertEqual(t_data[2], "")
            self.assertEqual(t_timed[2], "(timing only: no values)")
            with open(data_trace) as a, open(timed_trace) as b:
                self.assertEqual(a.read(), b.read())

    def test_the_environment_variable_is_the_flag(self):
        r = support.pldsim_py(PROGRAM, "layer", env={"PLD_TIMING_ONLY": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "UNTOUCHED")
        bad = support.pldsim_py(PROGRAM, "layer", env={"PLD_TIMING_ONLY": "maybe"})
        self.assertEqual(bad.returncode, 2)
        self.assertIn("PLD_TIMING_ONLY", bad.stderr)

    def test_reading_a_computed_value_gives_0_and_says_so_once(self):
        # both ranks read: one warning, at the program's line
        r = support.pldsim_py("--timing-only", PROGRAM, "read")
        self.assertEqual(r.returncode, 0, r.stderr)
        line = support.fault_line(PROGRAM, "read")
        lines = [l for l in r.stderr.splitlines() if l]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].endswith(
            f"timing_only.py:{line}: rank 0: pl.read: warning: --timing-only keeps no values but INT32, INT64 and UINT32 "
            "ones computed from such integers, so this FP32 read gives 0; "
            "a run whose path depends on it may take another path than with data (said once for this line)"), lines[0])
        self.assertEqual(r.stdout.count("first score 0.0\n"), 2)
        # with data the same read gives the value, at the same time
        ok = support.pldsim_py(PROGRAM, "read")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertNotIn("first score 0.0\n", ok.stdout)
        self.assertEqual(summary(ok.stdout)[:2], summary(r.stdout)[:2])

    def test_each_line_that_reads_no_value_is_named_once(self):
        # issue 51, class 2: the one warning of a process named the first
        # read only, and the read that steers a route (an integer made from
        # scores) came later, unnamed
        r = support.pldsim_py("--timing-only", PROGRAM, "read-route")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l]
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertIn(f"timing_only.py:{support.fault_line(PROGRAM, 'read')}: rank 0: pl.read: warning: ", lines[0])
        self.assertIn("this FP32 read gives 0", lines[0])
        self.assertIn(f"timing_only.py:{support.fault_line(PROGRAM, 'route')}: rank 0: pl.read: warning: ", lines[1])
        self.assertIn("this INT32 read gives 0", lines[1])
        self.assertEqual(r.stdout.count("route 0\n"), 4)  # two ranks, twice each

    def test_integer_routes_and_counts_keep_their_values_and_the_path(self):
        # a MoE-like dispatch steers by INT32 ids copied through a scratch
        # tensor and by counts read back from an INT32 window: the mode
        # keeps those values, so it takes the data's path, to the bit
        with support.scratch() as d:
            runs = []
            for flags in ((), ("--timing-only",)):
                trace = os.path.join(d, f"route{len(flags)}.txt")
                runs.append((support.pldsim_py("--trace", trace, *flags, PROGRAM, "route"), trace))
            for r, _ in runs:
                self.assertEqual(r.returncode, 0, r.stderr)
                # rows 0..5 of each rank go to ranks 1..3; nothing reaches 0
                self.assertEqual(r.stdout.splitlines()[-1], "received [0, 8, 8, 8]")
                self.assertNotIn("warning", r.stderr)
            self.assertEqual(summary(runs[0][0].stdout)[:2], summary(runs[1][0].stdout)[:2])
            with open(runs[0][1]) as a, open(runs[1][1]) as b:
                self.assertEqual(a.read(), b.read())

    @unittest.skipIf(support.TORCH_BEFORE_2_1, "--shape-only needs torch >= 2.1 (./bootstrap installs it)")
    def test_shape_only_makes_no_weights_and_keeps_the_time(self):
        # the weights are a normal draw quantized per row, as pypto-lib's
        # generators make them; under --shape-only they carry only their
        # shapes (torch's meta device) and the run's time, bytes and trace
        # are those of --timing-only, which made them
        with support.scratch() as d:
            runs = []
            for flag in ("--timing-only", "--shape-only"):
                trace = os.path.join(d, f"weights{flag}.txt")
                runs.append((support.pldsim_py("--trace", trace, flag, PROGRAM, "weights"), trace))
            for r, _ in runs:
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "received [0, 8, 8, 8]")
                self.assertEqual(summary(r.stdout)[2], "(timing only: no values)")
            self.assertIn("weights on cpu\n", runs[0][0].stdout)
            self.assertIn("weights on meta\n", runs[1][0].stdout)
            self.assertEqual(summary(runs[0][0].stdout)[:2], summary(runs[1][0].stdout)[:2])
            with open(runs[0][1]) as a, open(runs[1][1]) as b:
                self.assertEqual(a.read(), b.read())
        # the variable is the flag
        env = support.pldsim_py(PROGRAM, "weights", env={"PLD_SHAPE_ONLY": "1"})
        self.assertEqual(env.returncode, 0, env.stderr)
        self.assertIn("weights on meta\n", env.stdout)

    def test_shape_only_refuses_to_read_a_value_it_never_made(self):
        r = support.pldsim_py("--shape-only", PROGRAM, "weights-read")
        if support.TORCH_BEFORE_2_1:  # it stops at once, saying why
            self.assertEqual(r.returncode, 2)
            self.assertRegex(r.stderr, r"^pldsim-py: --shape-only needs torch >= 2.1 .*; ./bootstrap installs torch 2.13 into .venv\n$")
            return
        self.assertEqual(r.returncode, 2, r.stderr)
        line = support.fault_line(PROGRAM, "shape-read")
        self.assertEqual(r.stderr.strip().splitlines(), [
            f"{PROGRAM}:{line}: --shape-only: this reads a value of a tensor that carries only its shape "
            "(made by torch.randn, torch.empty or from one); drop --shape-only to compute it"])
        self.assertNotIn("largest", r.stdout)

    def test_shape_only_zeros_are_shared_and_a_placeholder_may_exceed_the_machine(self):
        # pro/decode_fwd.py: its KV caches (torch.zeros) were copied by the
        # runner's share_memory_ until /dev/shm was full, and its routed
        # experts' placeholder (128 GB of INT8) could not be mapped
        if support.TORCH_BEFORE_2_1:
            self.skipTest("--shape-only needs torch 2.1 or later")
        with open("/proc/sys/vm/overcommit_memory") as f:
            if f.read().strip() == "2":
                self.skipTest("strict overcommit (vm.overcommit_memory=2) reserves every mapping")
        code = (
            "import torch\n"
            "z = torch.zeros(1 << 20, dtype=torch.bfloat16)\n"
            "print(z.is_shared(), z.share_memory_() is z, float(z[12345]))\n"
            "small = torch.zeros(16)\n"
            "print(small.is_shared())\n"
            "from pldsim.values import fork_shared_zeros\n"
            "big = fork_shared_zeros([256, 1024, 1024, 1024], torch.int8)\n"
            "print(big.shape[0], int(big[255, 1023, 1023, 1023]))\n"
        )
        with support.scratch() as d:
            path = os.path.join(d, "zeros.py")
            with open(path, "w") as f:
                f.write(code)
            r = support.pldsim_py("--shape-only", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["True True 0.0", "False", "256 0"])

    def test_all_to_all_v_reads_counts_held_in_a_window(self):
        # the host's builtin with its send counts in an INT32 window, one
        # lane and four: the counts are kept, so only the rows counted
        # move (issue 51: the mode once moved every block whole).  The
        # program's own check of the rows fails by construction.
        prog = support.program("a2av_blocks.py")
        # and in a buffer allocated by bytes, with no dtype of its own
        cases = [("1",), ("4",), ("1", "bytes"), ("4", "bytes")]

        def both(case):
            with support.scratch() as d:
                runs = []
                for flags in ((), ("--timing-only",)):
                    trace = os.path.join(d, f"trace{len(flags)}.txt")
                    r = support.pldsim_py("--trace", trace, *flags, prog, *case, "-d", "0,1,2")
                    with open(trace) as f:  # the reads of the counts are in both
                        runs.append((r, f.read()))
                return runs

        for case, ((data, data_trace), (timed, timed_trace)) in zip(cases, support.in_parallel(both, cases)):
            with self.subTest(case=case):
                self.assertEqual(data.returncode, 0, data.stderr)
                self.assertEqual(summary(data.stdout)[:2], summary(timed.stdout)[:2])
                self.assertEqual(summary(data.stdout)[1], "36.1 KiB")
                self.assertEqual(data_trace, timed_trace)

    def test_the_golden_runner_computes_and_checks_nothing(self):
        data = support.pldsim_py(PROGRAM, "golden", cwd=support.PROGRAMS)
        self.assertEqual(data.returncode, 0, data.stderr)
        self.assertIn("golden_fn ran", data.stdout)
        self.assertEqual(data.stdout.splitlines()[-1], "[RUN] PASS")
        timed = support.pldsim_py("--timing-only", PROGRAM, "golden", cwd=support.PROGRAMS)
        self.assertEqual(timed.returncode, 0, timed.stderr)
        self.assertNotIn("golden_fn ran", timed.stdout)
        self.assertIn("[pldsim] --timing-only: no golden computed, nothing validated", timed.stdout)
        self.assertEqual(timed.stdout.splitlines()[-1], "[RUN] PASS (validation skipped: no golden_fn or golden_data)")
        self.assertEqual(summary(data.stdout)[:2], summary(timed.stdout)[:2])

    def test_cube_products_and_tutorial_steps_keep_their_times(self):
        # the cube's closed-form programs check their results themselves,
        # so under --timing-only only their times are compared
        cases = [("py", support.program("cube_time.py"), "gemm", "FP16", "64", "128", "256"),
                 ("py", support.program("cube_time.py"), "overlap", "4"),
                 ("py", support.step("08_allreduce_mesh")), ("py", support.step("15_all_to_all")),
                 ("c", support.c_step("08_allreduce_mesh")), ("c", support.c_step("16_putting_it_together"))]

        def both(case):
            kind, path, *args = case
            if kind == "py":
                return support.pldsim_py(path, *args), support.pldsim_py("--timing-only", path, *args)
            return support.run([path, *args]), support.run([path, "--timing-only", *args])

        for case, (data, timed) in zip(cases, support.in_parallel(both, cases)):
            with self.subTest(case=case[1:]):
                self.assertEqual(data.returncode, 0, data.stderr)
                self.assertEqual(summary(data.stdout)[:2], summary(timed.stdout)[:2])
                if "tutorials" in case[1]:
                    # the steps know there is nothing to check
                    self.assertEqual(timed.returncode, 0, timed.stderr)
                    self.assertEqual(timed.stdout.splitlines()[-1], "OK (timing only: results not checked)")


if __name__ == "__main__":
    unittest.main()
