"""``pl.reinterpret_view``: the same bytes seen as another dtype, which
copies nothing and costs nothing.  pypto-lib's DeepSeek-V4.1 MoE carries
FP8 payloads and E8M0 scales in INT8 and UINT8 windows this way: a tile
loaded as FP8 is stored as INT8 and put to a peer, whose INT8 tile is
re-viewed as FP8 once it arrives.

As upstream: `dtype` must differ from the input's; without `shape` the
last axis is scaled by the ratio of the element sizes (ND, row-major), and
an explicit `shape` must hold exactly as many bytes."""

from __future__ import annotations

import math
from typing import Any

import _pldsim

from . import cube
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import DataType, DistributedTensor, TensorValue, Tile, dtype_of_torch, index_list, is_torch_tensor, torch_storage

OP = "pl.reinterpret_view"


def _target(dtype: Any, have: DataType) -> DataType:
    if not isinstance(dtype, DataType):
        raise UsageTypeError(OP, f"dtype must be a pl dtype such as pl.INT8, got {dtype!r}")
    if not dtype.code:
        raise UnsupportedError(OP, f"{dtype!r} is not supported by pldsim")
    if dtype is have:
        raise UsageValueError(OP, f"the input is already {have!r}; reinterpret_view needs another dtype")
    return dtype


def _scaled(shape: list[int], have: DataType, want: DataType, what: str) -> list[int]:
    """`shape` of `have` elements as `want` elements: the last axis scaled."""
    nbytes = shape[-1] * have.get_byte()
    if nbytes % want.get_byte():
        raise UsageValueError(
            OP, f"the last axis of the {what} holds {nbytes} bytes ({shape[-1]} {have!r}), not a whole number of {want!r} elements"
        )
    return shape[:-1] + [nbytes // want.get_byte()]


def _new_shape(shape: Any, old: list[int], have: DataType, want: DataType, what: str) -> list[int]:
    auto = _scaled(old, have, want, what)
    if shape is None:
        return auto
    new = index_list(shape, OP, "shape")
    if not new or any(d <= 0 for d in new):
        raise UsageValueError(OP, f"the shape must be positive dimensions, got {new}")
    if math.prod(new) * want.get_byte() != math.prod(old) * have.get_byte():
        raise UsageValueError(
            OP, f"shape {new} of {want!r} is {math.prod(new) * want.get_byte()} bytes; the {what} ({old} {have!r}) is {math.prod(old) * have.get_byte()}"
        )
    return new


def _tile(t: Tile, dtype: Any, shape: Any) -> Tile:
    want = _target(dtype, t.dtype)
    old, valid = list(t.shape), list(t._tile.valid)
    new = _new_shape(shape, old, t.dtype, want, "tile")
    if valid == old:
        new_valid = new
    elif shape is None or new == _scaled(old, t.dtype, want, "tile"):
        new_valid = _scaled(valid, t.dtype, want, "valid part of the tile")
    else:
        raise UsageValueError(OP, f"a tile with a partial valid part ({valid} of {old}) keeps its shape: give no shape")
    return Tile(_pldsim.tile_alias(t._tile, new, new_valid, want.code))


def reinterpret_view(data: Any, dtype: Any, *, shape: Any = None) -> Any:
    """``pl.reinterpret_view(data, dtype, shape=None)``: a tile, a computed
    value, a host tensor or a window view over the same bytes as `dtype`."""
    if isinstance(data, cube.CubeTile):
        raise UnsupportedError(OP, f"re-viewing a {data.memory.name} tile is not supported by pldsim: re-view the Vec tile or the tensor")
    if isinstance(data, Tile):
        return _tile(data, dtype, shape)
    if isinstance(data, TensorValue):
        if not isinstance(data._value, Tile):
            raise UnsupportedError(OP, "re-viewing a matmul's result is not supported by pldsim: cast it first")
        return TensorValue(_tile(data._value, dtype, shape))
    if isinstance(data, DistributedTensor):
        have = data.dtype
        want = _target(dtype, have)
        new = _new_shape(shape, list(data.shape), have, want, "window view")
        return DistributedTensor(_pldsim.view_as(data._view, new, want.code))
    if is_torch_tensor(data):
        have = dtype_of_torch(data)
        if have is None:
            raise UsageTypeError(OP, f"the input is a {data.dtype} tensor, which pldsim does not support")
        want = _target(dtype, have)
        new = _new_shape(shape, list(data.shape), have, want, "tensor")
        if not data.is_contiguous():
            raise UnsupportedError(OP, f"re-viewing a strided view (strides {list(data.stride())}) is not supported by pldsim")
        return data.view(torch_storage(want)).view(new)
    raise UsageTypeError(OP, f"{OP} expects a tile or a tensor, got {type(data).__name__}")
