"""The vector unit's other arithmetic, on Vec tiles and on tensors:
``pl.abs``, ``neg``, ``exp``, ``log``, ``sqrt``, ``rsqrt``, ``recip``,
``relu``, ``pl.div``, ``pl.fillpad``, ``pl.transpose``, ``pl.arange``,
``pl.gather`` (its index form), the broadcasts ``pl.row_expand_{mul,div,add,sub}``
and ``pl.col_expand_{mul,div,add,sub}`` (and the copies ``row_expand``,
``col_expand``), ``pl.set_validshape``, and the rounding modes of
``pl.cast``.  Today's model code (pypto-lib's DeepSeek-V4 layers) writes
them on tensors; upstream's compiler lowers each to a load and a tile op.

libpld's C element-wise ops (pl_add and its kin) cover add, sub, mul,
maximum and minimum; these are computed with torch, here, on the tile's
values, and charged as libpld charges its own: one vector element
operation per valid element of the result (``charge_vector``).  Floats
compute in float32 and round to the result's dtype, as the vector unit's
arithmetic does.  An op of tensors (or of a value computed from tensors)
gives a tensor value; an op of tiles gives a tile."""

from __future__ import annotations

import enum
import math
from typing import Any

import _pldsim

from . import cube, state, tensor_ops
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import INT32 as _INT32
from .values import DataType, TensorValue, Tile, index_list, torch, torch_storage
from .where import caller


def operand(op: str, x: Any, what: str) -> tuple[Tile, bool]:
    """The Vec tile of `x` (a tensor, a value or a tile), and whether `x`
    is tensor-level: what every vector op starts from."""
    if isinstance(x, Tile):
        return x, False
    if isinstance(x, cube.CubeTile):
        if x.memory is cube.MemorySpace.Acc:  # drained to UB, as for pl.add (ops.py)
            return cube.move(x, cube.MemorySpace.Vec), False
        raise UsageTypeError(op, f"{what} is in {x.memory.name}: {op} runs on the vector core (pl.move it to Vec)")
    if tensor_ops.is_tensor(x):
        return tensor_ops.operand_tile(x, op, what), True
    raise UsageTypeError(op, f"{what} must be a tensor or a tile, got {type(x).__name__}")


def result(op: str, dt: DataType, shape: list[int], valid: list[int], data: Any, tensor_level: bool, elems: int | None = None) -> Any:
    """A vector op's result tile (or tensor value, `tensor_level`) holding
    `data`, charged `elems` vector element operations (default: one per
    valid element)."""
    cube.require_unit(op, state.VECTOR)
    tile = cube.vec_tile(op, dt, shape, valid, data)
    file, line = caller()
    _pldsim.charge_vector(file, line, op, math.prod(valid) if elems is None else elems)
    return TensorValue(tile) if tensor_level else tile


def _torch_dtype(dt: DataType) -> Any:
    return torch_storage(dt)


def _compute_dtype(dt: DataType) -> Any:
    th = torch()
    return th.float32 if dt.is_float else th.int64


_UNARY = {
    "abs": lambda th, x: x.abs(),
    "neg": lambda th, x: -x,
    "exp": lambda th, x: th.exp(x),
    "log": lambda th, x: th.log(x),
    "sqrt": lambda th, x: th.sqrt(x),
    "rsqrt": lambda th, x: th.rsqrt(x),
    "recip": lambda th, x: th.reciprocal(x),
    "relu": lambda th, x: th.relu(x),
}
_FLOAT_ONLY = ("exp", "log", "sqrt", "rsqrt", "recip")


