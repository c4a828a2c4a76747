"""The local ops of ``pypto.language`` that the pld programs use, each one
libpld call: ``pl.load``, ``pl.store``, element-wise ``add``/``mul``/
``maximum``/``minimum``, ``pl.write``/``pl.cast``, and the loops
(``pl.range``), which run as Python loops.  ``pl.read`` is with the
tensor ops (tensor_ops.py), whose ``x[i, j]`` is one.

Upstream has many more tile and tensor ops; calling one pldsim lacks raises
NotImplementedError naming it (see pypto.language)."""

from __future__ import annotations

import builtins
from typing import Any

import _pldsim

from . import cube, tensor_ops, vector_math
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .state import CUBE, VECTOR, kernel
from .loops import CarriedLoop
from .values import INDEX, INT64, DataType, TensorValue, Tile, any_view, atomic_code, dtype_of_torch, index_list, is_torch_tensor, tile_of, typed_scalar
from .where import caller

def load(tensor: Any, offsets: Any, shapes: Any, valid_shape: Any = None, target_memory: Any = None, clamp: bool = False) -> Any:
    """Global memory (a host tensor, or this rank's copy of a window) to a
    new tile: in UB (Vec, the default), or in the cube's L1 (Mat, cube.py)."""
    op = "pl.load"
    k = kernel()
    if target_memory is None and k is not None and k.unit == CUBE:
        # a cube core has no UB: upstream's compiler loads into L1 there
        target_memory = cube.MemorySpace.Mat
    if target_memory is not None and target_memory is not cube.MemorySpace.Vec:
        return cube.load(tensor, offsets, shapes, valid_shape, target_memory, clamp)
    cube.require_unit(op, VECTOR)
    file, line = caller()
    v = any_view(tensor, op, "the tensor")
    valid = None if valid_shape is None else index_list(valid_shape, op, "valid_shape")
    return Tile(_pldsim.load(file, line, v, index_list(offsets, op, "offsets"), index_list(shapes, op, "shapes"), valid, bool(clamp)))


def store(tile: Any, offsets: Any, output_tensor: Any, shapes: Any = None, *, atomic: Any = 0) -> Any:
    """A tile into global memory at `offsets`; returns `output_tensor`
    (upstream rebinds: ``y = pl.store(tile, [0, 0], y)``)."""
    op = "pl.store"
    if shapes is not None and cube.is_tile(tile):
        tile = _leading(op, tile, index_list(shapes, op, "shapes"))
    if isinstance(tile, cube.CubeTile):
        cube.store(tile, offsets, output_tensor, atomic_code(atomic, op))
        return output_tensor
    file, line = caller()
    t = tile_of(tile, op, "the tile")
    v = any_view(output_tensor, op, "the output tensor")
    _pldsim.store(file, line, t, index_list(offsets, op, "offsets"), v, atomic_code(atomic, op))
    return output_tensor


def _leading(op: str, tile: Any, shapes: list[int]) -> Any:
    """`tile` seen as its leading `shapes` region (store's shapes=): its
    valid part cut to that region, which is what a store writes."""
    full = list(tile.shape)
    if len(shapes) != len(full) or any(not 1 <= s <= d for s, d in zip(shapes, full)):
        raise UsageValueError(op, f"shapes {shapes} must have the tile's {len(full)} dimensions, each 1..its extent {full}")
    valid = [min(v, s) for v, s in zip(cube.valid_of(tile), shapes)]
    if isinstance(tile, cube.CubeTile):
        return cube.CubeTile(tile.data, tile.dtype, tile.memory, full, valid)
    return Tile(_pldsim.tile_alias(tile._tile, full, valid))


