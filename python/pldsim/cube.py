"""Tiles in every memory space, and the cube unit's ops: ``pl.load(...,
target_memory=pl.Mem.Mat)``, ``pl.move``, ``pl.matmul``, ``pl.matmul_acc``,
``pl.store`` of an accumulator, ``pl.create_tile`` / ``pl.tile.create`` and
``pl.tile.full``.

A tile of the vector core's unified buffer (``Vec``) is a libpld tile, as
always: it takes UB, which has a limit.  A tile of the cube unit's buffers
(``Mat``: L1; ``Left``, ``Right``: L0A, L0B; ``Acc``: L0C) is a
:class:`CubeTile`, held here as a torch tensor: loads into it and stores
out of it are libpld's (checked, priced, traced and seen by the race
detector as pl_load and pl_store), the products are torch's.  pldsim does
not check the cube buffers' sizes: upstream's compiler tiles a matmul to
fit L0 (AutoTileMatmulL0), so a program's tiles need not fit as written.

Where a matmul's operands live follows upstream's rules: lhs comes from
Left (or Mat, which upstream's compiler moves to Left), rhs from Right (or
Mat); a Vec tile is taken too, as upstream's compiler would have loaded it
into Mat.  The product is an Acc tile of FP32 (float operands) or INT32
(integer ones).

The device time of the cube is libpld's cube model (docs/models.md, "The
cube unit"): a matmul costs its fractals at the dtype's rate
(:func:`_charge_matmul`), a move into L0A or L0B its bytes at that path's
rate, a store of an Acc tile a drain of L0C; an operand the matmul reads
from L1 (or UB) is moved into L0 by the matmul, and costs that move."""

from __future__ import annotations

import builtins
import enum
import math
import time
from typing import Any

import _pldsim

from . import state
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import BF16, DELEGATES, FP16, FP32, INT8, INT32, DataType, Tile, any_view, dtype_of_code, index_list, int_range, torch, torch_storage
from .where import caller


class MemorySpace(enum.Enum):
    """Where a tile lives (upstream's MemorySpace; ``pl.Mem`` is its alias)."""

    DDR = 0
    Vec = 1  # the vector core's unified buffer (UB)
    Mat = 2  # the cube's L1
    Left = 3  # L0A: a matmul's lhs
    Right = 4  # L0B: a matmul's rhs
    Acc = 5  # L0C: a matmul's accumulator
    Bias = 6
    LeftScale = 7
    RightScale = 8
    ScalarLocal = 9


class TileLayout(enum.Enum):
    """A tile's block or scatter layout (upstream's TileLayout)."""

    none_box = 0
    row_major = 1
    col_major = 2


_CUBE_SPACES = (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)
_CUBE_INPUTS = (FP16, BF16, FP32, INT8)


class CubeTile:
    """A tile in one of the cube unit's buffers.  ``data`` holds its
    values (None when there are none, under --no-data); ``valid`` is the
    leading part that holds data.  It lives while its kernel runs."""

    __slots__ = ("data", "dtype", "memory", "shape", "valid", "kernel")

    def __init__(self, data: Any, dtype: DataType, memory: MemorySpace, shape: list[int], valid: list[int]):
        k = state.kernel()
        self.data, self.dtype, self.memory = data, dtype, memory
        self.shape, self.valid = list(shape), list(valid)
        self.kernel = k.serial if k else 0

    def __repr__(self) -> str:
        return f"<pl.Tile {self.shape} {self.dtype!r} in {self.memory.name}>"

    def __getitem__(self, key: Any) -> Any:
        """``t[a:b, c:d]``: that region of the tile (tile.slice)."""
        return DELEGATES.subscript_read(self, key)


def is_tile(x: Any) -> bool:
    """A tile of any memory space."""
    return isinstance(x, (Tile, CubeTile))


def memory_of(x: Any) -> MemorySpace:
    return x.memory if isinstance(x, CubeTile) else MemorySpace.Vec


def require_unit(op: str, unit: str) -> None:
    """Refuses `op`, which runs on the cube (unit CUBE) or the vector core
    (VECTOR), in a kernel of the other kind (an AIV or AIC function)."""
    k = state.kernel()
    if k is None or k.unit in (state.MIXED, unit):
        return
    if unit == state.CUBE:
        raise UsageTypeError(op, f"{op} runs on the cube unit, and kernel {k.name} is an AIV function (a vector core); make it an AIC or InCore function")
    raise UsageTypeError(op, f"{op} runs on the vector core, and kernel {k.name} is an AIC function (a cube core); make it an AIV or InCore function")


