"""Where a call was written: the user's file and line, for libpld's
messages and trace lines (the C API's __FILE__/__LINE__)."""

import sys

from . import PACKAGE_DIRS


#: Where the program called the compiled program that is running: the
#: line to blame when no frame of the program's own is on the stack (the
#: host orchestrator's arguments are checked inside the run, called by
#: pldsim).  Set by program._run for the length of a run.
outer: tuple[str, int] | None = None


def caller() -> tuple[str, int]:
    """The file and line of the innermost frame outside pldsim's packages
    (or of the call that started the run, when there is none)."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIRS):
        f = f.f_back
    if f is None:
        return outer or ("<unknown>", 0)
    return (f.f_code.co_filename, f.f_lineno)


def defining_scope() -> dict:
    """The names of the functions whose bodies the calling definition is
    in (innermost wins), outside pldsim's packages, as they are now: the
    names an annotation that is a string (``from __future__ import
    annotations``) may use without being a closure variable, such as a
    shape computed in a program factory.  Module-level names are the
    function's globals, and not in it."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIRS):
        f = f.f_back
    frames = []
    while f is not None and f.f_code.co_name != "<module>":
        frames.append(f)
        f = f.f_back
    env: dict = {}
    for fr in reversed(frames):
        env.update(fr.f_locals)
    return env
