"""Reductions and reshapes of Vec tiles: ``pl.tile.row_sum``, ``row_max``,
``row_min``, ``row_prod`` (each with its scratch tile), ``col_sum``,
``col_max``, ``col_min``, ``col_prod``, ``pl.tile.reshape``, and their
``pl.*`` forms, which also take a tensor (loaded whole into UB first, as
upstream's ConvertTensorToTileOps lowers a tensor-level op).

A reduction reads the valid part of its input (upstream's reduce
instructions are bounded by it) and makes a new UB tile, charged as one
vector element operation per input element.  Floats reduce in float32 and
round to the tile's dtype, integers in int64 and wrap to it, as the vector
unit's arithmetic does (pl_add)."""

from __future__ import annotations

import math
from typing import Any

import _pldsim

from . import cube, state, tensor_ops
from .errors import UsageTypeError, UsageValueError
from .state import VECTOR
from .values import FP16, FP32, INT16, INT32, TensorValue, Tile, index_list, is_torch_tensor, torch
from .where import caller

_ROW_MIN_DTYPES = (INT16, INT32, FP16, FP32)


def _vec_input(op: str, t: Any, what: str = "the input") -> Tile:
    if isinstance(t, cube.CubeTile):
        raise UsageTypeError(op, f"{op} reduces a Vec tile; {what} is in {t.memory.name} (pl.move it to Vec)")
    if not isinstance(t, Tile):
        raise UsageTypeError(op, f"{what} must be a tile, got {type(t).__name__}")
    return t


def _reduce(op: str, kind: str, t: Tile, axis: int) -> Tile:
    """`kind` (sum, max, min, prod) of tile `t`'s valid part along `axis`
    (-1: rows, 0: columns), kept as a dim of 1."""
    cube.require_unit(op, VECTOR)
    if len(t.shape) < 2:
        raise UsageValueError(op, f"{op} needs a tile of 2 or more dimensions, got {len(t.shape)}")
    valid = cube.valid_of(t)
    if any(v < 1 for v in valid):
        raise UsageValueError(op, f"{op} of a tile with nothing valid ({valid})")
    shape = list(t.shape)
    out_shape = shape[:-1] + [1] if axis == -1 else [1] + shape[1:]
    out_valid = valid[:-1] + [1] if axis == -1 else [1] + valid[1:]
    values = cube.values_of(op, t, "the input")
    result = None
    if values is not None:
        th = torch()
        region = values[tuple(slice(0, v) for v in valid)]
        region = region.to(th.float32) if t.dtype.is_float else region.to(th.int64)
        result = th.zeros(out_shape, dtype=region.dtype)
        if kind == "sum":
            r = region.sum(dim=axis, keepdim=True)
        elif kind == "prod":
            r = region.prod(dim=axis, keepdim=True)
        elif kind == "max":
            r = region.amax(dim=axis, keepdim=True)
        else:
            r = region.amin(dim=axis, keepdim=True)
        result[tuple(slice(0, v) for v in out_valid)] = r
    out = cube.vec_tile(op, t.dtype, out_shape, out_valid, result)
    file, line = caller()
    _pldsim.charge_vector(file, line, op, math.prod(valid))
    return out


def _check_tmp(op: str, t: Tile, tmp: Any, exact: bool = False) -> None:
    if not isinstance(tmp, Tile):
        got = f"a {tmp.memory.name} tile" if isinstance(tmp, cube.CubeTile) else type(tmp).__name__
        raise UsageTypeError(op, f"tmp_tile must be a Vec tile, got {got}")
    if tmp.dtype is not t.dtype:
        raise UsageTypeError(op, f"tmp_tile must have the input's dtype, {t.dtype!r}, got {tmp.dtype!r}")
    if len(tmp.shape) != len(t.shape):
        raise UsageValueError(op, f"tmp_tile must have the input's rank: it is {tmp.shape} and the input is {t.shape}")
    for i, (a, b) in enumerate(zip(tmp.shape, t.shape)):
        if (a != b) if exact else (a < b):
            raise UsageValueError(op, f"tmp_tile {tmp.shape} is smaller than the input {t.shape} in dimension {i}")


def row(kind: str, tile: Any, tmp_tile: Any, op: str) -> Tile:
    """``pl.tile.row_<kind>(tile, tmp_tile)``: [..., rows, 1]."""
    t = _vec_input(op, tile)
    if len(t.shape) < 2:
        raise UsageValueError(op, f"{op} needs a tile of 2 or more dimensions, got {len(t.shape)}")
    _check_tmp(op, t, tmp_tile)
    if kind == "min" and t.dtype not in _ROW_MIN_DTYPES:
        raise UsageTypeError(op, f"{op} takes INT16, INT32, FP16 or FP32 tiles, got {t.dtype!r}")
    return _reduce(op, kind, t, -1)