def unary(kind: str) -> Any:
    """``pl.<kind>(x)`` of a tensor or a Vec tile."""
    op = f"pl.{kind}"

    def fn(x: Any, high_precision: bool = False) -> Any:
        # high_precision picks upstream's slower exact sequence; pldsim's
        # float32 arithmetic is that one already, at the same charge
        if not isinstance(high_precision, bool):
            raise UsageTypeError(op, f"high_precision must be True or False, got {high_precision!r}")
        t, tensor_level = operand(op, x, "the input")
        if kind in _FLOAT_ONLY and not t.dtype.is_float:
            raise UsageTypeError(op, f"{op} takes a float tensor or tile, got {t.dtype!r}")
        data = cube.values_of(op, t, "the input")
        if data is not None:
            data = _UNARY[kind](torch(), data.to(_compute_dtype(t.dtype)))
        return result(op, t.dtype, list(t.shape), cube.valid_of(t), data, tensor_level)

    fn.__name__ = kind
    return fn


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def plain_number(x: Any) -> Any:
    """A scalar that is not a Python number (a run-time dimension, a 0-dim
    tensor's value) as the int it stands for; anything else as it is."""
    if isinstance(x, (int, float, Tile, cube.CubeTile)) or tensor_ops.is_tensor(x):
        return x
    try:
        return x.__index__()
    except (AttributeError, TypeError):
        return x


def _second(op: str, a: Tile, rhs: Any, same_dtype: bool) -> tuple[Any, list[int], bool]:
    """The second operand of a binary op on tile `a`: a number, or a tensor
    or tile of a's shape (and dtype, `same_dtype`); returns its values (the
    number itself, or None without data), the valid part both operands
    share, and whether it is tensor-level."""
    rhs = plain_number(rhs)
    if _number(rhs):
        return rhs, cube.valid_of(a), False
    if not tensor_ops.is_tensor(rhs) and not isinstance(rhs, (Tile, cube.CubeTile)):
        raise UsageTypeError(op, f"the second operand must be a tensor, a tile or a number, got {type(rhs).__name__}")
    b, b_tensor = operand(op, rhs, "the second operand")
    if same_dtype and b.dtype is not a.dtype:
        raise UsageTypeError(op, f"the operands' dtypes differ: {a.dtype!r} and {b.dtype!r}")
    if list(b.shape) != list(a.shape):
        raise UsageValueError(op, f"the operands' shapes differ: {list(a.shape)} and {list(b.shape)}")
    valid = [min(x, y) for x, y in zip(cube.valid_of(a), cube.valid_of(b))]
    return cube.values_of(op, b, "the second operand"), valid, b_tensor


def div(lhs: Any, rhs: Any) -> Any:
    """``pl.div(a, b)``: a / b element-wise (b a tensor, a tile or a
    number); integers divide toward zero, as C's."""
    op = "pl.div"
    a, a_tensor = operand(op, lhs, "the first operand")
    b_data, valid, b_tensor = _second(op, a, rhs, True)
    if _number(b_data) and b_data == 0 and not a.dtype.is_float:
        raise UsageValueError(op, "an integer division by 0")
    data = cube.values_of(op, a, "the first operand")
    if data is not None and b_data is not None:
        x = data.to(_compute_dtype(a.dtype))
        y = b_data if _number(b_data) else b_data.to(_compute_dtype(a.dtype))
        data = x / y if a.dtype.is_float else torch().div(x, y, rounding_mode="trunc")
    return result(op, a.dtype, list(a.shape), valid, data, a_tensor or b_tensor)


_BROADCAST = {"mul": lambda x, y: x * y, "div": lambda x, y: x / y, "add": lambda x, y: x + y, "sub": lambda x, y: x - y,
              "copy": lambda x, y: y + 0 * x, "expdif": lambda x, y: (x - y).exp()}


