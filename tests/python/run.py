"""Runs the Python front end's tests (tests/python/test_*.py) and ends with
the line Check's suites print, so that CI's totals count them:
    100%: Checks: N, Failures: F, Errors: E"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
n, f, e = result.testsRun, len(result.failures), len(result.errors)
passed = n - f - e
print(f"{100 * passed // n if n else 0}%: Checks: {n}, Failures: {f}, Errors: {e}")
sys.exit(0 if result.wasSuccessful() and n else 1)
