"""Errors under pldsim-py: each gives one message naming the .py line, the
rank and the op, a non-zero exit with pldsim's status, and never a hang or
a crash.  The faults are in programs/faults.py, marked `# FAULT name`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

import support

FAULTS = support.program("faults.py")
SHOWN = "tests/python/programs/faults.py"  # as the messages print it (run from the source tree)


def fault_line(name: str) -> int:
    return support.fault_line(FAULTS, name)


def run(mode: str, *opts: str):
    return support.pldsim_py(*opts, "tests/python/programs/faults.py", mode, cwd=support.SRC)


def alive(pid: int) -> bool:
    """Is process `pid` still running (not gone, not a zombie)?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def message_lines(stderr: str) -> list[str]:
    """The lines that are not a traceback, a warning or the summary."""
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback")) and ": warning: " not in l]


class Errors(unittest.TestCase):
    def assert_one_line(self, r, status: int, fault: str, rank: str, op: str, text: str):
        self.assertEqual(r.returncode, status, r.stderr)
        want = f"{SHOWN}:{fault_line(fault)}: {rank}: {op}: {text}"
        lines = message_lines(r.stderr)
        self.assertEqual(lines, [want], r.stderr)
        self.assertNotIn("OK", r.stdout.splitlines())

    def test_the_fault_free_program_runs(self):
        r = run("ok")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_a_killed_simulation_is_reported_not_hung(self):
        # each sim run has a process of its own; its death is the run's failure
        r = run("killed")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(
            message_lines(r.stderr),
            ["pldsim: the process simulating host function host was killed by signal 9 (SIGKILL); the run has no result"],
        )
        self.assertNotIn("OK", r.stdout.splitlines())

    def test_a_python_exception_in_a_kernel_is_reported_once_with_its_traceback(self):
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = run("python-error", "--backend", backend)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertEqual(r.stderr.count("Traceback (most recent call last):"), 1, r.stderr)
                self.assertIn("ZeroDivisionError: division by zero\n", r.stderr)
                line = fault_line("python-error")
                self.assertIn(f'File "{SHOWN}", line {line}, in kernel', r.stderr)
                self.assertNotIn("pldsim/", r.stderr)  # no frames of the front end
                last = message_lines(r.stderr)
                self.assertEqual(len(last), 2, r.stderr)  # the exception's own line, then pldsim's
                self.assertEqual(
                    last[1],
                    f"{SHOWN}:{line}: rank 1: kernel kernel: ZeroDivisionError: division by zero "
                    "(a Python exception; traceback above)",
                )
                self.assertIn("(failed)", r.stdout)

    def test_a_python_exception_on_the_host_names_the_host(self):
        r = run("host-error")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{SHOWN}:{fault_line('host-error')}: host: host orchestrator host: KeyError", r.stderr)

    def test_api_misuse_found_by_libpld_is_one_line(self):
        self.assert_one_line(run("misuse"), 3, "misuse", "rank 0", "pld.tile.remote_load", "peer 5 out of range [0, 2)")

    def test_upstreams_type_error_is_one_line(self):
        self.assert_one_line(
            run("bad-type"), 3, "bad-type", "rank 0", "pld.tensor.put",
            "expects a DistributedTensor dst (window-bound); got Tensor",
        )

    def test_upstreams_type_error_is_a_type_error_the_kernel_can_catch(self):
        r = run("caught")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("caught: pld.tensor.put expects a DistributedTensor dst (window-bound); got Tensor", r.stdout)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_an_argument_that_does_not_match_its_annotation_is_one_line(self):
        self.assert_one_line(
            run("bad-arg"), 3, "bad-arg", "host", "per_rank",
            "argument 'y' of per_rank is annotated pl.Tensor[[1, 64], pl.FP32] but got a torch.float32 "
            "tensor of shape [2, 1, 64]: 3 dimensions, not 2",
        )

    def test_the_host_may_not_call_a_kernel(self):
        r = run("host-kernel")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(message_lines(r.stderr)[0], rf"^{re.escape(SHOWN)}:{fault_line('host-kernel')}: host: kernel: the host orchestrator never calls an InCore kernel")

    def test_a_tensor_after_a_scalar_is_refused_as_upstream_does(self):
        r = run("scalar-first")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("TaskArgs: cannot add tensor after scalar", r.stderr)

    def test_a_deadlock_is_reported_with_the_python_lines(self):
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = run("deadlock", "--backend", backend)
                self.assertEqual(r.returncode, 4, r.stderr)
                self.assertEqual(r.stderr.count("pldsim: deadlock at"), 1, r.stderr)
                line = fault_line("deadlock")
                for rank in (0, 1):
                    self.assertIn(f"{SHOWN}:{line}: rank {rank}: waits for sig_buf[{rank}, 0] >= 1", r.stderr)
                # issue 28: the op as Python users write it, as in every other message
                self.assertIn("2 ranks blocked in pld.system.wait with no notify", r.stderr)

    def test_a_wait_timeout_ends_a_deadlock_on_time(self):
        r = run("deadlock", "--wait-timeout", "1ms")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("pldsim: wait timeout at t=", r.stderr)

    def test_a_race_is_reported_with_both_python_lines(self):
        r = run("race")
        self.assertEqual(r.returncode, 5, r.stderr)
        store, load = fault_line("race-store"), fault_line("race-load")
        # issue 28: both ops named as Python users write them, as in every other message
        self.assertIn(f"{SHOWN}:{store}: rank 1: race: pl.store wrote window 'data_buf'", r.stderr)
        self.assertIn(f"unordered with rank 0's pld.tile.remote_load (a read) at {SHOWN}:{load} at t=", r.stderr)
        self.assertNotRegex(r.stderr, r"\bpld?_[a-z_]+\b")
        warn = run("race", "--races", "warn")
        self.assertEqual(warn.returncode, 0, warn.stderr)
        self.assertIn(": race: ", warn.stderr)

    def test_a_load_that_does_not_fit_names_what_the_call_gave(self):
        # issue 41, class 6: a shape with a dim of 0 was refused as a
        # "valid_shape [1, 0]" the call never gave
        cases = [("load-past", "region at offsets [0, 32] with shape [1, 64] is out of bounds of source 'x' [1, 64] (dim 1: 32 + 64 > 64)"),
                 ("load-empty", "shape [1, 0] at offsets [0, 32] of source 'x' [1, 64]: dim 1 is 0; expected every dim >= 1")]
        for (mode, text), r in zip(cases, support.in_parallel(lambda c: run(c[0]), cases)):
            with self.subTest(mode=mode):
                self.assert_one_line(r, 3, mode, "rank 0", "pl.load", text)

    def test_a_fill_value_the_dtype_cannot_hold_is_refused(self):
        # issue 41, class 6: nan into an INT32 tile was torch's RuntimeError
        # (exit 1, a traceback); 300 into an INT8 tile wrapped silently
        cases = [("full-nan", "value nan does not fit in pl.INT32; expected a number from -2147483648 to 2147483647"),
                 ("full-range", "value 300 does not fit in pl.INT8; expected a number from -128 to 127")]
        for (mode, text), r in zip(cases, support.in_parallel(lambda c: run(c[0]), cases)):
            with self.subTest(mode=mode):
                self.assert_one_line(r, 3, mode, "rank 0", "pl.tile.full", text)

    def test_a_bad_device_list_is_refused_as_upstream_refuses_it(self):
        r = support.pldsim_py(support.step("05_remote_load_store"), "-d", "0,1,2")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.strip(), "05_remote_load_store needs exactly 2 devices, got [0, 1, 2]")
        r = support.pldsim_py(support.step("08_allreduce_mesh"), "-d", "0,0")
        self.assertEqual(r.returncode, 1)
        self.assertIn("ValueError: DistributedConfig.device_ids must be distinct, got [0, 0]", r.stderr)
        self.assertIn("Traceback", r.stderr)  # as python would show it
        self.assertNotIn("runpy", r.stderr)

    def test_a_long_device_list_is_quoted_short(self):
        # issue 41, class 6: 10 000 ids made a line of ~49 000 characters;
        # now the first 14 ids, '...' and the count, as libpld's -d does
        ids = ",".join(str(d) for d in range(10000))
        cases = [(support.program("device_lists.py"), "repeat"), (support.program("device_lists.py"), "negative"),
                 (support.step("05_remote_load_store"), "-d", ids), (support.step("05_remote_load_store"), "-d", ids + ",x")]
        runs = support.in_parallel(lambda c: support.pldsim_py(*c), cases)
        head = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, ...] (10001 ids)"
        wants = [f"ValueError: DistributedConfig.device_ids must be distinct, got {head}; 5 at index 10000",
                 f"ValueError: DistributedConfig.device_ids must be non-negative device indices, got {head}; -1 at index 10000",
                 "05_remote_load_store needs exactly 2 devices, got 10000 (0, 1, ...)",
                 "05_remote_load_store: error: -d/--device '0,1,2,3,4,5,6,7,8,9,10,11,12,13,...' (48891 characters): expected ids like 0,1,2,3"]
        for case, want, r in zip(cases, wants, runs):
            with self.subTest(case=case[1]):
                self.assertNotEqual(r.returncode, 0)
                self.assertEqual(r.stderr.splitlines()[-1], want)
                self.assertLess(max(len(l) for l in r.stderr.splitlines()), 200, r.stderr[:300])