def _elementwise(code: int, name: str, lhs: Any, rhs: Any) -> Any:
    op = f"pl.{name}"
    # an accumulator that a vector op reads is drained to UB first, as the
    # compiler's mixed-kernel expansion moves it (charged as pl.move to Vec)
    if isinstance(lhs, cube.CubeTile) and lhs.memory is cube.MemorySpace.Acc:
        lhs = cube.move(lhs, cube.MemorySpace.Vec)
    if isinstance(rhs, cube.CubeTile) and rhs.memory is cube.MemorySpace.Acc:
        rhs = cube.move(rhs, cube.MemorySpace.Vec)
    if isinstance(lhs, cube.CubeTile) or isinstance(rhs, cube.CubeTile):
        which = lhs if isinstance(lhs, cube.CubeTile) else rhs
        raise UsageTypeError(op, f"{op} is a vector op and takes Vec tiles; this one is in {which.memory.name} (pl.move it to Vec)")
    if isinstance(lhs, Tile):
        cube.require_unit(op, VECTOR)
        file, line = caller()
        if isinstance(rhs, Tile):
            return Tile(_pldsim.elementwise(file, line, code, lhs._tile, rhs._tile))
        if isinstance(rhs, (int, float)) and not isinstance(rhs, bool):
            return Tile(_pldsim.elementwise(file, line, code, lhs._tile, float(rhs)))
        raise UsageTypeError(op, f"the second operand must be a tile or a number, got {type(rhs).__name__}")
    lhs, rhs = vector_math.plain_number(lhs), vector_math.plain_number(rhs)
    if isinstance(lhs, (int, float)) and isinstance(rhs, (int, float)):
        # scalar arithmetic (on the AICPU upstream): plain Python
        return {0: lambda: lhs + rhs, 1: lambda: lhs * rhs, 2: lambda: builtins.max(lhs, rhs), 3: lambda: builtins.min(lhs, rhs), 4: lambda: lhs - rhs}[code]()
    if tensor_ops.is_tensor(lhs):
        return tensor_binop(code, op, lhs, rhs)
    raise UsageTypeError(op, f"the first operand must be a tile or a tensor, got {type(lhs).__name__}")


def tensor_elementwise(code: int, name: str, lhs: Any, rhs: Any) -> Any:
    """``pl.tensor.<name>``: the tensor-level op only (a tile is refused,
    as upstream's tensor ops refuse one)."""
    op = f"pl.tensor.{name}"
    if not tensor_ops.is_tensor(lhs):
        raise UsageTypeError(op, f"{op} expects a tensor, got {type(lhs).__name__}; a tile's op is pl.tile.{name} (or pl.{name})")
    return tensor_binop(code, op, lhs, rhs)


def add(lhs: Any, rhs: Any) -> Any:
    """Element-wise lhs + rhs: tile + tile, or tile + scalar."""
    return _elementwise(0, "add", lhs, rhs)


def mul(lhs: Any, rhs: Any) -> Any:
    """Element-wise lhs * rhs."""
    return _elementwise(1, "mul", lhs, rhs)


def maximum(lhs: Any, rhs: Any) -> Any:
    """Element-wise maximum."""
    return _elementwise(2, "maximum", lhs, rhs)


def minimum(lhs: Any, rhs: Any) -> Any:
    """Element-wise minimum."""
    return _elementwise(3, "minimum", lhs, rhs)


def sub(lhs: Any, rhs: Any) -> Any:
    """Element-wise lhs - rhs: tile - tile, or tile - scalar."""
    return _elementwise(4, "sub", lhs, rhs)


def _as_index(offset: Any, op: str) -> list[int]:
    return index_list(offset, op, "the index")


def write(dst: Any, offset: Any, value: Any) -> None:
    """Stores `value`, converted to the tensor's dtype, into one element."""
    op = "pl.write"
    if isinstance(dst, (Tile, TensorValue)):
        return tensor_ops.write_element(dst, offset, value, op)
    file, line = caller()
    v = any_view(dst, op, "the tensor")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageTypeError(op, f"the value must be a number, got {type(value).__name__}")
    _pldsim.write(file, line, v, _as_index(offset, op), float(value))


def cast(input: Any, target_type: Any, mode: Any = "round") -> Any:  # noqa: A002 - upstream's name
    """A scalar converted to `target_type` (rounded to FP16/BF16, truncated
    and range-checked for integers)."""
    op = "pl.cast"
    if target_type is INDEX:  # a 64-bit index: what pl.range and offsets take
        target_type, result_type = INT64, INDEX
    else:
        result_type = target_type
    if not isinstance(target_type, DataType) or not target_type.code:
        raise UsageTypeError(op, f"target_type must be a pl dtype pldsim has (such as pl.FP32), got {target_type!r}")
    if isinstance(input, Tile) or tensor_ops.is_tensor(input):
        if result_type is INDEX:
            raise UsageTypeError(op, "pl.INDEX is a scalar type; a tile or a tensor needs a tensor dtype")
        src = dtype_of_torch(input) if is_torch_tensor(input) else input.dtype
        if src is not None and src.is_float and not target_type.is_float and mode not in ("trunc", 5):
            return vector_math.rounding_cast(input, target_type, mode)
        return tensor_cast(input, target_type, mode)
    if isinstance(input, bool):
        input = int(input)  # a comparison's result: 1 or 0, as upstream's scalar cast of a bool
    if not isinstance(input, (int, float)):
        raise UsageTypeError(op, f"the input must be a number, got {type(input).__name__}")
    file, line = caller()
    return typed_scalar(_pldsim.cast(file, line, float(input), target_type.code), result_type)