def col(kind: str, tile: Any, tmp_tile: Any, op: str) -> Tile:
    """``pl.tile.col_<kind>(tile[, tmp_tile])``: [1, ...]."""
    t = _vec_input(op, tile)
    if tmp_tile is not None:
        _check_tmp(op, t, tmp_tile)
    return _reduce(op, kind, t, 0)


def unified(kind: str, axis: str) -> Any:
    """``pl.row_<kind>`` / ``pl.col_<kind>``: of a tile (with its scratch
    tile, for the row reductions) or of a tensor (without one)."""
    name = f"{axis}_{kind}"

    def op_fn(input: Any, tmp_tile: Any = None) -> Any:  # noqa: A002 - upstream's name
        op = f"pl.{name}"
        if tensor_ops.is_tensor(input):
            if tmp_tile is not None:
                raise UsageTypeError(op, "a tensor's reduction takes no tmp_tile: the lowering makes its own")
            t = tensor_ops.operand_tile(input, op, "the input")
            return TensorValue(_reduce(op, kind, t, -1 if axis == "row" else 0))
        if isinstance(input, (Tile, cube.CubeTile)):
            if axis == "row":
                if tmp_tile is None:
                    raise UsageTypeError(op, "a tile's reduction needs tmp_tile, a scratch tile of the input's dtype and rank, at least as large in every dimension")
                return row(kind, input, tmp_tile, op)
            return col(kind, input, tmp_tile if kind == "sum" else None, op)
        raise UsageTypeError(op, f"{op} expects a tensor or a tile, got {type(input).__name__}")

    op_fn.__name__ = name
    return op_fn


def tile_op(kind: str, axis: str) -> Any:
    """``pl.tile.row_<kind>`` / ``pl.tile.col_<kind>``."""
    op = f"pl.tile.{axis}_{kind}"
    if axis == "row":
        return lambda tile, tmp_tile: row(kind, tile, tmp_tile, op)
    if kind == "sum":
        return lambda tile, tmp_tile=None: col(kind, tile, tmp_tile, op)
    return lambda tile: col(kind, tile, None, op)


# ---- reshape -------------------------------------------------------------------------


def _reshaped_valid(op: str, shape: list[int], valid: list[int], new: list[int]) -> list[int]:
    """The valid part of a reshape, which never widens it: all of the new
    shape when all was valid; the same valid extents when only unit dims
    come or go; a prefix of rows when the valid part is one."""
    if valid == shape:
        return list(new)
    old_big = [(d, v) for d, v in zip(shape, valid) if d != 1]
    new_big = [d for d in new if d != 1]
    if [d for d, _ in old_big] == new_big:
        it = iter(v for _, v in old_big)
        return [1 if d == 1 else next(it) for d in new]
    if valid[1:] == shape[1:] and new[1:] and math.prod(valid) % math.prod(new[1:]) == 0:
        return [math.prod(valid) // math.prod(new[1:])] + new[1:]
    raise UsageValueError(op, f"no valid part of shape {new} holds exactly the valid part {valid} of the {shape} tile")


def reshape(tile: Any, shape: Any, op: str = "pl.tile.reshape") -> Any:
    """The tile seen with another shape of as many elements (no copy)."""
    new = index_list(shape, op, "shape")
    if not cube.is_tile(tile):
        raise UsageTypeError(op, f"{op} reshapes a tile, got {type(tile).__name__}")
    old = list(tile.shape)
    if math.prod(new) != math.prod(old) or any(d <= 0 for d in new):
        raise UsageValueError(op, f"cannot reshape a tile of {math.prod(old)} elements ({old}) into {new}")
    valid = _reshaped_valid(op, old, cube.valid_of(tile), new)
    if isinstance(tile, cube.CubeTile):
        data = cube.values_of(op, tile, "the tile")
        out = cube.CubeTile(None if data is None else data.reshape(new), tile.dtype, tile.memory, new, valid)
        return out
    return Tile(_pldsim.tile_alias(tile._tile, new, valid))


def unified_reshape(input: Any, shape: Any) -> Any:  # noqa: A002 - upstream's name
    """``pl.reshape``: of a tile, of a computed value, or of a tensor (a view)."""
    op = "pl.reshape"
    if cube.is_tile(input):
        return reshape(input, shape, op)
    if isinstance(input, TensorValue):
        return TensorValue(reshape(input._value, shape, op))
    strided = is_torch_tensor(input) and not input.is_contiguous() and state.kernel() is not None
    if tensor_ops.is_tensor(input) and (strided or tensor_ops.load_extent(input)[1] is not None):
        # a slice with a valid part, or in a kernel a strided window of a
        # tensor (a column range): lowered as upstream's, a load into a
        # dense tile, then the tile's reshape
        return TensorValue(reshape(tensor_ops.operand_tile(input, op, "the input"), shape, op))
    if tensor_ops.is_tensor(input):
        return tensor_ops.reshape(input, shape, op)
    raise UsageTypeError(op, f"{op} expects a tensor or a tile, got {type(input).__name__}")

