"""Errors of the front end, and how a Python exception raised inside a rank
is reported.

Inside a run, an error that upstream's compiler or runtime would raise (a
bad argument type, a signature mismatch) is raised as a ``UsageError``: it
is still the ``TypeError``/``ValueError`` upstream raises, and it carries
the user's file and line.  If nothing catches it, the rank reports it as
libpld reports its own errors, in one line::

    prog.py:42: rank 1: pld.tensor.put: expects a DistributedTensor dst; got Tensor

Any other exception is the program's own bug: it is reported once with its
traceback (pldsim's frames left out) and a last line naming the rank."""

from __future__ import annotations

import traceback
from typing import Any

import _pldsim

from . import PACKAGE_DIRS
from .where import caller

#: code object -> "kernel add_rank": what an error report calls the
#: function whose frame raised (levels.py fills it in as the functions are
#: decorated and rewritten)
LABELS: dict[Any, str] = {}


class UsageError(Exception):
    """An error in how the program uses the API, found by the front end."""

    def __init__(self, op: str, message: str, where: tuple[str, int] | None = None):
        super().__init__(message)
        self.op = op
        self.file, self.line = where if where is not None else caller()


class UsageTypeError(UsageError, TypeError):
    """A UsageError that upstream raises as a TypeError."""


class UsageValueError(UsageError, ValueError):
    """A UsageError that upstream raises as a ValueError."""


class UnsupportedError(UsageError, NotImplementedError):
    """Upstream has it; pldsim does not (yet)."""


class RunError(RuntimeError):
    """A pldsim run failed.  Its message (or deadlock report) has been
    printed already; ``exit_code`` is the status pldsim gives it: 1 for a
    Python exception, 2 for a usage or platform error, 3 for API misuse, 4
    for a deadlock, 5 for a data race."""

    def __init__(self, message: str, rc: int, exit_code: int):
        super().__init__(message)
        self.rc = rc
        self.exit_code = exit_code


def _user_frames(tb) -> list[traceback.FrameSummary]:
    frames = traceback.extract_tb(tb)
    mine = [f for f in frames if not f.filename.startswith(PACKAGE_DIRS)]
    return mine or list(frames)


def _innermost_label(tb, who: str) -> str:
    """The pldsim function (a kernel, a per-device function) whose frame is
    innermost in the traceback, or `who`."""
    label = who
    while tb is not None:
        label = LABELS.get(tb.tb_frame.f_code, label)
        tb = tb.tb_next
    return label


#: The status a program asked for with sys.exit() inside a run, the run's
#: first error (program._run raises SystemExit with it once the run is
#: over, so that pldsim-py exits with it as python does), or None.
exit_request: int | None = None


def _exit(exc: SystemExit, who: str) -> tuple[str | None, str, int, str, str, bool]:
    """sys.exit(code) in a rank or the host: the run ends there, and the
    program with `code`'s status (None 0, an int itself, else 1, as python
    exits), once; the line says so, since the other ranks stop mid-run."""
    global exit_request
    code = exc.code
    status = 0 if code is None else code if isinstance(code, int) else 1
    if exit_request is None and not _pldsim.aborting():
        exit_request = status
    frames = _user_frames(exc.__traceback__)
    file, line = (frames[-1].filename, frames[-1].lineno or 0) if frames else ("<python>", 0)
    return (None, file, line, _innermost_label(exc.__traceback__, who), f"sys.exit({code!r}): the program ends with status {status}", True)


def describe(exc: BaseException, who: str) -> tuple[str | None, str, int, str, str, bool]:
    """For the C layer: (preface, file, line, op, message, is_python_error)
    of an exception that `who` (a rank's function) raised."""
    if isinstance(exc, SystemExit):
        return _exit(exc, who)
    if isinstance(exc, UsageError):
        message = str(exc)
        if message.startswith(exc.op + " "):  # upstream's messages name the op; the line does
            message = message[len(exc.op) + 1 :]
        return (None, exc.file, exc.line, exc.op, message, False)
    frames = _user_frames(exc.__traceback__)
    text = "".join(traceback.format_list(frames))
    kind = type(exc).__name__
    detail = str(exc)
    summary = f"{kind}: {detail}" if detail else kind
    preface = "Traceback (most recent call last):\n" + text + summary + "\n"
    file, line = (frames[-1].filename, frames[-1].lineno or 0) if frames else ("<python>", 0)
    label = _innermost_label(exc.__traceback__, who)
    return (preface, file, line, label, f"{summary} (a Python exception; traceback above)", True)