def expand(axis: str, kind: str) -> Any:
    """``pl.row_expand_<kind>(t, col)`` (col: [rows, 1], one value per row)
    and ``pl.col_expand_<kind>(t, row)`` (row: [1, cols]); ``kind`` copy is
    ``row_expand`` / ``col_expand``, the broadcast itself, and expdif is
    exp(t - the broadcast)."""
    name = f"{axis}_expand" + ("" if kind == "copy" else f"_{kind}")
    op = f"pl.{name}"

    def fn(target: Any, vector: Any) -> Any:
        t, t_tensor = operand(op, target, "the first operand")
        v, v_tensor = operand(op, vector, "the second operand")
        shape = list(t.shape)
        if len(shape) != 2 or len(v.shape) != 2:
            raise UsageValueError(op, f"{op} takes 2D operands, got {shape} and {list(v.shape)}")
        want = [shape[0], 1] if axis == "row" else [1, shape[1]]
        if list(v.shape) != want:
            raise UsageValueError(op, f"the second operand must be {want} (one value per {axis}), got {list(v.shape)}")
        if kind != "copy" and v.dtype is not t.dtype:
            raise UsageTypeError(op, f"the operands' dtypes differ: {t.dtype!r} and {v.dtype!r}")
        valid = cube.valid_of(t)
        vv = cube.valid_of(v)
        valid = [min(valid[0], vv[0]), valid[1]] if axis == "row" else [valid[0], min(valid[1], vv[1])]
        data = cube.values_of(op, t, "the first operand")
        vdata = cube.values_of(op, v, "the second operand")
        if data is not None and vdata is not None:
            cd = _compute_dtype(t.dtype)
            data = _BROADCAST[kind](data.to(cd), vdata.to(cd))
            if not t.dtype.is_float and kind in ("div", "expdif"):
                raise UnsupportedError(op, f"{op} of integers is not supported by pldsim")
        return result(op, t.dtype, shape, valid, data, t_tensor or v_tensor)

    fn.__name__ = name
    return fn


def set_validshape(x: Any, *dims: Any) -> Any:
    """``pl.set_validshape(t, rows, cols)``: `t` whose valid part is now
    [rows, cols] (no copy, no cost): what a store of it writes.  A tensor
    in memory is loaded first, as any tensor-level operand."""
    op = "pl.set_validshape"
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    valid = index_list(list(dims), op, "the valid shape")
    if tensor_ops.is_tensor(x) and not isinstance(x, TensorValue):
        # a tensor in memory: loaded whole (the tile.load upstream's lowering adds)
        x = TensorValue(tensor_ops.operand_tile(x, op, "the tensor"))
    value = x._value if isinstance(x, TensorValue) else x
    if not cube.is_tile(value):
        raise UsageTypeError(op, f"{op} takes a tensor, a tile or a computed tensor value, got {type(x).__name__}")
    shape = list(value.shape)
    lead = len(shape) - len(valid)
    if lead < 0 or any(d != 1 for d in shape[:lead]):
        raise UsageValueError(op, f"a valid shape of {len(valid)} dimensions for a {shape} value")
    valid = [1] * lead + valid
    for i, (v, d) in enumerate(zip(valid, shape)):
        if not 0 <= v <= d:
            raise UsageValueError(op, f"valid dimension {i} is {v}, outside the value's {d}")
    if isinstance(value, cube.CubeTile):
        out: Any = cube.CubeTile(value.data, value.dtype, value.memory, shape, valid)
    else:
        out = Tile(_pldsim.tile_alias(value._tile, shape, valid))
    return TensorValue(out) if isinstance(x, TensorValue) else out


_ROUND = {
    "rint": lambda th, x: th.round(x),  # half to even
    "round": lambda th, x: th.sign(x) * th.floor(x.abs() + 0.5),  # half away from zero
    "floor": lambda th, x: th.floor(x),
    "ceil": lambda th, x: th.ceil(x),
    "trunc": lambda th, x: th.trunc(x),
}
_MODE_NAMES = {0: "none", 1: "rint", 2: "round", 3: "floor", 4: "ceil", 5: "trunc", 6: "odd"}


