"""``pypto.language`` (``pl``) as pldsim defines it: the level decorators,
the local ops the distributed programs use (executed eagerly on the
simulated devices), and the op namespaces ``pl.tile``, ``pl.tensor``,
``pl.array`` and ``pl.system``.  ``pypto.language`` re-exports these
names, with the dtypes (values.py), the configuration types (config.py)
and the annotation types (annotations.py).

The decorators come in both of upstream's forms: ``@pl.jit.host`` /
``@pl.jit`` / ``@pl.jit.incore``, and ``@pl.program`` classes whose methods
are ``@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)``,
``@pl.function(type=pl.FunctionType.Orchestration)`` and
``@pl.function(type=pl.FunctionType.InCore)``.

Upstream's many other tile and tensor ops are named too
(``missing_names``); calling one that pldsim does not have raises
UnsupportedError saying so.

This module imports program.py, which installs ``Function.compile`` and
the call of a function outside any run (``levels.set_entry_points``), so
that a program that imports ``pypto.language`` has them."""

from __future__ import annotations

import functools as _functools
from typing import Any, Callable

from . import aiv_split as _aiv_split
from . import arrays as _arrays
from . import cube as _cube
from . import l1_gather as _l1_gather
from . import ops as _ops
from . import prefetch as _prefetch
from . import program as _program
from . import reduce as _reduce
from . import reinterpret as _reinterpret
from . import scopes as _scopes
from . import sort as _sort
from . import spmd as _spmd
from . import tensor_matmul as _tensor_matmul
from . import tensor_ops as _tensor_ops
from . import vector_math as _vector_math
from .comm import AtomicType
from .config import FunctionType, Level, Role
from .cube import MemorySpace
from .errors import UnsupportedError
from .errors import UsageTypeError as _UsageTypeError
from . import levels as _levels
from .annotations import dims_bound as _dims_bound
from .levels import Function
from .scopes import At as _At
from .scopes import manual_scope as _manual_scope
from .state import CUBE, DEVICE, HOST, KERNEL, MIXED, VECTOR
from .values import DataType, TensorValue

load = _ops.load
store = _ops.store
add = _ops.add
mul = _ops.mul
sub = _ops.sub
maximum = _ops.maximum
minimum = _ops.minimum
max = _ops.maximum  # noqa: A001 - upstream's alias
min = _ops.minimum  # noqa: A001
read = _tensor_ops.read
reinterpret_view = _reinterpret.reinterpret_view
write = _ops.write
cast = _ops.cast
range = _ops.range  # noqa: A001 - upstream's name
slice = _tensor_ops.slice  # noqa: A001 - upstream's name
assemble = _scopes.assemble
parallel = _ops.parallel
unroll = _ops.unroll
pipeline = _ops.pipeline
Mem = MemorySpace  # upstream's short alias: pl.Mem.Vec
move = _cube.move


def create_tile(shape: Any, dtype: Any, target_memory: Any = MemorySpace.Vec, transpose: Any = None, *, flat_layout: Any = None) -> Any:
    """A new tile of `shape` and `dtype` in `target_memory` (pldsim/cube.py)."""
    return _cube.create(shape, dtype, target_memory, transpose, flat_layout=flat_layout, op="pl.create_tile")


spmd_submit = _spmd.spmd_submit
spmd = _scopes.spmd
scope = _scopes.scope
ScopeMode = _scopes.ScopeMode
submit = _spmd.submit
get_block_idx = _spmd.get_block_idx
get_block_num = _spmd.get_block_num
get_subblock_idx = _spmd.get_subblock_idx
reshape = _reduce.unified_reshape
row_sum = _reduce.unified("sum", "row")
row_max = _reduce.unified("max", "row")
row_min = _reduce.unified("min", "row")
row_prod = _reduce.unified("prod", "row")
col_sum = _reduce.unified("sum", "col")
col_max = _reduce.unified("max", "col")
col_min = _reduce.unified("min", "col")
col_prod = _reduce.unified("prod", "col")

