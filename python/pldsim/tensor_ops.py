"""Tensor-level ops in kernels: views (``pl.slice``, ``pl.tensor.slice``,
``x[a:b, c:d]``), ``pl.assemble`` (and ``x[a:b, c:d] = value``), and the
element-wise ops and ``pl.cast`` on tensors.

Upstream's ConvertTensorToTileOps lowers these to tile ops: a slice is a
view of its tensor's memory, an element-wise op loads its tensor operands
into UB (``tile.load``) and computes a tile, and an assemble stores a value
(``tile.store``).  pldsim runs exactly that: a slice is a libpld view (of a
host tensor, or of a window, which stays a window), a computed value is a
:class:`TensorValue` holding its tile, and each load and store is priced and
traced as the op the user wrote."""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any

import _pldsim

from . import cube
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .state import DEVICE, kernel, level
from .values import (
    DELEGATES,
    HOST_NAMES,
    DataType,
    DistributedTensor,
    Tile,
    TensorValue,
    any_view,
    atomic_code,
    dtype_of_code,
    dtype_of_torch,
    lazy_zeros,
    index_list,
    int_range,
    is_torch_tensor,
    torch,
    torch_storage,
    typed_scalar,
)
from .where import caller


def is_tensor(x: Any) -> bool:
    """Is `x` tensor-level: a host tensor, a window view or a computed value?"""
    return is_torch_tensor(x) or isinstance(x, (DistributedTensor, TensorValue))


def _shape_of(x: Any) -> list[int]:
    return list(x.shape)


def _gm(x: Any) -> bool:
    return is_torch_tensor(x) or isinstance(x, DistributedTensor)


def operand_tile(x: Any, op: str, what: str) -> Tile:
    """The tile of tensor-level operand `x`: a computed value's own, or its
    memory loaded whole into UB (the tile.load upstream's lowering adds)."""
    if isinstance(x, TensorValue):
        if isinstance(x._value, cube.CubeTile):
            # a matmul's accumulator that a vector op reads: drained to UB
            return cube.move(x._value, cube.MemorySpace.Vec)
        return x._value
    if _gm(x):
        file, line = caller()
        v = any_view(x, op, what)
        shape, valid = load_extent(x)
        return Tile(_pldsim.load(file, line, v, [0] * len(shape), shape, valid, False, op))
    raise UsageTypeError(op, f"{what} must be a tensor, got {type(x).__name__}")


def load_extent(x: Any) -> tuple[list[int], list[int] | None]:
    """The shape of the tile a tensor operand loads into, and its valid
    part (None: all of it): a slice with valid_shape= (slice) is the view
    of its valid part, and loads as its whole shape, zero past that part."""
    full = getattr(x, "_pldsim_full", None)
    return (list(full), list(x.shape)) if full is not None else (list(x.shape), None)


# ---- host tensors in kernels -----------------------------------------------------------

_kernel_tensor: Any = None


def _kernel_tensor_class() -> Any:
    """KernelTensor, made when first needed (torch is imported then)."""
    global _kernel_tensor
    if _kernel_tensor is None:
        t = torch()

        class KernelTensor(t.Tensor):
            """A host tensor as a kernel sees it: the same memory (a torch
            alias), whose subscripts are upstream's tensor.slice / tensor.read
            / tensor.assemble, checked and priced, instead of torch's (which
            cut a slice at the edge and copy for free).  Every other torch
            operation is torch's, on a plain tensor."""

            __torch_function__ = t._C._disabled_torch_function_impl

            def __getitem__(self, key: Any) -> Any:
                return subscript_read(self, key)

            def __setitem__(self, key: Any, value: Any) -> None:
                subscript_write(self, key, value)

        # messages name a value's type as upstream's do: a pl.Tensor is "Tensor"
        KernelTensor.__name__ = KernelTensor.__qualname__ = "Tensor"
        _kernel_tensor = KernelTensor
    return _kernel_tensor


def in_kernel_form(v: Any) -> Any:
    """A kernel's argument as the kernel sees it: a host tensor becomes
    a KernelTensor alias of it; anything else is itself."""
    if is_torch_tensor(v) and v.dim() > 0:
        return v.as_subclass(_kernel_tensor_class())
    return v


