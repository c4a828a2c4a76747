"""What the running code is, per thread: its level (the host orchestrator,
a per-device function, a kernel) and, in a kernel, which kernel and core
unit.  Every rank (and the host) runs on a thread of its own, on sim and
on threads alike.

This is the bottom of the three levels: levels.py (the functions and
their calls), scopes.py (``pl.at`` task bodies) and the ops all read or
enter it, and it imports none of them, so that they need not import one
another to share it."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import _pldsim

from . import dfx

HOST, DEVICE, KERNEL = "host", "per-device function", "kernel"

#: what a kernel's core is: "mixed" (an InCore function, whose cube and
#: vector parts upstream's compiler splits), "cube" (an AIC function) or
#: "vector" (an AIV function)
MIXED, CUBE, VECTOR = "mixed", "cube", "vector"

_state = threading.local()


class KernelContext:
    """The kernel running on this thread: its name, its unit, and its
    block of an SPMD launch (pl.tile.get_block_idx / get_block_num)."""

    __slots__ = ("name", "unit", "block_idx", "block_num", "serial", "carrier")

    def __init__(self, name: str, unit: str, block_idx: int, block_num: int, serial: int):
        self.name, self.unit, self.block_idx, self.block_num, self.serial = name, unit, block_idx, block_num, serial
        # a pl.spmd body: a kernel it calls is the block's own kernel, not a nested one
        self.carrier = False


_serials = itertools.count(1)


def kernel() -> KernelContext | None:
    """The running kernel of this thread, or None outside one."""
    return getattr(_state, "kernel", None)


def launch_as(unit: str, block_idx: int = 0, block_num: int = 1) -> None:
    """The next kernel this thread runs (in_kernel) is of `unit`, and is
    block `block_idx` of `block_num`."""
    _state.launch = (unit, block_idx, block_num)


def level() -> str | None:
    """HOST, DEVICE or KERNEL while pldsim runs this thread's code; None
    outside a run."""
    return getattr(_state, "level", None)


def run_as(lvl: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Runs fn at level `lvl` on the calling thread (a rank or the host)."""
    prev = level()
    _state.level = lvl
    try:
        return fn(*args, **kwargs)
    finally:
        _state.level = prev


def in_kernel(file: str, line: int, name: str, body: Any, *args: Any, **kwargs: Any) -> Any:
    """Runs body(*args) as kernel `name` (a fresh UB, freed after), of
    the unit and block launch_as gave (by default a mixed kernel, block 0
    of 1)."""
    unit, block_idx, block_num = getattr(_state, "launch", None) or (MIXED, 0, 1)
    _state.launch = None
    outer = kernel()
    _state.kernel = KernelContext(name, unit, block_idx, block_num, next(_serials))
    start = _pldsim.time()
    try:
        _pldsim.incore_enter(file, line, name)
        try:
            result = run_as(KERNEL, body, *args, **kwargs)
        except _pldsim.Abort:
            raise  # the run is ending: nothing to free
        except BaseException:
            # a Python exception: free the kernel's UB, so that a caller that
            # catches it can go on, but without the checks of a normal end (a
            # put_async in flight): the exception is the error to report, not
            # what it left unfinished
            if not _pldsim.aborting():
                _pldsim.incore_unwind()
            raise
        _pldsim.incore_exit()
    finally:
        _state.kernel = outer
    dfx.kernel_done(name, file, line, start)
    return result