abs = _vector_math.unary("abs")  # noqa: A001 - upstream's name
neg = _vector_math.unary("neg")
exp = _vector_math.unary("exp")
log = _vector_math.unary("log")
sqrt = _vector_math.unary("sqrt")
rsqrt = _vector_math.unary("rsqrt")
recip = _vector_math.unary("recip")
relu = _vector_math.unary("relu")
div = _vector_math.div
set_validshape = _vector_math.set_validshape
fillpad = _vector_math.fillpad
transpose = _vector_math.transpose
arange = _vector_math.arange
cmp = _vector_math.cmp
concat = _vector_math.concat
scatter = _vector_math.scatter
sort32 = _sort.sort32
mrgsort = _sort.mrgsort
split_aiv = _aiv_split.split_aiv
aiv_shard = _aiv_split.aiv_shard
aic_gather = _aiv_split.aic_gather
SplitMode = _aiv_split.SplitMode
split = _aiv_split.split
cross_core_slot = _aiv_split.cross_core_slot
gather = _vector_math.gather
PadValue = _vector_math.PadValue
row_expand = _vector_math.expand("row", "copy")
col_expand = _vector_math.expand("col", "copy")
row_expand_mul = _vector_math.expand("row", "mul")
row_expand_div = _vector_math.expand("row", "div")
row_expand_add = _vector_math.expand("row", "add")
row_expand_sub = _vector_math.expand("row", "sub")
col_expand_mul = _vector_math.expand("col", "mul")
col_expand_div = _vector_math.expand("col", "div")
col_expand_add = _vector_math.expand("col", "add")
col_expand_sub = _vector_math.expand("col", "sub")
row_expand_expdif = _vector_math.expand("row", "expdif")
col_expand_expdif = _vector_math.expand("col", "expdif")
create_tensor = _tensor_ops.create_tensor
create_l1 = _l1_gather.create_l1
gather_row = _l1_gather.gather_row
_VECTOR_MATH = dict(
    abs=abs, neg=neg, exp=exp, log=log, sqrt=sqrt, rsqrt=rsqrt, recip=recip, relu=relu, div=div, fillpad=fillpad, transpose=transpose, gather=gather, cmp=cmp, concat=concat, sort32=sort32, mrgsort=mrgsort,
    row_expand=row_expand, col_expand=col_expand, row_expand_mul=row_expand_mul, row_expand_div=row_expand_div,
    row_expand_add=row_expand_add, row_expand_sub=row_expand_sub, col_expand_mul=col_expand_mul,
    col_expand_div=col_expand_div, col_expand_add=col_expand_add, col_expand_sub=col_expand_sub,
    row_expand_expdif=row_expand_expdif, col_expand_expdif=col_expand_expdif,
)

_TILE_FLAG = "at tile level a transpose is the tile's own layout, and the accumulator's is fixed"


def matmul(lhs: Any, rhs: Any, out_dtype: Any = None, a_trans: bool = False, b_trans: bool = False, c_matrix_nz: bool = False) -> Any:
    """lhs @ rhs of two tiles: an Acc tile (pldsim/cube.py)."""
    if _cube.is_tile(lhs) and _cube.is_tile(rhs):
        for name, given in (("a_trans", a_trans), ("b_trans", b_trans), ("c_matrix_nz", c_matrix_nz)):
            if given:
                raise _UsageTypeError("pl.matmul", f"'{name}' is not supported for Tile operands: {_TILE_FLAG}")
        return _cube.matmul(lhs, rhs, out_dtype)
    _check_tensor_operands("pl.matmul", lhs, rhs)
    return _tensor_matmul.matmul(lhs, rhs, out_dtype, a_trans, b_trans)


def matmul_acc(acc: Any, lhs: Any, rhs: Any, a_trans: bool = False, b_trans: bool = False, init_cond: Any = None) -> Any:
    """acc += lhs @ rhs of tiles, in acc's buffer (pldsim/cube.py)."""
    if _cube.is_tile(acc) and _cube.is_tile(lhs) and _cube.is_tile(rhs):
        for name, given in (("a_trans", a_trans), ("b_trans", b_trans)):
            if given:
                raise _UsageTypeError("pl.matmul_acc", f"'{name}' is not supported for Tile operands: {_TILE_FLAG}")
        return _cube.matmul_acc(acc, lhs, rhs, init_cond)
    _check_tensor_operands("pl.matmul_acc", acc, lhs, rhs)
    return _tensor_matmul.matmul_acc(acc, lhs, rhs, a_trans, b_trans, init_cond)