def _alive(op: str, t: CubeTile, what: str) -> CubeTile:
    k = state.kernel()
    if k is None or t.kernel != k.serial:
        raise UsageValueError(op, f"{what} belongs to a kernel that has returned: tiles live only while their kernel runs")
    return t


def _memory(op: str, m: Any, what: str = "target_memory") -> MemorySpace:
    if not isinstance(m, MemorySpace):
        raise UsageTypeError(op, f"{what} must be a pl.MemorySpace (pl.Mem.Vec, .Mat, ...), got {m!r}")
    return m


def _torch_dtype(dt: DataType) -> Any:
    return torch_storage(dt)


def _static_shape(op: str, shape: Any) -> list[int]:
    dims = index_list(shape, op, "shape")
    if not dims:
        raise UsageValueError(op, "the shape must not be empty")
    for i, d in enumerate(dims):
        if d <= 0:
            raise UsageValueError(op, f"shape element {i} must be positive, got {d}")
    return dims


def _dtype(op: str, dt: Any) -> DataType:
    if not isinstance(dt, DataType) or not dt.code:
        raise UsageTypeError(op, f"dtype must be a pl dtype pldsim has (such as pl.FP32), got {dt!r}")
    return dt


# ---- values --------------------------------------------------------------------------


def values_of(op: str, t: Any, what: str) -> Any:
    """The values of tile `t` (all of its shape) as a torch tensor of its
    dtype, or None when it holds none (--no-data)."""
    if isinstance(t, CubeTile):
        return _alive(op, t, what).data
    if isinstance(t, Tile):
        file, line = caller()
        out = torch().empty(t.shape, dtype=_torch_dtype(t.dtype))
        return out if _pldsim.tile_copy_out(file, line, op, t._tile, out.data_ptr()) else None
    raise UsageTypeError(op, f"{what} must be a tile, got {type(t).__name__}")


def valid_of(t: Any) -> list[int]:
    return list(t.valid) if isinstance(t, CubeTile) else list(t._tile.valid)


def vec_tile(op: str, dt: DataType, shape: list[int], valid: list[int] | None, data: Any) -> Tile:
    """A new UB tile of `shape` holding `data` (a torch tensor; None: no
    values under --timing-only, where the operands held none, else zeros)."""
    file, line = caller()
    if data is not None:
        data = data.to(_torch_dtype(dt)).contiguous()
    return Tile(_pldsim.tile_new(file, line, op, dt.code, shape, valid, 0 if data is None else data.data_ptr()))


# ---- creation ------------------------------------------------------------------------


def create(shape: Any, dtype: Any, target_memory: Any = MemorySpace.Vec, transpose: Any = None, *, flat_layout: Any = None, op: str = "pl.tile.create") -> Any:
    """A new tile of `shape` and `dtype` in `target_memory`; its values are
    zeros here (undefined on hardware).  Costs nothing."""
    dims = _static_shape(op, shape)
    dt = _dtype(op, dtype)
    space = _memory(op, target_memory)
    if space in (MemorySpace.LeftScale, MemorySpace.RightScale):
        raise UsageValueError(op, f"{op} cannot make a LeftScale or RightScale tile: load the scale tile into Mat and pl.move it")
    if transpose and not (len(dims) == 2 and space is MemorySpace.Mat):
        raise UsageValueError(op, f"{op}: transpose=True is for a 2D tile in Mat only")
    if flat_layout and (space is not MemorySpace.Mat or transpose):
        raise UsageValueError(op, f"{op}: flat_layout=True is for a Mat tile without transpose only")
    if space is MemorySpace.Vec:
        require_unit(op, state.VECTOR)
        # explicit zeros: None would mean "computed from no values" (--timing-only)
        return vec_tile(op, dt, dims, None, torch().zeros(dims, dtype=_torch_dtype(dt)))
    if space not in _CUBE_SPACES:
        raise UnsupportedError(op, f"{space.name} tiles are not supported by pldsim (Vec, Mat, Left, Right and Acc are)")
    require_unit(op, state.CUBE)
    _in_kernel(op)
    return CubeTile(torch().zeros(dims, dtype=_torch_dtype(dt)), dt, space, dims, dims)


