"""Collectives called by the host orchestrator ("host builtins").

Upstream's compiler lowers a ``pld.tensor.barrier(signal)`` (or any other
builtin collective) written in a host orchestrator into a builtin kernel,
dispatched to every rank of the world at that point of the host's program.
libpld does that for C and Python alike (src/collectives/host_builtin.c);
what is left here is the host form's private signal, which an allreduce
without one gets."""

from __future__ import annotations

import os
from typing import Any

import _pldsim

from .values import INT32, DistributedTensor

# The signal an allreduce without one gets, per call site of the run:
# upstream's compiler makes one private [world_size, 1] INT32 window for
# each such call.  The self-clearing barrier leaves it zero for the next.
# program.py empties it before each run (window buffers die with theirs).
signals: dict[tuple[str, int, Any], Any] = {}


def synthesized_signal(file: str, line: int, target: Any = None, core_num: int = 1) -> Any:
    """The private signal window of the allreduce at file:line:
    [n, core_num] INT32 (one lane per core) in the comm domain of `target`
    (n ranks; the world by default), as upstream's signal inherits its data
    window's devices."""
    group = target._view.group if isinstance(target, DistributedTensor) else None
    key = (file, line, group)
    if key not in signals:
        n = len(group) if group is not None else _pldsim.world_size(file, line)
        # whole cache lines, so that it shares none with the program's buffers
        size = -(-n * core_num * 4 // 64) * 64
        buf = _pldsim.alloc(file, line, size, None, 0, f"allreduce signal ({os.path.basename(file)}:{line})", group)
        signals[key] = DistributedTensor(_pldsim.window(file, line, buf, [n, core_num], INT32.code))
    return signals[key]
