"""``pl.create_l1`` and ``pl.gather_row``: a matmul operand built row by row
in the cube's L1 (Mat) from rows scattered in global memory, as the
DeepSeek-V4 sparse-attention kernels gather paged KV rows.

``pl.create_l1`` makes the accumulator, a tensor-level value backed by a
Mat tile (zeros here, undefined on hardware; it costs nothing), so a later
``pl.matmul`` takes it as it is, with no load of its own.  Each
``pl.gather_row`` is one DMA from global memory into a region of it,
priced as ``pl.load`` into Mat of the rows it moves (``valid_shape``'s part
of the window), and writes the accumulator in place."""

from __future__ import annotations

from typing import Any

from . import cube
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import TensorValue, index_list


def create_l1(shape: Any, dtype: Any, transpose: bool = False) -> TensorValue:
    """``pl.create_l1(shape, dtype)``: an L1 accumulator for gather_row."""
    op = "pl.create_l1"
    if transpose:
        raise UnsupportedError(op, "transpose=True (the ZN layout filled by transposing gathers) is not supported by pldsim")
    return TensorValue(cube.create(shape, dtype, cube.MemorySpace.Mat, op=op))


def _accumulator(op: str, acc: Any) -> cube.CubeTile:
    t = acc._value if isinstance(acc, TensorValue) else acc
    if not (isinstance(t, cube.CubeTile) and t.memory is cube.MemorySpace.Mat):
        raise UsageTypeError(op, f"acc must be an L1 accumulator from pl.create_l1 (or a Mat tile), got {acc!r}")
    return t


def gather_row(
    acc: Any, src: Any, dst_offset: Any, src_offset: Any, shapes: Any, transpose: bool = False, *, valid_shape: Any = None
) -> Any:
    """``pl.gather_row(acc, src, dst_offset, src_offset, shapes)``: the
    window `shapes` of `src` at `src_offset` (its `valid_shape` part) into
    `acc` at `dst_offset`; returns `acc`, written in place."""
    op = "pl.gather_row"
    tile = _accumulator(op, acc)
    if transpose:
        raise UnsupportedError(op, "transpose=True (a row placed as an L1 column) is not supported by pldsim")
    window = index_list(shapes, op, "shapes")
    valid = window if valid_shape is None else index_list(valid_shape, op, "valid_shape")
    dst = index_list(dst_offset, op, "dst_offset")
    if not (len(window) == len(valid) == len(dst) == len(tile.shape)):
        raise UsageValueError(
            op, f"dst_offset {dst}, shapes {window} and valid_shape {valid} must each have one entry per dimension of acc {tile.shape}"
        )
    for i, (d, w, v, n) in enumerate(zip(dst, window, valid, tile.shape)):
        if not 0 <= v <= w:
            raise UsageValueError(op, f"valid_shape {valid} must lie within shapes {window} (dimension {i})")
        if d < 0 or d + v > n:
            raise UsageValueError(op, f"rows {d}..{d + v} of dimension {i} run outside acc {tile.shape} (dst_offset {dst}, valid_shape {valid})")
    if 0 in valid:
        return acc
    rows = cube.load(src, src_offset, window, valid, cube.MemorySpace.Mat, False, op)
    got = rows.valid
    if tile.data is not None and rows.data is not None:
        region = tuple(slice(d, d + g) for d, g in zip(dst, got))
        tile.data[region] = rows.data[tuple(slice(0, g) for g in got)].to(tile.data.dtype)
    return acc
