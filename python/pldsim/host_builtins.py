"""Collectives called by the host orchestrator ("host builtins").

Upstream's compiler lowers a ``pld.tensor.barrier(signal)`` (or any other
builtin collective) written in a host orchestrator into a builtin kernel,
dispatched to every rank of the world at that point of the host's program.
pldsim does the same, eagerly: the call dispatches to each rank, in rank
order, a task whose kernel runs the collective on that rank's copy of the
windows.  Each rank runs its tasks in order, so the builtin comes after the
host's earlier dispatches to that rank and before its later ones, as
upstream's dispatch order makes it.

In a kernel the same calls run the collective directly."""

from __future__ import annotations

from typing import Any, Callable

import os

import _pldsim

from .levels import DEVICE, HOST, in_kernel, level, run_as
from .values import INT32


def run(op: str, file: str, line: int, call: Callable[[], Any]) -> None:
    """Runs `call` (one collective, with the user's file:line already in
    it) here in a kernel, or from the host as a builtin kernel on every
    rank."""
    if level() != HOST:
        call()
        return
    kernel = f"builtin {op}"
    for r in range(_pldsim.world_size(file, line)):
        _pldsim.dispatch(file, line, r, f"host builtin {op}", lambda: run_as(DEVICE, in_kernel, file, line, kernel, call))


# The signal an allreduce without one gets, per call site of the run:
# upstream's compiler makes one private [world_size, 1] INT32 window for
# each such call.  The self-clearing barrier leaves it zero for the next.
# program.py empties it before each run (window buffers die with theirs).
signals: dict[tuple[str, int], Any] = {}


def synthesized_signal(file: str, line: int) -> Any:
    """The private signal window of the allreduce at file:line."""
    from .values import DistributedTensor

    key = (file, line)
    if key not in signals:
        n = _pldsim.world_size(file, line)
        # whole cache lines, so that it shares none with the program's buffers
        size = -(-n * 4 // 64) * 64
        buf = _pldsim.alloc(file, line, size, None, 0, f"allreduce signal ({os.path.basename(file)}:{line})")
        signals[key] = DistributedTensor(_pldsim.window(file, line, buf, [n, 1], INT32.code))
    return signals[key]