def rounding_cast(value: Any, target: DataType, mode: Any) -> Any:
    """A cast that rounds by `mode` (rint, round, floor, ceil, trunc; none
    is rint, the hardware's default), saturating to an integer target's
    range; a float target rounds as torch's conversion does."""
    op = "pl.cast"
    mode_name = _MODE_NAMES.get(mode, mode) if isinstance(mode, int) else mode
    if mode_name == "none":
        mode_name = "rint"
    if mode_name not in _ROUND:
        raise UnsupportedError(op, f"rounding mode {mode!r} is not supported by pldsim (rint, round, floor, ceil, trunc and none are)")
    t, tensor_level = operand(op, value, "the input")
    data = cube.values_of(op, t, "the input")
    if data is not None:
        th = torch()
        x = data.to(th.float64)
        if not target.is_float:
            x = _ROUND[mode_name](th, x)
            lo, hi = (0, (1 << target.bits) - 1) if target.name.startswith("UINT") else (-(1 << (target.bits - 1)), (1 << (target.bits - 1)) - 1)
            x = x.nan_to_num(0.0).clamp(lo, hi).to(th.int64)
        data = x
    return result(op, target, list(t.shape), cube.valid_of(t), data, tensor_level)


class PadValue(enum.Enum):
    """What ``pl.fillpad`` writes past a tile's valid part (upstream's)."""

    null = 0
    zero = 1
    max = 2
    min = 3


def _pad_number(op: str, pad_value: Any, dt: DataType) -> float:
    th = torch()
    info = th.finfo(_torch_dtype(dt)) if dt.is_float else th.iinfo(_torch_dtype(dt))
    if pad_value is PadValue.zero or (_number(pad_value) and pad_value == 0):
        return 0
    if pad_value is PadValue.max or (isinstance(pad_value, float) and pad_value == math.inf):
        return info.max
    if pad_value is PadValue.min or (isinstance(pad_value, float) and pad_value == -math.inf):
        return info.min
    raise UsageValueError(op, f"pad_value must be pl.PadValue.zero, .max or .min (or 0, math.inf, -math.inf), got {pad_value!r}")


def fillpad(x: Any, pad_value: Any = PadValue.zero) -> Any:
    """``pl.fillpad(t, pad_value=...)``: `t` with every element past its
    valid part set to zero, or the dtype's largest or smallest value; the
    result is valid throughout.  One vector element operation per element."""
    op = "pl.fillpad"
    t, tensor_level = operand(op, x, "the input")
    pad = _pad_number(op, pad_value, t.dtype)
    shape, valid = list(t.shape), cube.valid_of(t)
    data = cube.values_of(op, t, "the input")
    if data is not None:
        padded = torch().full(shape, pad, dtype=data.dtype)
        region = tuple(slice(0, v) for v in valid)
        padded[region] = data[region]
        data = padded
    return result(op, t.dtype, shape, shape, data, tensor_level)


def transpose(x: Any, axis1: Any, axis2: Any) -> Any:
    """``pl.transpose(t, axis1, axis2)``: `t` with two axes exchanged (the
    vector unit's transpose, one element operation per element); its valid
    part is exchanged with them."""
    op = "pl.transpose"
    t, tensor_level = operand(op, x, "the input")
    shape, valid = list(t.shape), cube.valid_of(t)
    axes = []
    for name, a in (("axis1", axis1), ("axis2", axis2)):
        if isinstance(a, bool) or not isinstance(a, int) or not -len(shape) <= a < len(shape):
            raise UsageValueError(op, f"{name} {a!r} is not an axis of the {len(shape)}-dimensional input")
        axes.append(a % len(shape))
    if axes[0] == axes[1]:
        raise UsageValueError(op, f"axis1 and axis2 name the same axis ({axes[0]})")
    i, j = axes
    shape[i], shape[j] = shape[j], shape[i]
    valid[i], valid[j] = valid[j], valid[i]
    data = cube.values_of(op, t, "the input")
    if data is not None:
        data = data.transpose(i, j).contiguous()
    return result(op, t.dtype, shape, valid, data, tensor_level)