def range(*args: Any, init_values: Any = None, name: str = "pl.range") -> Any:  # noqa: A001 - upstream's name
    """A loop: on pldsim a Python range (bounds are ints at run time); with
    init_values, one that carries values (loops.py)."""
    if not 1 <= len(args) <= 3:
        raise UsageTypeError(name, f"{name} takes 1 to 3 bounds, got {len(args)}")
    indices = builtins.range(*(index_list(a, name, "a bound")[0] for a in args))
    return indices if init_values is None else CarriedLoop(indices, init_values)


def parallel(*args: Any, init_values: Any = None) -> Any:
    """``pl.parallel``: iterations upstream may run in parallel; here, in order."""
    return range(*args, init_values=init_values, name="pl.parallel")


def unroll(*args: Any, init_values: Any = None) -> Any:
    """``pl.unroll``: a loop upstream's compiler unrolls; its bounds are
    compile-time ints and it carries no values."""
    op = "pl.unroll"
    if init_values is not None:
        raise UsageTypeError(op, "an unrolled loop carries no values (init_values): use pl.range")
    for a in args:
        if isinstance(a, bool) or not isinstance(a, int):
            raise UsageTypeError(op, f"the bounds of pl.unroll are compile-time ints, got {type(a).__name__}")
    return range(*args, name=op)


def pipeline(*args: Any, stage: Any = None, init_values: Any = None) -> Any:
    """``pl.pipeline(n, stage=S)``: a loop whose body upstream's compiler
    replicates S times to overlap its stages (ping-pong buffers); run here
    as the loop it is, in order."""
    op = "pl.pipeline"
    if stage is None:
        raise UsageTypeError(op, "pl.pipeline needs stage= (a positive integer), as in pl.pipeline(n, stage=2)")
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 1:
        raise UsageValueError(op, f"stage must be a positive integer, got {stage!r}")
    return range(*args, init_values=init_values, name=op)


# ---- element-wise and cast -----------------------------------------------------------


def tensor_binop(code: int, op: str, lhs: Any, rhs: Any) -> TensorValue:
    """A tensor-level element-wise op: tensor with tensor or with a number."""
    a = tensor_ops.operand_tile(lhs, op, "the first operand")
    file, line = caller()
    if isinstance(rhs, (int, float)) and not isinstance(rhs, bool):
        return TensorValue(Tile(_pldsim.elementwise(file, line, code, a._tile, float(rhs))))
    if isinstance(rhs, Tile):
        raise UsageTypeError(op, f"{op} of a tensor and a tile: both operands must be tensors (or the second a number)")
    if not tensor_ops.is_tensor(rhs):
        raise UsageTypeError(op, f"the second operand must be a tensor or a number, got {type(rhs).__name__}")
    b = tensor_ops.operand_tile(rhs, op, "the second operand")
    return TensorValue(Tile(_pldsim.elementwise(file, line, code, a._tile, b._tile)))


def tensor_cast(value: Any, target_type: DataType, mode: Any) -> Any:
    """A tensor or a tile converted element-wise to `target_type`."""
    op = "pl.cast"
    src_dtype = dtype_of_torch(value) if is_torch_tensor(value) else value.dtype
    if src_dtype is None:
        raise UsageTypeError(op, f"the input is a torch.{str(value.dtype).split('.')[-1]} tensor, which pldsim does not support")
    if src_dtype.is_float and not target_type.is_float and mode not in ("trunc", 5):
        raise UnsupportedError(op, f"rounding mode {mode!r} of a float-to-integer cast is not supported by pldsim (mode='trunc' is)")
    if isinstance(value, Tile):
        file, line = caller()
        return Tile(_pldsim.cast_tile(file, line, value._tile, target_type.code))
    t = tensor_ops.operand_tile(value, op, "the input")
    file, line = caller()
    return TensorValue(Tile(_pldsim.cast_tile(file, line, t._tile, target_type.code)))
