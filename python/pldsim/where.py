"""Where a call was written: the user's file and line, for libpld's
messages and trace lines (the C API's __FILE__/__LINE__)."""

import sys

from . import PACKAGE_DIRS


def caller() -> tuple[str, int]:
    """The file and line of the innermost frame outside pldsim's packages."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIRS):
        f = f.f_back
    if f is None:
        return ("<unknown>", 0)
    return (f.f_code.co_filename, f.f_lineno)
