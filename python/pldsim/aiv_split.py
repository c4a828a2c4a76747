"""The AIV split of a mixed kernel: ``for aiv_id in pl.split_aiv(n,
mode=pl.SplitMode.UP_DOWN):`` and ``pl.aiv_shard(acc)``, and the
optimization entries ``pl.split(mode)`` and ``pl.cross_core_slot(slot_num=)``.

On hardware a cluster's cube core feeds its two vector cores (the AIV
lanes), and a split region's body runs once per lane, in parallel, each on
its half of the cube's result (UP_DOWN: rows, LEFT_RIGHT: columns) or, with
mode NONE, on work the body divides by ``aiv_id``.  pldsim runs the lanes
one after the other in the kernel, so a region's vector time is the sum of
its lanes', not the longest: an upper bound, by up to the lane count.
``pl.aiv_shard`` crosses the cube-to-vector boundary: the lane's part of
the accumulator, drained into UB (the cube's move, charged for the bytes
of that part).  ``pl.aic_gather`` (vector to cube) is not supported."""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import Any, Iterator

from . import cube, tensor_ops
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import TensorValue


class SplitMode(enum.Enum):
    """How a split region divides the cube's result between the lanes."""

    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


@dataclass(frozen=True)
class Split:
    """``optimizations=[pl.split(mode)]``: a hint for upstream's compiler."""

    mode: SplitMode
    slot_num: int | None = None


@dataclass(frozen=True)
class CrossCoreSlot:
    """``optimizations=[pl.cross_core_slot(slot_num=N)]``: the depth of the
    cube-to-vector ring; pldsim's eager kernel has no ring to size."""

    slot_num: int


def _slot_num(op: str, n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise UsageValueError(op, f"slot_num must be a positive integer, got {n!r}")
    return n


def split(mode: Any, *, slot_num: Any = None) -> Split:
    """``pl.split(mode)``."""
    if not isinstance(mode, SplitMode):
        raise UsageTypeError("pl.split", f"mode must be a pl.SplitMode, got {mode!r}")
    return Split(mode, None if slot_num is None else _slot_num("pl.split", slot_num))


def cross_core_slot(*, slot_num: Any) -> CrossCoreSlot:
    """``pl.cross_core_slot(slot_num=N)``."""
    return CrossCoreSlot(_slot_num("pl.cross_core_slot", slot_num))


_lane = threading.local()  # the split region this thread (a rank) is in: (mode, lane, lanes)


def split_aiv(n: Any, *, mode: Any) -> Iterator[int]:
    """``for aiv_id in pl.split_aiv(n, mode=...)``: the body once per lane."""
    op = "pl.split_aiv"
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UsageValueError(op, f"the lane count must be a positive integer, got {n!r}")
    if not isinstance(mode, SplitMode):
        raise UsageTypeError(op, f"mode must be a pl.SplitMode, got {mode!r}")
    if getattr(_lane, "region", None) is not None:
        raise UsageValueError(op, "split regions do not nest")
    return _lanes(n, mode)


def _lanes(n: int, mode: SplitMode) -> Iterator[int]:
    try:
        for lane in range(n):
            _lane.region = (mode, lane, n)
            yield lane
    finally:
        _lane.region = None


def aiv_shard(x: Any) -> TensorValue:
    """``pl.aiv_shard(acc)``: this lane's part of a cube-produced value (all
    of it with mode NONE), in UB."""
    op = "pl.aiv_shard"
    region = getattr(_lane, "region", None)
    if region is None:
        raise UsageValueError(op, "pl.aiv_shard belongs inside a `for aiv_id in pl.split_aiv(...)` region")
    mode, lane, lanes = region
    if isinstance(x, TensorValue):
        t = x._value
    elif tensor_ops.is_tensor(x):
        t = tensor_ops.operand_tile(x, op, "the operand")
    else:
        raise UsageTypeError(op, f"the operand must be a tensor or a computed value, got {type(x).__name__}")
    shape, valid = list(t.shape), cube.valid_of(t)
    if len(shape) != 2:
        raise UsageValueError(op, f"the operand must be 2D, got {shape}")
    if mode is SplitMode.NONE:
        part = [slice(None), slice(None)]
    else:
        axis = 0 if mode is SplitMode.UP_DOWN else 1
        if shape[axis] % lanes:
            raise UsageValueError(op, f"{mode.name} splits dimension {axis} ({shape[axis]}) into {lanes} lanes: it must divide evenly")
        size = shape[axis] // lanes
        lo = lane * size
        part = [slice(None), slice(None)]
        part[axis] = slice(lo, lo + size)
        shape[axis] = size
        valid[axis] = max(0, min(size, valid[axis] - lo))
    data = cube.values_of(op, t, "the operand")
    if data is not None:
        data = data[tuple(part)].clone()
    if isinstance(t, cube.CubeTile):
        return TensorValue(cube.move(cube.CubeTile(data, t.dtype, t.memory, shape, valid), cube.MemorySpace.Vec))
    return TensorValue(cube.vec_tile(op, t.dtype, shape, valid, data))


def aic_gather(x: Any) -> Any:
    """``pl.aic_gather``: not supported."""
    raise UnsupportedError("pl.aic_gather", "the vector-to-cube crossing (pl.aic_gather) is not supported by pldsim")
