"""``pl.matmul`` and ``pl.matmul_acc`` of tensors, as upstream's compiler
lowers them: each operand loaded whole into the cube's L1 (Mat), moved to
L0A / L0B, multiplied into an Acc tile, which a later ``pl.assemble`` (or
``out[...] = acc``) writes out through the fixpipe.  Every step is the
tile op's own (cube.py), priced and traced as it is.

An operand's leading unit dimensions are dropped (``w[g:g+1, n0:n1, :]``
multiplies as its [n, k] matrix), and ``a_trans`` / ``b_trans`` read the
operand transposed, as the cube's loader does, at no extra cost.  The
result is the accumulator, FP32 for float operands and INT32 for INT8;
``out_dtype`` must name it."""

from __future__ import annotations

from typing import Any

from . import cube, tensor_ops
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import TensorValue, Tile, any_view


def _matrix(op: str, x: Any, what: str, transpose: bool) -> Any:
    """`x` as a 2D cube tile (Mat, or the value's own tile), transposed when asked."""
    if isinstance(x, TensorValue):
        t = x._value
    elif tensor_ops.is_tensor(x):
        shape, valid = tensor_ops.load_extent(x)
        any_view(x, op, what)
        t = cube.load(x, [0] * len(shape), shape, valid, cube.MemorySpace.Mat, False)
    elif isinstance(x, (Tile, cube.CubeTile)):
        raise UsageTypeError(op, f"{op} of a tensor and a tile: both operands must be tensors, or both tiles")
    else:
        raise UsageTypeError(op, f"{what} must be a tensor, got {type(x).__name__}")
    shape, valid = list(t.shape), cube.valid_of(t)
    while len(shape) > 2 and shape[0] == 1:
        shape, valid = shape[1:], valid[1:]
    if len(shape) != 2:
        raise UsageValueError(op, f"{what} must be a matrix (2D, or with leading dimensions of 1), got {list(t.shape)}")
    data = cube.values_of(op, t, what)
    memory = cube.memory_of(t)
    if data is not None:
        data = data.reshape(shape)
    if transpose:
        shape, valid = shape[::-1], valid[::-1]
        data = None if data is None else data.t().contiguous()
    if isinstance(t, Tile):
        return t if not transpose and list(t.shape) == shape else cube.vec_tile(op, t.dtype, shape, valid, data)
    return cube.CubeTile(data, t.dtype, memory, shape, valid)


def _check_out(op: str, acc: Any, out_dtype: Any) -> None:
    if out_dtype is not None and out_dtype is not acc.dtype:
        raise UnsupportedError(op, f"out_dtype={out_dtype!r}: pldsim's tensor matmul gives the cube's accumulator, {acc.dtype!r} (pl.cast the result)")


def matmul(lhs: Any, rhs: Any, out_dtype: Any = None, a_trans: bool = False, b_trans: bool = False) -> TensorValue:
    """lhs @ rhs of tensors: an Acc value."""
    op = "pl.matmul"
    a = _matrix(op, lhs, "lhs", bool(a_trans))
    b = _matrix(op, rhs, "rhs", bool(b_trans))
    acc = cube.matmul(a, b)
    _check_out(op, acc, out_dtype)
    return TensorValue(acc)


def matmul_acc(acc: Any, lhs: Any, rhs: Any, a_trans: bool = False, b_trans: bool = False, init_cond: Any = None) -> TensorValue:
    """acc += lhs @ rhs, where acc is the value of an earlier tensor matmul."""
    op = "pl.matmul_acc"
    if not (isinstance(acc, TensorValue) and isinstance(acc._value, cube.CubeTile)):
        raise UsageTypeError(op, f"acc must be the result of a tensor pl.matmul, got {type(acc).__name__}")
    a = _matrix(op, lhs, "lhs", bool(a_trans))
    b = _matrix(op, rhs, "rhs", bool(b_trans))
    return TensorValue(cube.matmul_acc(acc._value, a, b, init_cond))