def _in_kernel(op: str) -> None:
    if state.kernel() is None:
        raise UsageTypeError(op, f"{op} makes a tile, which only a kernel has")


def full(shape: Any, dtype: Any, value: Any, op: str = "pl.tile.full") -> Tile:
    """A Vec tile of `shape` whose every element is `value` (a vector fill,
    charged as one element operation per element)."""
    dims = _static_shape(op, shape)
    dt = _dtype(op, dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageTypeError(op, f"{op} fills with a constant number, got {type(value).__name__}")
    span = int_range(dt)
    if span is not None and not span[0] <= value <= span[1]:  # nan compares false: refused too
        raise UsageValueError(op, f"value {value!r} does not fit in {dt!r}; expected a number from {span[0]} to {span[1]}")
    require_unit(op, state.VECTOR)
    _in_kernel(op)
    data = torch().full(dims, value, dtype=torch().float64 if dt.is_float else torch().int64)
    tile = vec_tile(op, dt, dims, None, data)
    file, line = caller()
    _pldsim.charge_vector(file, line, op, math.prod(dims))
    return tile


# ---- load, store, move ---------------------------------------------------------------


def load(tensor: Any, offsets: Any, shapes: Any, valid_shape: Any, target_memory: Any, clamp: bool, op: str = "pl.load") -> CubeTile:
    """``pl.load(..., target_memory=pl.Mem.Mat)``: global memory into L1
    (`op` names the op that asked, in messages and the trace)."""
    space = _memory(op, target_memory)
    if space is not MemorySpace.Mat:
        raise UsageValueError(op, f"pl.load loads into Vec or Mat, not {space.name} (pl.move a Mat tile to {space.name})")
    require_unit(op, state.CUBE)
    file, line = caller()
    v = any_view(tensor, op, "the tensor")
    dims = index_list(shapes, op, "shapes")
    valid = None if valid_shape is None else index_list(valid_shape, op, "valid_shape")
    dt = dtype_of_code(v.dtype)
    # libpld refuses a dim < 1, after this buffer is made: torch must not refuse it first
    data = torch().empty([max(d, 0) for d in dims], dtype=_torch_dtype(dt))
    copied, got = _pldsim.load_into(file, line, op, v, index_list(offsets, op, "offsets"), dims, valid, bool(clamp), data.data_ptr())
    return CubeTile(data if copied else None, dt, MemorySpace.Mat, dims, list(got))


def store(tile: CubeTile, offsets: Any, output_tensor: Any, atomic_code: int) -> None:
    """``pl.store`` of an Acc tile (the cube's fixpipe writes L0C out)."""
    op = "pl.store"
    _alive(op, tile, "the tile")
    if tile.memory is not MemorySpace.Acc:
        raise UsageValueError(op, f"pl.store writes a Vec or an Acc tile; this one is in {tile.memory.name}")
    require_unit(op, state.CUBE)
    file, line = caller()
    v = any_view(output_tensor, op, "the output tensor")
    data = None if tile.data is None else tile.data.contiguous()
    tile.data = data
    _pldsim.store_from(
        file, line, op, tile.dtype.code, 0 if data is None else data.data_ptr(), tile.shape, tile.valid, index_list(offsets, op, "offsets"), v, atomic_code, True
    )


_MOVE_TARGETS = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right)


def move(tile: Any, target_memory: Any, blayout: Any = None, slayout: Any = None) -> Any:
    """``pl.move``: a copy of `tile` in `target_memory` (Vec, Mat, Left or
    Right), with its shape and valid part."""
    op = "pl.move"
    space = _memory(op, target_memory)
    for name, lay in (("blayout", blayout), ("slayout", slayout)):
        if lay is not None and not isinstance(lay, TileLayout):
            raise UsageTypeError(op, f"{name} must be a pl.TileLayout, got {lay!r}")
    if not is_tile(tile):
        raise UsageTypeError(op, f"pl.move moves a tile, got {type(tile).__name__}")
    if space not in _MOVE_TARGETS:
        raise UnsupportedError(op, f"a move into {space.name} is not supported by pldsim (Vec, Mat, Left and Right are)")
    data = values_of(op, tile, "the tile")
    if space is MemorySpace.Vec:
        if memory_of(tile) is MemorySpace.Acc:  # a5's L0C -> UB path
            _charge_move(PATH_DRAIN_UB, tile)
        return vec_tile(op, tile.dtype, list(tile.shape), valid_of(tile), data)
    require_unit(op, state.CUBE)
    if space in (MemorySpace.Left, MemorySpace.Right) and memory_of(tile) is not space:
        _charge_move(PATH_L0A if space is MemorySpace.Left else PATH_L0B, tile)
    return CubeTile(None if data is None else data.clone(), tile.dtype, space, tile.shape, valid_of(tile))