def _check_tensor_operands(op: str, *operands: Any) -> None:
    if not all(_tensor_ops.is_tensor(x) for x in operands):
        kinds = ", ".join(type(x).__name__ for x in operands)
        raise _UsageTypeError(op, f"{op} expects all tiles or all tensors, got {kinds}")


def full(shape: Any, dtype: Any, value: Any) -> Any:
    """``pl.full``: a tensor value of `shape` filled with `value`, in UB (as
    upstream lowers it to tile.full)."""
    return TensorValue(_cube.full(shape, dtype, value, op="pl.full"))


def _jit_decorator(kind: str, name: str):
    def deco(func: Any = None, **kwargs: Any) -> Any:
        if func is None:
            return lambda f: Function(f, kind, name)
        return Function(func, kind, name)

    return deco


def inline(func: Any = None, **kwargs: Any) -> Any:
    """A helper inlined where it is called: on pldsim, a plain function,
    whose ``with pl.at(...)`` bodies are tasks of its caller's scope (made
    so when it is first called)."""

    def wrap(f: Any) -> Any:
        made: list[Any] = []
        _levels.bind_module_self(f)

        @_functools.wraps(f)
        def call(*args: Any, **kw: Any) -> Any:
            if not made:
                made.append(_scopes.rewrite(f))
            # its own pl.dynamic bindings (bind_dynamic in its body), as
            # upstream sizes a helper on its own; it still reads its caller's
            with _dims_bound({}):
                return made[0](*args, **kw)

        return call

    return wrap if func is None else wrap(func)


class _JIT:
    """``@pl.jit`` (a per-device function), ``@pl.jit.host`` (the host
    orchestrator), ``@pl.jit.incore`` (a kernel) and ``@pl.jit.inline`` (a
    helper inlined into its caller)."""

    def __init__(self) -> None:
        self.host = _jit_decorator(HOST, "@pl.jit.host")
        self.incore = _jit_decorator(KERNEL, "@pl.jit.incore")
        # a helper upstream inlines into its caller: on pldsim, a plain function
        self.inline = inline

    def __call__(self, func: Any = None, **kwargs: Any) -> Any:
        return _jit_decorator(DEVICE, "@pl.jit")(func, **kwargs)


jit = _JIT()
JITFunction = Function


def _function_kind(type: Any, level: Any, role: Any) -> str | None:  # noqa: A002 - upstream's keyword
    if level is not None and not isinstance(level, Level):
        raise TypeError(f"@pl.function(level=...) expects a pl.Level, got {level!r}")
    if role is not None and not isinstance(role, Role):
        raise TypeError(f"@pl.function(role=...) expects a pl.Role, got {role!r}")
    if type is not None and not isinstance(type, FunctionType):
        raise TypeError(f"@pl.function(type=...) expects a pl.FunctionType, got {type!r}")
    if level is Level.HOST:
        if role is Role.SubWorker:
            raise UnsupportedError("@pl.function", "host sub-workers are not supported by pldsim")
        return HOST
    if type in (FunctionType.InCore, FunctionType.AIV, FunctionType.AIC):
        return KERNEL
    if type is FunctionType.Orchestration:
        return DEVICE
    if type in (None, FunctionType.Opaque, FunctionType.Inline):
        return None  # a plain helper, inlined where it is called
    raise UnsupportedError("@pl.function", f"{type} functions are not supported by pldsim")


def function(func: Any = None, *, type: Any = None, level: Any = None, role: Any = None, **kwargs: Any) -> Any:  # noqa: A002
    """A function of a ``@pl.program`` class; its level comes from
    ``type=`` (InCore, Orchestration) or ``level=pl.Level.HOST``."""
    kind = _function_kind(type, level, role)
    # an AIC function runs on a cube core, an AIV function on a vector core
    unit = {FunctionType.AIC: CUBE, FunctionType.AIV: VECTOR}.get(type, MIXED)

    def wrap(f: Any) -> Any:
        if kind is None:
            return inline(f)
        return Function(f, kind, "@pl.function", unit)

    return wrap if func is None else wrap(func)