def arange(start: Any, shape: Any, dtype: Any = None, descending: bool = False) -> TensorValue:
    """``pl.arange(start, [1, n], dtype=pl.INT32)`` (upstream's tensor.ci):
    start, start + 1, ... (or down, `descending`) along a [1, n] value of
    INT16, INT32 or UINT32 (pl.sort32's indices).  One vector element operation per element."""
    op = "pl.arange"
    dims = index_list(shape, op, "shape")
    dt = dtype if dtype is not None else _INT32
    if dt.name not in ("INT16", "INT32", "UINT32"):
        raise UsageTypeError(op, f"dtype must be pl.INT16, pl.INT32 or pl.UINT32, got {dt!r}")
    if not dims or any(d < 1 for d in dims[:-1]) or math.prod(dims[:-1]) != 1 or dims[-1] < 2:
        raise UsageValueError(op, f"the shape must be [1, ..., n] with n > 1 (the hardware fills one row), got {dims}")
    if isinstance(start, bool) or not isinstance(start, int):
        try:
            start = start.__index__()
        except (AttributeError, TypeError):
            raise UsageTypeError(op, f"start must be an integer, got {type(start).__name__}") from None
    if not isinstance(descending, bool):
        raise UsageTypeError(op, f"descending must be True or False, got {descending!r}")
    th = torch()
    step = -1 if descending else 1
    data = (start + step * th.arange(dims[-1], dtype=th.int64)).reshape(dims)
    return result(op, dt, dims, dims, data, True)


class MaskPattern(enum.IntEnum):
    """The column patterns of pl.gather's mask form, read from the right:
    P0101 keeps columns 0, 2, 4, ...; P1010 columns 1, 3, ...; P0001 to
    P1000 one column of every four; P1111 all of them."""

    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7


_MASK_STEP = {1: (0, 2), 2: (1, 2), 3: (0, 4), 4: (1, 4), 5: (2, 4), 6: (3, 4), 7: (0, 1)}