# ---- matmul --------------------------------------------------------------------------


# the cube's own paths, as _pldsim.cube_move numbers them (pld_embed.h)
PATH_L0A, PATH_L0B, PATH_DRAIN_UB = 0, 1, 2


def region(tile: CubeTile, offsets: list[int], extents: list[int], op: str) -> CubeTile:
    """``t[a:b, c:d]`` of a cube tile: that region, in the same buffer (a
    view of its bytes on hardware, as upstream's tile.slice; its values
    are copied here, as cube tiles are never written in place); no cost.
    Its valid part is the tile's that lies in it."""
    t = _alive(op, tile, "the tile")
    valid = [max(0, min(v - o, e)) for v, o, e in zip(t.valid, offsets, extents)]
    data = None
    if t.data is not None:
        data = t.data[tuple(builtins.slice(o, o + e) for o, e in zip(offsets, extents))].contiguous()
    return CubeTile(data, t.dtype, t.memory, extents, valid)


def transpose_view(tile: Any) -> CubeTile:
    """``pl.tile.transpose_view(t)``: cube tile `t` (2D or more, in Mat,
    Left or Right) seen with its last two dimensions swapped, over the same
    bytes (upstream: an NZ tile read as ZN), so one load feeds a matmul
    with and one without b_trans.  No copy, no cost."""
    op = "pl.tile.transpose_view"
    if not isinstance(tile, CubeTile):
        raise UsageTypeError(op, f"{op} takes a tile in the cube's buffers (Mat, Left or Right), got {type(tile).__name__}")
    t = _alive(op, tile, "the tile")
    if t.memory is MemorySpace.Acc or len(t.shape) < 2:
        raise UsageValueError(op, f"{op} takes a 2D (or more) tile in Mat, Left or Right, got {t.shape} in {t.memory.name}")
    data = None if t.data is None else t.data.transpose(-1, -2).contiguous()
    swap = lambda dims: [*dims[:-2], dims[-1], dims[-2]]  # noqa: E731
    return CubeTile(data, t.dtype, t.memory, swap(t.shape), swap(t.valid))


def _charge_move(path: int, tile: Any) -> None:
    """A move of `tile`'s bytes (its physical shape) along a cube path."""
    file, line = caller()
    _pldsim.cube_move(file, line, "pl.move", path, math.prod(tile.shape) * tile.dtype.get_byte())


def _charge_matmul(m: int, n: int, k: int, dtype: DataType) -> None:
    """The device time of one matmul of an [m, k] and a [k, n] tile of
    `dtype`: the one place it is charged, by libpld's cube model (cost.c:
    cube_lat + 2 M N K / the dtype's rate, M, N, K rounded up to the cube's
    fractal)."""
    file, line = caller()
    _pldsim.matmul_cost(file, line, "pl.matmul", m, n, k, dtype.code)


def _operand(op: str, t: Any, what: str, allowed: tuple[MemorySpace, ...]) -> Any:
    if not is_tile(t):
        raise UsageTypeError(op, f"{what} must be a tile, got {type(t).__name__}")
    m = memory_of(t)
    if m not in allowed:
        names = ", ".join(a.name for a in allowed[:-1]) + f" or {allowed[-1].name}"
        raise UsageValueError(op, f"{what} is a {m.name} tile; the cube reads it from {names}")
    if len(t.shape) != 2:
        raise UsageValueError(op, f"{what} must be 2D, got {len(t.shape)} dimensions")
    return t