def program(cls: Any) -> Any:
    """Marks a class whose ``@pl.function`` methods form a program; compile
    it with ``ir.compile``."""
    if not isinstance(cls, type):
        raise TypeError(f"@pl.program decorates a class, got {cls!r}")
    cls.__pldsim_program__ = True
    return cls


def at(level: Any = None, **kwargs: Any) -> Any:
    """``with pl.at(level=pl.Level.CORE_GROUP, name_hint=..., deps=[...]) as
    tid:`` in a per-device function: the body is a task on one AIV core
    (a task of the enclosing ``pl.manual_scope()``, or run at once)."""
    return _At(level, **kwargs)


def manual_scope() -> Any:
    """``with pl.manual_scope():``: the ``pl.at`` tasks inside form one task
    graph with only their explicit deps; it runs on the device's cores."""
    return _manual_scope()


def const(value: Any, dtype: Any) -> Any:
    """A constant of `dtype`: on pldsim, the number itself (an int for an
    integer dtype, a float for a float one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _UsageTypeError("pl.const", f"pl.const takes a number, got {type(value).__name__}")
    if not isinstance(dtype, DataType):
        raise _UsageTypeError("pl.const", f"dtype must be a pl dtype such as pl.INT32, got {dtype!r}")
    return float(value) if dtype.is_float else int(value)


def static_print(*args: Any) -> None:
    print(*args)


def no_dep(tensor: Any) -> Any:
    """``pl.no_dep(t)``: `t` passed to a submitted kernel without making
    the task depend on its last writer.  pldsim's tasks depend only on
    their ``deps=`` and on program order, never on the tensors they take,
    so the mark changes nothing here and `t` is passed as it is."""
    return tensor


def static_assert(condition: Any, msg: str = "") -> None:
    if not condition:
        raise AssertionError(msg or "pl.static_assert failed")


# Upstream names that pldsim does not implement: using one says so.
_UPSTREAM_ONLY = frozenset(
    """part_add part_mul part_max part_min batch_matmul row_argmax row_argmin
    col_argmax col_argmin row_expand_max row_expand_min col_expand_max col_expand_min
    expand_clone expands fillpad_expand gatherb mgather mscatter matmul_bias matmul_mx
    matmul_mx_acc matmul_mx_bias gemv gemv_acc gemv_bias cmps rem rems fmod fmods and_ ands or_
    ors xor xors shl shls shr shrs maximums minimums prelu not_ addc subc addsc subsc lrelu sel
    sels tri tpush_to_aiv tpush_to_aic tpop_from_aic tpop_from_aiv aic_initialize_pipe
    aiv_initialize_pipe reserve_buffer import_peer_buffer tfree_to_aic tfree_to_aiv cos dim
    dump_tag scatter_update sin paged_gather random
    while_ cond func_attr cluster parse loads parse_program loads_program Tuple RUNTIME""".split()
)


def missing_names(module: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of `module` (``pypto.language`` installs
    it): an upstream name that pldsim does not implement is a function
    that raises UnsupportedError saying so; any other name is missing."""

    def __getattr__(name: str) -> Any:
        if name in _UPSTREAM_ONLY:

            def unsupported(*args: Any, **kwargs: Any) -> Any:
                raise UnsupportedError(f"pl.{name}", "not supported by pldsim (docs/python.md lists what is)")

            unsupported.__name__ = name
            unsupported.pldsim_unsupported = True  # type: ignore[attr-defined]  # docs/python.md's feature table reads it
            return unsupported
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


class _Namespace:
    """pl.tile / pl.tensor / pl.system: upstream's 3-segment op names."""

    def __init__(self, prefix: str, **ops: Any):
        self._prefix = prefix
        self.__dict__.update(ops)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def unsupported(*args: Any, **kwargs: Any) -> Any:
            raise UnsupportedError(f"pl.{self._prefix}.{name}", "not supported by pldsim (docs/python.md lists what is)")

        unsupported.pldsim_unsupported = True  # type: ignore[attr-defined]
        return unsupported