class RunnerErrors(unittest.TestCase):
    def test_unknown_option(self):
        r = support.pldsim_py("--bogus", support.step("01_hello_rank"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("pldsim-py: unknown option '--bogus'", r.stderr)

    def test_bad_values_are_refused_by_libpld_before_the_program_starts(self):
        for opts, text in (
            (["--races", "sometimes"], "--races 'sometimes': expected off, warn or error"),
            (["--wait-timeout", "soon"], "--wait-timeout 'soon'"),
            (["--network-model", "XYZ"], "--network-model 'XYZ': expected CM02 or LV08"),
        ):
            with self.subTest(opts=opts):
                r = support.pldsim_py(*opts, support.step("01_hello_rank"))
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(text, r.stderr)
                self.assertEqual(r.stdout, "")

    def test_the_same_checks_apply_to_pld_variables(self):
        r = support.pldsim_py(support.step("01_hello_rank"), env={"PLD_RACES": "sometimes"})
        self.assertEqual(r.returncode, 2)
        # libpld reads the variable itself, and names it
        self.assertIn("PLD_RACES 'sometimes': expected off, warn or error", r.stderr)

    def test_the_mpi_backend_is_refused_with_a_reason(self):
        r = support.pldsim_py("--backend", "mpi", support.step("01_hello_rank"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("the mpi backend is for C programs", r.stderr)

    def test_no_program_or_a_missing_one(self):
        r = support.pldsim_py()
        self.assertEqual(r.returncode, 2)
        self.assertIn("no program given", r.stderr)
        r = support.pldsim_py("no/such/prog.py")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no/such/prog.py: no such program file", r.stderr)

    def test_a_directory_is_not_a_program(self):
        # issue 28: it said "no such program file"; python runs a directory's __main__.py
        with tempfile.TemporaryDirectory() as d:
            r = support.pldsim_py(d)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stderr.strip(), f"pldsim-py: {d}: is a directory, with no __main__.py; expected a program file (PROGRAM.py), or -m MODULE")
            with open(os.path.join(d, "__main__.py"), "w") as f:
                f.write("import pypto.language.distributed\nprint('main ran')\n")
            r = support.pldsim_py(d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "main ran")

    def test_a_platform_that_cannot_be_loaded(self):
        r = support.pldsim_py("--platform", "no-such-model", support.step("01_hello_rank"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no-such-model", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_sys_exit_in_a_run_exits_with_its_status(self):
        # issue 28: sys.exit(N) inside a run exited 1 as a Python exception
        shown = "tests/python/programs/exits.py"
        with open(support.program("exits.py")) as f:
            lines = {l.rstrip().split("# EXIT ")[1]: i for i, l in enumerate(f, 1) if "# EXIT " in l}
        cases = [("top", "7", 7, ()), ("host", "7", 7, ()), ("device", "42", 42, ()), ("kernel", "3", 3, ()),
                 ("kernel", "5", 5, ("--backend", "threads")), ("host", "none", 0, ()), ("device", "bad input", 1, ()),
                 # issue 41, class 6: status 0 and 3 (API misuse's) are the program's own too
                 ("kernel", "0", 0, ()), ("kernel", "0", 0, ("--backend", "threads")), ("host", "0", 0, ()),
                 ("device", "0", 0, ()), ("host", "3", 3, ())]
        runs = support.in_parallel(lambda c: support.pldsim_py(*c[3], shown, c[0], c[1], cwd=support.SRC), cases)
        for (where, arg, status, flags), r in zip(cases, runs):
            with self.subTest(where=where, arg=arg, flags=flags):
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                errors = [l for l in r.stderr.splitlines() if not l.startswith("[pldsim]")]
                if where == "top":
                    self.assertEqual(errors, [])
                    continue
                self.assertEqual(len(errors), 1, r.stderr)
                self.assertTrue(errors[0].startswith(f"{shown}:{lines[where]}: "), errors[0])
                code = None if arg == "none" else int(arg) if arg.isdigit() else arg  # as exits.py reads it
                self.assertIn(f": sys.exit({code!r}): the program ends with status {status}", errors[0])
                self.assertNotIn("OK", r.stdout.splitlines())  # the run ended there

    def test_an_interrupt_in_a_run_is_one_line_and_the_signal(self):
        # issue 41, class 1: a kernel's SIGINT on thread contexts ended in a
        # SimGrid abort; on coroutines the run "exited with status 1"
        # without naming the interrupt.  Now every level, context and
        # backend says it in one line and ends with the signal.
        said = {"SIGINT": "pldsim: interrupted (SIGINT); the run has no result",
                "SIGTERM": "pldsim: terminated (SIGTERM); the run has no result"}
        cases = [("kernel", "SIGINT", {}, ()), ("kernel", "SIGINT", {"PLDSIM_PY_CONTEXTS": "thread"}, ()),
                 ("kernel", "SIGTERM", {}, ("--backend", "threads")), ("host", "SIGTERM", {}, ()),
                 ("device", "SIGINT", {"PLDSIM_PY_CONTEXTS": "thread"}, ())]
        runs = support.in_parallel(
            lambda c: support.pldsim_py(*c[3], "tests/python/programs/exits.py", c[0], c[1], cwd=support.SRC,
                                        env=c[2]), cases)
        for (where, sig, env, flags), r in zip(cases, runs):
            with self.subTest(where=where, sig=sig, env=env, flags=flags):
                # killed by the signal: a shell shows 130 or 143
                self.assertEqual(r.returncode, -getattr(signal, sig), r.stderr)
                lines = [l for l in r.stderr.splitlines() if not l.startswith("[pldsim]")]
                self.assertEqual(lines, [said[sig]])

    def test_a_signal_to_pldsim_py_alone_ends_its_simulation_too(self):
        # issue 51, class 1: SIGINT, SIGTERM or SIGKILL sent to pldsim-py's
        # own process (a supervisor's, timeout(1)'s) ended it at once and
        # left the child simulating, adopted by init.  Now the child dies
        # with it, and the status is the signal's, with one line.
        said = {signal.SIGINT: "pldsim: interrupted (SIGINT); the run has no result",
                signal.SIGTERM: "pldsim: terminated (SIGTERM); the run has no result",
                signal.SIGHUP: "pldsim: hung up (SIGHUP); the run has no result"}

        def one(sig: int) -> tuple:
            with tempfile.TemporaryDirectory() as d:
                ready = os.path.join(d, "ready")
                env = {k: v for k, v in os.environ.items() if not k.startswith("PLD_")}
                env["EXITS_READY"] = ready
                p = subprocess.Popen([support.RUNNER, "tests/python/programs/exits.py", "kernel", "wait"],
                                     cwd=support.SRC, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
                deadline = time.monotonic() + 60
                while not os.path.exists(ready) and p.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                with open(ready) as f:
                    child = int(f.read())
                os.kill(p.pid, sig)  # the parent alone, not its group
                try:
                    out, err = p.communicate(timeout=30)
                finally:
                    if p.poll() is None:
                        os.killpg(p.pid, signal.SIGKILL)
                # the child is gone (a zombie where init reaps nothing)
                gone = time.monotonic() + 10
                while alive(child) and time.monotonic() < gone:
                    time.sleep(0.05)
                return p.returncode, err, alive(child)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
            with self.subTest(sig=signal.Signals(sig).name):
                rc, err, child_alive = one(sig)
                self.assertEqual(rc, -sig, err)
                self.assertFalse(child_alive, "the simulating child outlived pldsim-py")
                lines = [l for l in err.splitlines() if not l.startswith("[pldsim]")]
                self.assertEqual(lines, [said[sig]] if sig in said else [])

    def test_a_signal_handler_installed_in_a_run_is_refused_alike(self):
        # issue 41, class 1: signal.signal in a kernel worked on coroutines
        # and raised on thread contexts, blamed on signal.py's own line
        shown = "tests/python/programs/exits.py"
        with open(support.program("exits.py")) as f:
            line = next(i for i, l in enumerate(f, 1) if "# HANDLER" in l)
        cases = [({}, ()), ({"PLDSIM_PY_CONTEXTS": "thread"}, ()), ({}, ("--backend", "threads"))]
        runs = support.in_parallel(
            lambda c: support.pldsim_py(*c[1], shown, "kernel", "handler", cwd=support.SRC, env=c[0]), cases)
        for (env, flags), r in zip(cases, runs):
            with self.subTest(env=env, flags=flags):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = [l for l in r.stderr.splitlines() if not l.startswith("[pldsim]")]
                self.assertTrue(lines, r.stderr)
                for l in lines:  # one per rank: both kernels try it
                    self.assertRegex(l, rf"^{re.escape(shown)}:{line}: rank [01]: signal.signal: cannot install a "
                                        "handler for signal 10 during a run")


if __name__ == "__main__":
    unittest.main()