def dim(tensor: Any, axis: Any) -> int:
    """``pl.tensor.dim(t, axis)``: the extent of dimension `axis` of `t`
    (negative counts from the last), a run-time int where it is dynamic."""
    op = "pl.tensor.dim"
    shape = getattr(tensor, "shape", None)
    if shape is None or isinstance(tensor, (int, float)):
        raise UsageTypeError(op, f"expects a tensor, got {type(tensor).__name__}")
    shape = list(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        raise UsageValueError(op, f"axis {axis!r} is not one of the tensor's {len(shape)} dimensions {shape}")
    return int(shape[axis])


# ---- views ---------------------------------------------------------------------------


def _host_slice(t: Any, shape: list[int], offsets: list[int], drop: list[int]) -> Any:
    """The torch view of that region (libpld has checked it)."""
    view = t
    for d, (o, n) in enumerate(zip(offsets, shape)):
        view = view.narrow(d, o, n)
    for d in reversed(drop):
        view = view.select(d, 0)
    return view


def make_slice(tensor: Any, shape: Any, offset: Any, op: str, drop: list[int] | None = None) -> Any:
    """The view of `tensor` of `shape` at `offset`, with the unit dims
    `drop` removed: a torch view of a host tensor, a window view of a window."""
    shp, off = index_list(shape, op, "shape"), index_list(offset, op, "offset")
    drop = drop or []
    if isinstance(tensor, Tile):
        raise UnsupportedError(op, "slicing a tile (tile.slice) is not supported by pldsim: pl.load the region you need")
    if isinstance(tensor, TensorValue):
        raise UnsupportedError(op, "slicing a computed tensor value is not supported by pldsim: write it to a tensor (pl.assemble) and slice that")
    if not _gm(tensor):
        raise UsageTypeError(op, f"the tensor must be a pl.Tensor or a pld.DistributedTensor, got {type(tensor).__name__}")
    file, line = caller()
    v = _pldsim.slice(file, line, any_view(tensor, op, "the tensor"), shp, off, drop)
    if isinstance(tensor, DistributedTensor):
        return DistributedTensor(v)
    view = _host_slice(tensor, shp, off, drop)
    return in_kernel_form(view) if isinstance(tensor, _kernel_tensor_class()) else view


def reshape(tensor: Any, shape: Any, op: str = "pl.reshape") -> Any:
    """A tensor seen with another shape of as many elements (no copy, no
    cost): a host tensor's torch view, a window's window view."""
    new = index_list(shape, op, "shape")
    old = _shape_of(tensor)
    if not new or any(d <= 0 for d in new) or math.prod(new) != math.prod(old):
        raise UsageValueError(op, f"cannot reshape a tensor of {math.prod(old)} elements ({old}) into {new}")
    if isinstance(tensor, DistributedTensor):
        return DistributedTensor(_pldsim.view_as(tensor._view, new))
    if not is_torch_tensor(tensor):
        raise UsageTypeError(op, f"{op} expects a tensor, got {type(tensor).__name__}")
    if not tensor.is_contiguous():
        raise UnsupportedError(op, f"reshaping a strided view ({old}, strides {list(tensor.stride())}) is not supported by pldsim: reshape the whole tensor, then slice")
    view = tensor.view(new)
    return in_kernel_form(view) if isinstance(tensor, _kernel_tensor_class()) else view


def create_tensor(shape: Any, dtype: Any, layout: Any = None, manual_dep: bool = False, init_value: Any = None) -> Any:
    """``pl.create_tensor(shape, dtype=..., init_value=...)``: a new tensor
    in the device's global memory, filled with `init_value` (upstream's
    runtime fills it on the AICPU before any kernel runs) or, without one,
    zeros here (undefined on hardware).  Costs nothing.  As upstream's
    codegen, a non-zero fill of an FP16 or BF16 tensor is refused."""
    op = "pl.create_tensor"
    dims = index_list(shape, op, "shape")
    if not dims or any(d <= 0 for d in dims):
        raise UsageValueError(op, f"the shape must be positive dimensions, got {dims}")
    if not isinstance(dtype, DataType) or not dtype.torch_name:
        raise UsageTypeError(op, f"dtype must be a pl dtype pldsim has (such as pl.FP32), got {dtype!r}")
    if layout is not None and getattr(layout, "name", layout) not in ("ND", "nd"):
        raise UnsupportedError(op, f"layout={layout!r}: pldsim's tensors are ND")
    t = lazy_zeros(dims, torch_storage(dtype))
    if init_value is not None:
        if isinstance(init_value, bool) or not isinstance(init_value, (int, float)):
            raise UsageTypeError(op, f"init_value must be a number, got {type(init_value).__name__}")
        if init_value != 0 and dtype.name in ("FP16", "BF16"):
            raise UsageValueError(op, f"a non-zero init_value ({init_value!r}) of a {dtype.name} tensor: upstream's codegen fills only integer and 32/64-bit float tensors (use pl.full)")
        span = int_range(dtype)
        if span is not None and (not float(init_value).is_integer() or not span[0] <= init_value <= span[1]):
            raise UsageValueError(op, f"init_value {init_value!r} is not a {dtype.name}: expected an integer from {span[0]} to {span[1]}")
        if init_value != 0:
            t.fill_(init_value)
    # kept for the run: freed, its memory could come back as another rank's
    # scratch tensor, which the race detector (keyed by address) would take
    # for this one
    _SCRATCH.append(t)
    file, line = caller()
    HOST_NAMES.add(t, f"pl.create_tensor at {file.rsplit('/', 1)[-1]}:{line}")
    return in_kernel_form(t) if kernel() is not None else t


_SCRATCH: list[Any] = []


def slice(tensor: Any, shape: Any, offset: Any, valid_shape: Any = None, drop_dims: Any = None, pad_value: Any = None, clamp: bool = False) -> Any:  # noqa: A001 - upstream's name
    """``pl.slice`` / ``pl.tensor.slice``: a view of `shape` at `offset`."""
    op = "pl.slice"
    if pad_value is not None or clamp:
        raise UnsupportedError(op, "pad_value= and clamp= of a tensor slice are not supported by pldsim (pl.load has clamp=)")
    drop = [] if drop_dims is None else index_list(drop_dims, op, "drop_dims")
    drop = sorted(set(drop))
    if isinstance(tensor, TensorValue) and not drop:
        return _slice_value(tensor, shape, offset, valid_shape, op)
    if valid_shape is None:
        return make_slice(tensor, shape, offset, op, drop)
    full = index_list(shape, op, "shape")
    valid = index_list(valid_shape, op, "valid_shape")
    if len(valid) != len(full) or any(not 1 <= v <= d for v, d in zip(valid, full)):
        raise UsageValueError(op, f"valid_shape {valid} does not fit the slice's shape {full} (each dimension 1..its extent)")
    if valid == full:
        return make_slice(tensor, shape, offset, op, drop)
    if drop:
        raise UnsupportedError(op, "valid_shape= with drop_dims= is not supported by pldsim")
    if isinstance(tensor, DistributedTensor):
        raise UnsupportedError(op, "valid_shape= of a window slice is not supported by pldsim (of a host tensor's, it is)")
    # the view is the valid part, which alone must lie in the tensor (the
    # slice may run past its end); a load reads it as the whole shape,
    # zero past the valid part, as upstream's valid_shape zero-fills
    view = make_slice(tensor, valid, offset, op)
    view._pldsim_full = full
    return view


def _slice_value(value: TensorValue, shape: Any, offset: Any, valid_shape: Any, op: str) -> TensorValue:
    """A region of a computed value (upstream's tile.slice of its tile): a
    new value of `shape`, valid where both the region and `valid_shape`
    cover the value's valid part.  A view in UB: it costs nothing."""
    t = operand_tile(value, op, "the value")  # an accumulator is drained to UB first
    full, shp, off = list(t.shape), index_list(shape, op, "shape"), index_list(offset, op, "offset")
    lim = shp if valid_shape is None else index_list(valid_shape, op, "valid_shape")
    given = "" if valid_shape is None else f" (valid_shape {lim})"  # name only what the call gave
    if not len(shp) == len(off) == len(lim) == len(full):
        raise UsageValueError(op, f"the shape {shp} and offsets {off}{given} must each have the value's {len(full)} dimensions")
    for d, (o, n, v, f) in enumerate(zip(off, shp, lim, full)):
        if o < 0 or n < 1 or o + n > f or not 1 <= v <= n:
            raise UsageValueError(op, f"region {shp} at {off}{given} does not fit the value {full} in dimension {d}")
    valid = [max(0, min(v, tv - o)) for v, tv, o in zip(lim, cube.valid_of(t), off)]
    if shp == full and not any(off):
        return TensorValue(Tile(_pldsim.tile_alias(t._tile, full, valid)))
    data = cube.values_of(op, t, "the value")
    if data is not None:
        data = data[tuple(builtins.slice(o, o + n) for o, n in zip(off, shp))].clone()
    return TensorValue(cube.vec_tile(op, t.dtype, shp, valid, data))


def _subscript(
    shape: list[int], key: Any, op: str, filled: list[int] | None = None, overread: bool = False
) -> tuple[list[int], list[int], list[int]]:
    """Offsets, extents and dropped dims of ``x[key]`` for a tensor of
    `shape`, as upstream's parser reads a subscript: an int indexes (and
    drops) its dim, a slice keeps it, missing trailing dims are ``:``.
    `filled`, per slice, is how much of it a write fills (a value's valid
    part): only that much must lie inside the tensor.  With `overread`, a
    slice may run past the tensor's end, as long as it starts inside."""
    items = list(key) if isinstance(key, tuple) else [key]
    if len(items) > len(shape):
        raise UsageTypeError(op, f"Tensor subscript has {len(items)} indices but the tensor is {len(shape)}D")
    offsets, extents, drop = [], [], []
    for d, n in enumerate(shape):
        it = items[d] if d < len(items) else builtins.slice(None)
        if isinstance(it, builtins.slice):
            if it.step not in (None, 1):
                raise UnsupportedError(op, f"a slice step ({it.step}) is not supported: upstream's subscripts are contiguous")
            lo = 0 if it.start is None else index_list(it.start, op, "a slice start")[0]
            hi = n if it.stop is None else index_list(it.stop, op, "a slice stop")[0]
            need = hi if filled is None or len(offsets) - len(drop) >= len(filled) else lo + filled[len(offsets) - len(drop)]
            if overread:
                need = min(need, lo + 1)
            if not (0 <= lo < hi and need <= n):
                raise UsageValueError(op, f"slice {lo}:{hi} of dim {d} is outside the tensor's {n} (or empty)")
            offsets.append(lo)
            extents.append(hi - lo)
        else:
            try:
                i = index_list(it, op, "an index")[0]
            except UsageTypeError:
                raise UsageTypeError(op, f"index {it!r} of dim {d}: expected an int or a slice") from None
            if not 0 <= i < n:
                raise UsageValueError(op, f"index {i} of dim {d} is outside the tensor's {n}")
            offsets.append(i)
            extents.append(1)
            drop.append(d)
    return offsets, extents, drop


def subscript_read(tensor: Any, key: Any) -> Any:
    """``x[key]`` of a window view or of a host tensor in a kernel: a view
    (tensor.slice), or with every dim indexed, one element (tensor.read)."""
    op = "tensor.slice"
    host = not isinstance(tensor, (TensorValue, Tile, cube.CubeTile, DistributedTensor))
    shape = _shape_of(tensor)
    offsets, extents, drop = _subscript(shape, key, op, overread=host)
    clipped = [min(e, n - o) for e, n, o in zip(extents, shape, offsets)]
    if clipped != extents:
        return _overread(tensor, offsets, extents, clipped, drop, op)
    if isinstance(tensor, (TensorValue, Tile, cube.CubeTile)):
        if drop:
            raise UnsupportedError(op, "indexing a computed value or a tile with an int is not supported by pldsim: slice it (v[i:i+1, ...])")
        if isinstance(tensor, cube.CubeTile):
            return cube.region(tensor, offsets, extents, op)
        if isinstance(tensor, Tile):  # a tile's region is a tile (tile.slice)
            return _slice_value(TensorValue(tensor), extents, offsets, None, op)._value
        return _slice_value(tensor, extents, offsets, None, op)
    if len(drop) == len(extents):
        return read(tensor, offsets)
    return make_slice(tensor, extents, offsets, op, drop)


_OVERREAD_WARNED: set[tuple[str, int]] = set()


def _overread(tensor: Any, offsets: list[int], extents: list[int], inside: list[int], drop: list[int], op: str) -> Any:
    """``x[a:b]`` of a host tensor whose slice runs past the tensor's end, as
    the model files' fixed-size tiles do on a short last block (mtp's
    hc_head reads 16 rows of an 8-row tensor): the load the slice lowers to
    reads the whole extent on hardware, whatever lies past the tensor in
    global memory.  Here the part inside is read and is the view's valid
    part, the rest zeros, as a slice with valid_shape (what is computed from
    it is valid there, and a write of it writes that part); the line is
    warned about once, since on hardware those rows hold another tensor's
    bytes."""
    if drop:
        raise UsageValueError(op, f"the slice runs past the tensor's end {_shape_of(tensor)} (offsets {offsets}, extents {extents}) and indexes a dimension too; slice it")
    file, line = caller()
    if (file, line) not in _OVERREAD_WARNED:
        _OVERREAD_WARNED.add((file, line))
        sys.stdout.flush()
        print(
            f"{file}:{line}: {op}: warning: the slice {extents} at {offsets} runs past the tensor's end "
            f"{_shape_of(tensor)}; hardware reads whatever follows it in global memory, pldsim reads the part inside "
            "(the rest is zeros past the valid part, as in a valid_shape slice)",
            file=sys.stderr,
            flush=True,
        )
    view = make_slice(tensor, inside, offsets, op)
    view._pldsim_full = list(extents)
    return view


def _write_into_value(target: Any, key: Any, value: Any) -> None:
    """``v[a:b, c:d] = x`` of a computed value or a Vec tile (upstream's
    tile.assemble into the tile): `x`, a tensor (loaded, priced as a load),
    a value or a tile, copied into that region of v's tile in UB, one
    vector element operation per element."""
    op = "tile.assemble"
    t = target._value if isinstance(target, TensorValue) else target
    if isinstance(t, cube.CubeTile):
        raise UnsupportedError(op, "writing into a cube tile (an accumulator) is not supported by pldsim")
    offsets, extents, drop = _subscript(_shape_of(target), key, op)
    want = [n for d, n in enumerate(extents) if d not in drop]
    if not is_tensor(value) and not isinstance(value, Tile):
        raise UsageTypeError(op, f"Subscript-write source must be a tensor or a tile, got {type(value).__name__}")
    if _shape_of(value) != want:
        raise UsageValueError(op, f"Subscript-write shape mismatch: the window is {want}, the source is {_shape_of(value)}")
    src = value if isinstance(value, Tile) else operand_tile(value, op, "the source")
    if src.dtype is not t.dtype:
        raise UsageTypeError(op, f"the source is {src.dtype!r} and the value {t.dtype!r}: pl.cast it first")
    data = cube.values_of(op, t, "the value")
    new = cube.values_of(op, src, "the source")
    if data is not None and new is not None:
        data[tuple(builtins.slice(o, o + n) for o, n in zip(offsets, extents))] = new.reshape(extents)
    _hold(target, t, data, op, math.prod(extents))


def tile_assemble(target: Any, source: Any, offset: Any) -> Any:
    """``pl.tile.assemble(target, source, offset)``: `source` (a Vec tile)
    written into Vec tile `target` at `offset`, as ``target[a:b, c:d] =
    source`` writes it; returns `target`, which now holds it."""
    op = "pl.tile.assemble"
    if not isinstance(target, Tile) or not isinstance(source, Tile):
        raise UsageTypeError(op, f"{op} writes a Vec tile into a Vec tile, got {type(target).__name__} and {type(source).__name__}")
    return _assemble_into_value(target, source, offset, op)


def _assemble_into_value(target: Any, source: Any, offset: Any, op: str) -> Any:
    """`source` (a tile, a value or a tensor) written into the Vec tile or
    computed value `target` at `offset`; returns `target`."""
    off = index_list(offset, op, "offset")
    shape = _shape_of(source)
    if len(off) != len(shape):
        raise UsageValueError(op, f"offset {off} must have one entry per dimension of the source {shape}")
    _write_into_value(target, tuple(builtins.slice(o, o + n) for o, n in zip(off, shape)), source)
    return target


def _hold(target: Any, t: Tile, data: Any, op: str, elems: int) -> None:
    """`target` (a value, or Vec tile `t` itself) now holds `data` (None:
    no values), written by `elems` vector element operations."""
    updated = cube.vec_tile(op, t.dtype, list(t.shape), cube.valid_of(t), data)
    if isinstance(target, TensorValue):
        target._value = updated
    else:
        target._tile = updated._tile  # the same Python tile, whose buffer now holds the update
    file, line = caller()
    _pldsim.charge_vector(file, line, op, elems)


def _flat_index(op: str, offset: Any, shape: list[int], error: type = UsageValueError) -> int:
    """The row-major position of element `offset` of a tile of `shape`
    (outside it: `error`, pl.read's being the TypeError it always was)."""
    idx = index_list(offset, op, "the index")
    if len(idx) != len(shape) or any(not 0 <= i < d for i, d in zip(idx, shape)):
        raise error(op, f"index {idx} is outside the tile {shape}")
    flat = 0
    for i, d in zip(idx, shape):
        flat = flat * d + i
    return flat


def write_element(target: Any, offset: Any, value: Any, op: str = "pl.tile.write") -> None:
    """``pl.tile.write(t, [i, j], x)`` of a Vec tile or a computed value:
    the number x, converted to its dtype, into one element, in UB; one
    vector element operation."""
    t = target._value if isinstance(target, TensorValue) else target
    if not isinstance(t, Tile):
        raise UnsupportedError(op, "writing into a cube tile (an accumulator) is not supported by pldsim")
    flat = _flat_index(op, offset, list(t.shape))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageTypeError(op, f"the value must be a number, got {type(value).__name__}")
    data = cube.values_of(op, t, "the tile")
    if data is not None:
        data.view(-1)[flat] = value
    _hold(target, t, data, op, 1)


def subscript_write(target: Any, key: Any, value: Any) -> None:
    """``x[key] = value``: upstream's tensor.assemble of `value` into the
    region (whose shape `value` must have, the indexed dims left out)."""
    op = "tensor.assemble"
    if isinstance(target, (TensorValue, Tile)):
        _write_into_value(target, key, value)
        return
    if not is_tensor(value):
        raise UsageTypeError(op, f"Subscript-write source must also be a tensor, got {type(value).__name__}")
    filled = cube.valid_of(value._value) if isinstance(value, TensorValue) else None
    offsets, extents, drop = _subscript(_shape_of(target), key, op, filled)
    want = [n for d, n in enumerate(extents) if d not in drop]
    fits = filled is not None and len(filled) == len(want) and all(f <= w for f, w in zip(filled, want))
    if _shape_of(value) != want and not fits:
        raise UsageValueError(op, f"Subscript-write shape mismatch: the window is {want}, the source is {_shape_of(value)}")
    if not drop and filled is not None:
        # the store writes the value's valid part at the offsets: the slice
        # may run past the tensor's end where the value holds nothing
        assemble(target, value, offsets, op=op)
        return
    region = make_slice(target, extents, offsets, op, drop)
    assemble(region, value, [0] * len(want), op=op)


def torch_function(func: Any, args: Any, kwargs: Any) -> Any:
    """What a torch function does when a window view or a computed value is
    an argument: ``host[key] = value`` is a tensor.assemble; nothing else
    is defined."""
    t = torch()
    if func is t.Tensor.__setitem__ and len(args) == 3 and not kwargs:
        subscript_write(args[0], args[1], args[2])
        return None
    return NotImplemented


def read(src: Any, offset: Any) -> Any:
    """``pl.read``: one element of a tensor (a GM access), or of a tile (no
    cost)."""
    op = "pl.read"
    if isinstance(src, TensorValue):
        src = operand_tile(src, op, "the value")  # an element of its tile
    if isinstance(src, Tile):
        flat = _flat_index(op, offset, list(src.shape), UsageTypeError)
        file, line = caller()
        return typed_scalar(_pldsim.tile_element(file, line, op, src._tile, flat), src.dtype)
    if level() == DEVICE and is_torch_tensor(src):
        # an orchestration function reads a host tensor's element on the
        # device's scheduler (AICPU), whose scalar work costs nothing here
        idx = index_list(offset, op, "the index")
        shape = list(src.shape)
        if len(idx) != len(shape) or any(not 0 <= i < d for i, d in zip(idx, shape)):
            raise UsageValueError(op, f"index {idx} is outside the tensor {shape}")
        return typed_scalar(src[tuple(idx)].item(), dtype_of_torch(src))
    file, line = caller()
    v = any_view(src, op, "the tensor")
    return typed_scalar(_pldsim.read(file, line, v, index_list(offset, op, "the index")), dtype_of_code(v.dtype))


# ---- assemble ------------------------------------------------------------------------


def assemble(target: Any, source: Any, offset: Any, *, atomic: Any = 0, op: str = "pl.assemble", tiled: bool = False) -> Any:
    """``pl.assemble`` / ``pl.tensor.assemble``: writes `source` (a tensor
    value, or a tensor loaded whole) into `target` at `offset`; returns
    `target`.  `tiled`: a tensor source larger than the UB is copied in
    blocks that fit it, as the copy task upstream's compiler outlines for
    an assemble in a per-device function is tiled."""
    if isinstance(source, Tile):
        raise UsageTypeError(op, f"{op} writes a tensor into a tensor; the source is a tile: write a tile with pl.store")
    if isinstance(target, TensorValue) and isinstance(target._value, Tile) and is_tensor(source):
        # into a computed value (a Vec tile in UB: pl.full, then assembled,
        # as qwen3_14b/prefill_fwd.py pads a head): upstream's tile.assemble
        if atomic_code(atomic, op):
            raise UnsupportedError(op, "an atomic assemble into a computed value is not supported by pldsim: assemble into a tensor")
        return _assemble_into_value(target, source, offset, op)
    if isinstance(target, (Tile, TensorValue)) or not _gm(target):
        raise UsageTypeError(op, f"the target of {op} must be a pl.Tensor or a pld.DistributedTensor, got {type(target).__name__}")
    code = atomic_code(atomic, op)
    if isinstance(source, TensorValue) and isinstance(source._value, cube.CubeTile):
        # a matmul's accumulator: the fixpipe writes its valid part out
        cube.store(_squeezed(source._value, len(index_list(offset, op, "offset"))), offset, target, code)
        return target
    if tiled and not isinstance(source, TensorValue) and _gm(source) and load_extent(source)[1] is None:
        off = index_list(offset, op, "offset")
        if len(off) == len(source.shape):
            _copy_in_blocks(target, source, off, [0] * len(off), list(source.shape), code, op)
            return target
    tile = operand_tile(source, op, "the source")
    file, line = caller()
    _pldsim.store(file, line, tile._tile, index_list(offset, op, "offset"), any_view(target, op, "the target"), code, op)
    return target


def _copy_in_blocks(target: Any, source: Any, dst: list[int], at: list[int], extent: list[int], code: int, op: str) -> None:
    """Copies the block `extent` of `source` at `at` to `target` at dst + at,
    split along its leading dimensions into the fewest loads that each fit
    the UB (a load and a store apiece)."""
    limit = _pldsim.ub_usable()
    elt = dtype_of_code(any_view(source, op, "the source").dtype).get_byte()
    d = next((i for i, n in enumerate(extent) if n > 1), len(extent))
    if limit <= 0 or math.prod(extent) * elt <= limit or d == len(extent):
        block = make_slice(source, extent, at, op)
        tile = operand_tile(block, op, "the source")
        file, line = caller()
        _pldsim.store(file, line, tile._tile, [a + b for a, b in zip(dst, at)], any_view(target, op, "the target"), code, op)
        return
    per = math.prod(extent[d + 1 :]) * elt  # bytes of one index of dimension d
    step = max(1, int(limit // per))
    for i in builtins.range(0, extent[d], step):
        sub_at, sub_extent = list(at), list(extent)
        sub_at[d] += i
        sub_extent[d] = min(step, extent[d] - i)
        _copy_in_blocks(target, source, dst, sub_at, sub_extent, code, op)


def _squeezed(t: Any, rank: int) -> Any:
    """Cube tile `t` with leading unit dims dropped down to `rank` dims."""
    shape, valid = list(t.shape), list(t.valid)
    while len(shape) > rank and shape[0] == 1:
        shape, valid = shape[1:], valid[1:]
    if shape == list(t.shape):
        return t
    return cube.CubeTile(None if t.data is None else t.data.reshape(shape), t.dtype, t.memory, shape, valid)


# what values.py's classes do for x[key], x[key] = v and torch functions
DELEGATES.subscript_read = subscript_read
DELEGATES.subscript_write = subscript_write
DELEGATES.torch_function = torch_function