def _product(op: str, lhs: Any, rhs: Any) -> tuple[Any, DataType, list[int], list[int]]:
    """lhs @ rhs, checked as upstream checks a matmul: (values or None,
    accumulator dtype, physical shape, valid shape)."""
    _operand(op, lhs, "lhs", (MemorySpace.Left, MemorySpace.Mat, MemorySpace.Vec))
    _operand(op, rhs, "rhs", (MemorySpace.Right, MemorySpace.Mat, MemorySpace.Vec))
    if lhs.shape[1] != rhs.shape[0]:
        raise UsageValueError(op, f"the inner dimensions differ: lhs is {lhs.shape} (K = {lhs.shape[1]}) and rhs is {rhs.shape} (K = {rhs.shape[0]})")
    lv, rv = valid_of(lhs), valid_of(rhs)
    if lv[1] > rv[0]:
        raise UsageValueError(op, f"rhs's valid K ({rv[0]}) does not cover lhs's valid K ({lv[1]})")
    if lhs.dtype is not rhs.dtype:
        raise UsageTypeError(op, f"lhs and rhs must have one dtype, got {lhs.dtype!r} and {rhs.dtype!r}")
    if lhs.dtype not in _CUBE_INPUTS:
        raise UsageTypeError(op, f"the cube multiplies FP16, BF16, FP32 or INT8 tiles, got {lhs.dtype!r}")
    require_unit(op, state.CUBE)
    acc = FP32 if lhs.dtype.is_float else INT32
    a, b = values_of(op, lhs, "lhs"), values_of(op, rhs, "rhs")
    m, k, n = lhs.shape[0], lhs.shape[1], rhs.shape[1]
    # operands in L1 (or UB) go into L0A and L0B first: the matmul moves them
    if memory_of(lhs) is not MemorySpace.Left:
        _charge_move(PATH_L0A, lhs)
    if memory_of(rhs) is not MemorySpace.Right:
        _charge_move(PATH_L0B, rhs)
    _charge_matmul(m, n, k, lhs.dtype)
    if a is None or b is None:
        return None, acc, [m, n], [lv[0], rv[1]]
    t = torch()
    started = time.perf_counter()
    if acc is FP32:
        value = t.matmul(a.to(t.float32), b.to(t.float32))
    else:
        value = t.matmul(a.to(t.int64), b.to(t.int64)).to(t.int32)
    PRODUCT_SECONDS[0] += time.perf_counter() - started
    return value, acc, [m, n], [lv[0], rv[1]]


#: wall seconds the run's matmul products spent in torch (PLDSIM_PY_PROFILE)
PRODUCT_SECONDS = [0.0]


def matmul(lhs: Any, rhs: Any, out_dtype: Any = None) -> CubeTile:
    """``pl.matmul`` of tiles: a new Acc tile holding lhs @ rhs."""
    op = "pl.matmul"
    value, acc, shape, valid = _product(op, lhs, rhs)
    if out_dtype is not None and out_dtype is not acc:
        raise UsageTypeError(op, f"out_dtype={out_dtype!r}: a tile matmul's result is the cube's accumulator, {acc!r}")
    return CubeTile(value, acc, MemorySpace.Acc, shape, valid)


def matmul_acc(acc: Any, lhs: Any, rhs: Any, init_cond: Any = None) -> CubeTile:
    """``pl.matmul_acc``: acc += lhs @ rhs in acc's own buffer (acc = lhs @
    rhs where `init_cond` holds); returns acc."""
    op = "pl.matmul_acc"
    if not isinstance(acc, CubeTile) or acc.memory is not MemorySpace.Acc:
        got = f"a {memory_of(acc).name} tile" if is_tile(acc) else type(acc).__name__
        raise UsageValueError(op, f"acc must be an Acc tile (from pl.matmul or pl.create_tile(..., target_memory=pl.Mem.Acc)), got {got}")
    _alive(op, acc, "acc")
    if len(acc.shape) != 2:
        raise UsageValueError(op, f"acc must be 2D, got {len(acc.shape)} dimensions")
    value, acc_dtype, shape, valid = _product(op, lhs, rhs)
    if acc.shape != shape:
        raise UsageValueError(op, f"acc is {acc.shape} but lhs @ rhs is {shape}")
    if valid[0] > acc.valid[0] or valid[1] > acc.valid[1]:
        raise UsageValueError(op, f"acc's valid part {acc.valid} does not cover the product's {valid}")
    if acc.dtype is not acc_dtype:
        raise UsageTypeError(op, f"acc must be {acc_dtype!r}, the accumulator of {lhs.dtype!r} operands, got {acc.dtype!r}")
    if value is None or acc.data is None:
        acc.data = None
    elif init_cond is not None and bool(init_cond):
        acc.data.copy_(value)
    else:
        acc.data.add_(value)
    return acc


__all__ = ["CubeTile", "MemorySpace", "TileLayout"]
