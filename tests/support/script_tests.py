"""script_tests: the runner of the test scripts under tests/scripts/ (each a
module of test_* functions, run by make check through its .sh wrapper)."""

import sys
import traceback
from typing import Any, Dict


def run_all(names: Dict[str, Any]) -> int:
    """Runs every test_* function among `names` (a module's globals()),
    reports each as PASS or FAIL with its traceback, then the count;
    returns the exit status: 1 if any failed."""
    tests = [(k, v) for k, v in names.items() if k.startswith("test_")]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print("PASS: %s" % name)
        except Exception:  # report every failure, then the count
            failed += 1
            print("FAIL: %s" % name)
            traceback.print_exc(file=sys.stdout)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0