tile = _Namespace(
    "tile",
    assemble=_tensor_ops.tile_assemble,
    load=load,
    store=store,
    add=add,
    mul=mul,
    maximum=maximum,
    minimum=minimum,
    read=read,
    write=write,
    cast=cast,
    create=_cube.create,
    gather_row=gather_row,
    create_tile=create_tile,
    full=_cube.full,
    move=move,
    matmul=lambda lhs, rhs: _cube.matmul(lhs, rhs),
    matmul_acc=_cube.matmul_acc,
    reshape=_reduce.reshape,
    reinterpret_view=_reinterpret.reinterpret_view,
    get_block_idx=get_block_idx,
    get_block_num=get_block_num,
    get_subblock_idx=get_subblock_idx,
    set_validshape=set_validshape,
    transpose_view=_cube.transpose_view,
    MaskPattern=_vector_math.MaskPattern,
    **_VECTOR_MATH,
    row_sum=_reduce.tile_op("sum", "row"),
    row_max=_reduce.tile_op("max", "row"),
    row_min=_reduce.tile_op("min", "row"),
    row_prod=_reduce.tile_op("prod", "row"),
    col_sum=_reduce.tile_op("sum", "col"),
    col_max=_reduce.tile_op("max", "col"),
    col_min=_reduce.tile_op("min", "col"),
    col_prod=_reduce.tile_op("prod", "col"),
)
array = _Namespace("array", create=_arrays.create, get_element=_arrays.get_element, update_element=_arrays.update_element)
tensor = _Namespace(
    "tensor",
    read=read,
    write=write,
    slice=slice,
    assemble=lambda target, source, offset, *, atomic=AtomicType.None_: _scopes.assemble(target, source, offset, atomic=atomic, op="pl.tensor.assemble"),
    cast=cast,
    dim=_tensor_ops.dim,
    scatter=_vector_math.scatter,
    create=create_tensor,
    create_l1=create_l1,
    gather_row=gather_row,
    reshape=_reduce.unified_reshape,
    reinterpret_view=_reinterpret.reinterpret_view,
    matmul=matmul,
    matmul_acc=matmul_acc,
    **_VECTOR_MATH,
    add=lambda lhs, rhs: _ops.tensor_elementwise(0, "add", lhs, rhs),
    mul=lambda lhs, rhs: _ops.tensor_elementwise(1, "mul", lhs, rhs),
    maximum=lambda lhs, rhs: _ops.tensor_elementwise(2, "maximum", lhs, rhs),
    minimum=lambda lhs, rhs: _ops.tensor_elementwise(3, "minimum", lhs, rhs),
    sub=lambda lhs, rhs: _ops.tensor_elementwise(4, "sub", lhs, rhs),
    get_block_idx=get_block_idx,
    get_block_num=get_block_num,
    get_subblock_idx=get_subblock_idx,
)
system = _Namespace("system", task_dummy=_scopes.task_dummy)
prefetch = _Namespace(
    "prefetch",
    make_context=_prefetch.make_context,
    async_prefetch=_prefetch.async_prefetch,
    session=_prefetch.session,
    wait=_prefetch.wait,
)

__all__ = [
    "JITFunction", "Mem", "add", "array", "assemble", "at", "cast", "col_max", "col_min", "col_prod", "col_sum", "const",
    "create_l1", "create_tile", "full", "gather_row", "function", "get_block_idx", "get_block_num", "get_subblock_idx", "inline", "jit", "load",
    "manual_scope", "matmul", "matmul_acc", "max", "maximum", "min", "minimum", "missing_names", "move", "mul", "no_dep", "parallel",
    "pipeline", "prefetch", "program", "range", "read", "reinterpret_view", "reshape", "row_max", "row_min", "row_prod", "row_sum", "slice", "spmd", "spmd_submit",
    "static_assert", "static_print", "store", "sub", "submit", "system", "tensor", "tile", "unroll", "write",
]
_ = _program  # imported for the entry points it installs (above)
