"""`pldsim-py -m pytest` and the plugin that gives upstream's system tests
their fixtures, options and marker (python/pldsim/pytest_plugin.py), on
tests written in upstream's style (programs/pytest_cases.py)."""

from __future__ import annotations

import importlib.util
import re
import unittest

import support

CASES = "tests/python/programs/pytest_cases.py"


def pytest_run(*args: str):
    return support.pldsim_py("-m", "pytest", "-p", "no:cacheprovider", "-rA", *args, cwd=support.SRC)


def outcomes(stdout: str) -> dict[str, str]:
    """test name -> PASSED, FAILED or SKIPPED, from pytest's -rA summary."""
    return {m.group(2): m.group(1) for m in re.finditer(r"^(PASSED|FAILED|SKIPPED|ERROR) \S*?::(\w+)", stdout, re.M)}


@unittest.skipIf(importlib.util.find_spec("pytest") is None, "pytest is not installed (apt-get install python3-pytest)")
class PytestPlugin(unittest.TestCase):
    def test_upstream_style_tests_run_with_their_fixtures(self):
        r = pytest_run("--platform", "a2a3sim", "--device", "0-3", CASES)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # the deliberate failure
        self.assertEqual(
            outcomes(r.stdout),
            {
                "test_the_fixtures": "PASSED",
                "test_one_run": "PASSED",
                "test_runs_in_a_loop": "PASSED",
                "test_marked_for_a2a3_hardware": "PASSED",
                "test_a_wrong_result_fails": "FAILED",
            },
            r.stdout,
        )
        self.assertIn("platform=a2a3sim devices=[0, 1, 2, 3]", r.stdout)
        self.assertIn("a2a3-only test ran on a2a3sim", r.stdout)  # a2a3 hardware is pldsim's a2a3 model
        self.assertIn("1 deselected", r.stdout)  # the a5 test
        self.assertIn("deliberately wrong: y is x shifted", r.stdout)
        # three runs of one compiled program in one test, each in its own process
        self.assertEqual(r.stdout.count("[pldsim] backend=sim platform=a2a3sim P=4"), 5, r.stdout)

    def test_the_platform_allowlist_selects_the_marked_tests(self):
        r = pytest_run("--platform", "a5", "--device", "0-3", CASES, "-k", "marked")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(outcomes(r.stdout), {"test_marked_for_a5": "PASSED"}, r.stdout)

    def test_too_few_devices_skip_as_upstream_does(self):
        r = pytest_run(CASES, "-k", "one_run")  # upstream's default --device is 0
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"SKIPPED \[1\] \S*pytest_cases.py:\d+: needs 4 devices, got \[0\]")
        self.assertIn("1 skipped, 5 deselected", r.stdout)

    def test_bad_options_are_one_usage_error(self):
        raw = ",".join(str(d) for d in range(4000)) + ",x"
        for args, text in (
            (["--device", "3-1"], "--device '3-1': '3-1' must be an id >= 0 or a non-decreasing range"),
            (["--device", "zero"], "--device 'zero': 'zero' is not a device id or a range such as 0-7"),
            # issue 41, class 6: a 4000-id list was quoted whole
            (["--device", raw], f"--device '0,1,2,3,4,5,6,7,8,9,10,11,12,13,...' ({len(raw)} characters): 'x' is not a device id"),
            # and a huge range was built whole before anything looked at it
            (["--device", "0-99999999999"], "--device '0-99999999999': id 99999999999 is too large; expected ids 0 to 1048575"),
            (["--device", "0-99999"], "--device '0-99999': more than 16384 devices; expected at most 16384"),
            (["--platform", "x86"], "--platform 'x86': expected a comma-separated list of a2a3sim, a2a3, a5sim, a5"),
            (["--codegen-only"], "--codegen-only: pldsim compiles nothing"),
        ):
            with self.subTest(args=args):
                r = pytest_run(*args, CASES)
                self.assertEqual(r.returncode, 4, r.stdout + r.stderr)  # pytest's usage-error status
                self.assertIn(text, r.stderr)
                self.assertNotIn("Traceback", r.stderr)


class RunModule(unittest.TestCase):
    def test_a_module_runs_as_python_m_runs_it(self):
        r = support.pldsim_py("-m", "json.tool", "--compact", input_text='{"a": [1, 2]}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, '{"a":[1,2]}\n')

    def test_a_missing_module_or_name_is_one_message(self):
        r = support.pldsim_py("-m", "no_such_module_here")
        self.assertEqual(r.returncode, 2)
        self.assertIn("pldsim-py: no module named no_such_module_here", r.stderr)
        r = support.pldsim_py("-m")
        self.assertEqual(r.returncode, 2)
        self.assertIn("pldsim-py: -m needs a module name", r.stderr)


if __name__ == "__main__":
    unittest.main()