def _gather_mask(op: str, x: Any, pattern: Any, output_dtype: Any) -> Any:
    """The mask form: the columns `pattern` keeps, of every row."""
    if isinstance(pattern, bool) or not isinstance(pattern, int) or int(pattern) not in _MASK_STEP:
        raise UsageValueError(op, f"mask_pattern must be a pl.tile.MaskPattern (1..7), got {pattern!r}")
    t, tensor_level = operand(op, x, "the input")
    out_dt = t.dtype
    if output_dtype is not None:
        # the same bits seen as another type of their width: pl.sort32's
        # records keep each index's bits in a float word
        if not isinstance(output_dtype, DataType) or not output_dtype.code or output_dtype.bits != t.dtype.bits:
            raise UsageTypeError(op, f"output_dtype must be a pl dtype of {t.dtype!r}'s {t.dtype.bits} bits, got {output_dtype!r}")
        out_dt = output_dtype
    first, step = _MASK_STEP[int(pattern)]
    shape, valid = list(t.shape), cube.valid_of(t)
    if len(shape) != 2 or shape[1] % step:
        raise UsageValueError(op, f"the mask form takes a 2D input whose columns divide by {step}, got {shape}")
    out_shape = [shape[0], shape[1] // step]
    out_valid = [valid[0], max(0, (valid[1] - first + step - 1) // step)]
    data = cube.values_of(op, t, "the input")
    if data is not None:
        data = data[:, first::step].contiguous().view(_torch_dtype(out_dt))
    return result(op, out_dt, out_shape, out_valid, data, tensor_level)


def gather(x: Any, dim: Any = None, index: Any = None, *, mask_pattern: Any = None, output_dtype: Any = None, **kwargs: Any) -> Any:
    """``pl.gather(x, dim=-1, index=idx)``: out[b, k] = x[b, idx[b, k]],
    of a 2D operand; ``pl.gather(x, mask_pattern=...)``: the columns a
    pattern keeps (MaskPattern).  The compare form is not supported.  One
    vector element operation per element of the result."""
    op = "pl.gather"
    if kwargs:
        raise UnsupportedError(op, f"the compare form of pl.gather ({', '.join(sorted(kwargs))}) is not supported by pldsim")
    if mask_pattern is not None:
        if dim is not None or index is not None:
            raise UsageTypeError(op, "pl.gather takes either dim= and index= or mask_pattern=, not both")
        return _gather_mask(op, x, mask_pattern, output_dtype)
    t, t_tensor = operand(op, x, "the input")
    i, i_tensor = operand(op, index, "the index")
    if len(t.shape) != 2 or dim not in (-1, 1):
        raise UsageValueError(op, f"pl.gather takes a 2D input along dim=-1, got {list(t.shape)} and dim={dim!r}")
    want = "INT16" if t.dtype.name in ("FP16", "INT16") else "INT32"
    if i.dtype.name not in (want, "INT32"):
        raise UsageTypeError(op, f"the index must be {want} for a {t.dtype!r} input, got {i.dtype!r}")
    if len(i.shape) != 2 or i.shape[0] != t.shape[0]:
        raise UsageValueError(op, f"the index {list(i.shape)} must have the input's {t.shape[0]} rows")
    valid = [min(cube.valid_of(t)[0], cube.valid_of(i)[0]), cube.valid_of(i)[1]]
    data = cube.values_of(op, t, "the input")
    idx = cube.values_of(op, i, "the index")
    if data is not None and idx is not None:
        region = idx[: valid[0], : valid[1]].to(torch().int64)
        cols = cube.valid_of(t)[1]
        bad = (region < 0) | (region >= cols)
        if bool(bad.any()):
            r, c = (int(v) for v in bad.nonzero()[0])
            raise UsageValueError(op, f"index[{r}, {c}] is {int(region[r, c])}, outside the input's {cols} valid columns")
        out = torch().zeros(list(i.shape), dtype=data.dtype)
        out[: valid[0], : valid[1]] = torch().gather(data[: valid[0]], 1, region)
        data = out
    return result(op, t.dtype, list(i.shape), valid, data, t_tensor or i_tensor)


_CMP = {0: "eq", 1: "ne", 2: "lt", 3: "le", 4: "gt", 5: "ge"}


def cmp(lhs: Any, rhs: Any, cmp_type: Any = 0) -> Any:
    """``pl.cmp(a, b, cmp_type=...)`` (0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge;
    or the names): 1 where the comparison holds and 0 elsewhere, in a's
    dtype.  b is a tensor, a tile or a number.  One vector element operation
    per valid element."""
    op = "pl.cmp"
    mode = {v: k for k, v in _CMP.items()}.get(cmp_type, cmp_type) if isinstance(cmp_type, str) else cmp_type
    if isinstance(mode, bool) or mode not in _CMP:
        raise UsageValueError(op, f"cmp_type must be 0..5 (eq, ne, lt, le, gt, ge), got {cmp_type!r}")
    a, a_tensor = operand(op, lhs, "the first operand")
    b_data, valid, b_tensor = _second(op, a, rhs, False)
    data = cube.values_of(op, a, "the first operand")
    if data is not None and b_data is not None:
        x = data.to(_compute_dtype(a.dtype))
        y = b_data if _number(b_data) else b_data.to(_compute_dtype(a.dtype))
        data = getattr(torch(), _CMP[mode])(x, y).to(x.dtype)
    return result(op, a.dtype, list(a.shape), valid, data, a_tensor or b_tensor)


def scatter(x: Any, dim: Any = None, index: Any = None, src: Any = None, *, mask_pattern: Any = None, dst: Any = None) -> Any:
    """``pl.tensor.scatter``, the inverse of pl.gather: the mask form
    (``scatter(x, mask_pattern=P, dst=d)``: d with x's columns written into
    the columns P keeps) and the index form (``scatter(base, dim=-1,
    index=i, src=s)``: base with base[b, i[b, k]] = s[b, k]).  A new value;
    one vector element operation per element written."""
    op = "pl.tensor.scatter"
    if mask_pattern is not None:
        if dst is None or dim is not None or index is not None or src is not None:
            raise UsageTypeError(op, "the mask form takes mask_pattern= and dst= only")
        if isinstance(mask_pattern, bool) or not isinstance(mask_pattern, int) or int(mask_pattern) not in _MASK_STEP:
            raise UsageValueError(op, f"mask_pattern must be a pl.tile.MaskPattern (1..7), got {mask_pattern!r}")
        s, s_tensor = operand(op, x, "the input")
        d, d_tensor = operand(op, dst, "dst")
        first, step = _MASK_STEP[int(mask_pattern)]
        if len(s.shape) != 2 or list(d.shape) != [s.shape[0], s.shape[1] * step]:
            raise UsageValueError(op, f"dst must be [{s.shape[0]}, {s.shape[1] * step}] for a {list(s.shape)} input and this pattern, got {list(d.shape)}")
        if s.dtype is not d.dtype:
            raise UsageTypeError(op, f"the input is {s.dtype!r} and dst {d.dtype!r}")
        data, sdata = cube.values_of(op, d, "dst"), cube.values_of(op, s, "the input")
        if data is not None and sdata is not None:
            data = data.clone()
            data[:, first::step] = sdata
        return result(op, d.dtype, list(d.shape), cube.valid_of(d), data, s_tensor or d_tensor)
    if dim not in (-1, 1) or index is None or src is None:
        raise UsageTypeError(op, "pl.tensor.scatter takes dim=-1, index= and src=, or mask_pattern= and dst=")
    b, b_tensor = operand(op, x, "the input")
    i, _ = operand(op, index, "the index")
    v, v_tensor = operand(op, src, "src")
    if len(b.shape) != 2 or list(i.shape) != list(v.shape) or i.shape[0] != b.shape[0] or i.shape[1] > b.shape[1]:
        raise UsageValueError(op, f"the input [rows, S] {list(b.shape)}, index and src [rows, K <= S] {list(i.shape)}, {list(v.shape)} do not fit")
    data, idx, vals = cube.values_of(op, b, "the input"), cube.values_of(op, i, "the index"), cube.values_of(op, v, "src")
    if data is not None and idx is not None and vals is not None:
        cols = idx.to(torch().int64)
        if bool(((cols < 0) | (cols >= b.shape[1])).any()):
            raise UsageValueError(op, f"an index is outside the input's {b.shape[1]} columns")
        data = data.clone()
        data.scatter_(1, cols, vals.to(data.dtype))
    return result(op, b.dtype, list(b.shape), cube.valid_of(b), data, b_tensor or v_tensor)


def concat(a: Any, b: Any) -> Any:
    """``pl.concat(a, b)``: a and b side by side (columns of a, then of b),
    of one dtype and row count; valid where both are, in their rows.  One
    vector element operation per element."""
    op = "pl.concat"
    x, x_tensor = operand(op, a, "the first operand")
    y, y_tensor = operand(op, b, "the second operand")
    if len(x.shape) != 2 or len(y.shape) != 2 or x.shape[0] != y.shape[0]:
        raise UsageValueError(op, f"pl.concat joins 2D operands of one row count, got {list(x.shape)} and {list(y.shape)}")
    if x.dtype is not y.dtype:
        raise UsageTypeError(op, f"the operands' dtypes differ: {x.dtype!r} and {y.dtype!r}")
    shape = [x.shape[0], x.shape[1] + y.shape[1]]
    xv, yv = cube.valid_of(x), cube.valid_of(y)
    valid = [min(xv[0], yv[0]), shape[1] if xv[1] == x.shape[1] else xv[1]]
    xd, yd = cube.values_of(op, x, "the first operand"), cube.values_of(op, y, "the second operand")
    data = torch().cat([xd, yd], dim=1) if xd is not None and yd is not None else None
    return result(op, x.dtype, shape, valid, data, x_tensor or y_tensor)
