"""``pypto.language`` (``pl``) on pldsim: dtypes, annotations, the level
decorators, and the local ops the distributed programs use, executed
eagerly on the simulated devices.

The decorators come in both of upstream's forms: ``@pl.jit.host`` /
``@pl.jit`` / ``@pl.jit.incore``, and ``@pl.program`` classes whose methods
are ``@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)``,
``@pl.function(type=pl.FunctionType.Orchestration)`` and
``@pl.function(type=pl.FunctionType.InCore)``.

Upstream's many other tile and tensor ops are named here too; calling one
that pldsim does not have raises NotImplementedError saying so.

Each name is pldsim's, re-exported: the decorators, ops and op namespaces
from pldsim/language.py, the dtypes from pldsim/values.py, Level,
FunctionType and Role from pldsim/config.py, the annotation types through
pypto.language.typing.  This module defines nothing of its own
(tests/python/test_imports.py checks it)."""

from pldsim.comm import AtomicType
from pldsim.config import FunctionType, Level, Role
from pldsim.cube import MemorySpace, TileLayout
from pldsim.errors import UnsupportedError
from pldsim.language import (
    JITFunction,
    Mem,
    PadValue,
    ScopeMode,
    SplitMode,
    abs,
    add,
    aic_gather,
    aiv_shard,
    arange,
    array,
    assemble,
    at,
    cast,
    cmp,
    col_expand,
    col_expand_add,
    col_expand_div,
    col_expand_expdif,
    col_expand_mul,
    col_expand_sub,
    col_max,
    col_min,
    col_prod,
    col_sum,
    concat,
    const,
    create_l1,
    create_tensor,
    create_tile,
    cross_core_slot,
    div,
    exp,
    fillpad,
    full,
    function,
    gather,
    gather_row,
    get_block_idx,
    get_block_num,
    get_subblock_idx,
    inline,
    jit,
    load,
    log,
    manual_scope,
    matmul,
    matmul_acc,
    max,
    maximum,
    min,
    minimum,
    move,
    mul,
    neg,
    parallel,
    pipeline,
    prefetch,
    program,
    range,
    read,
    recip,
    reinterpret_view,
    relu,
    reshape,
    row_expand,
    row_expand_add,
    row_expand_div,
    row_expand_expdif,
    row_expand_mul,
    row_expand_sub,
    row_max,
    row_min,
    row_prod,
    row_sum,
    rsqrt,
    scatter,
    sort32,
    mrgsort,
    no_dep,
    scope,
    set_validshape,
    slice,
    split,
    split_aiv,
    spmd,
    spmd_submit,
    sqrt,
    static_assert,
    static_print,
    store,
    sub,
    submit,
    system,
    tensor,
    tile,
    transpose,
    unroll,
    write,
)
from pldsim.language import missing_names as _missing_names
from pldsim.levels import Function
from pldsim.loops import yield_
from pldsim.state import CUBE, DEVICE, HOST, KERNEL, MIXED, VECTOR
from pldsim.values import (
    BF16, BOOL, FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, FP16, FP32, HF4, HF8, INDEX, INT4, INT8, INT16, INT32, INT64, TASK_ID, UINT4, UINT8,
    UINT16, UINT32, UINT64, DataType, TensorValue,
)

from . import typing
from .typing import Array, AsyncEvent, AsyncSession, DynVar, InOut, IntLike, Out, Ptr, Scalar, Tensor, Tile, dynamic

# upstream's names that pldsim does not implement: using one says so
__getattr__ = _missing_names("pypto.language")

__all__ = [
    "Array", "AsyncEvent", "AsyncSession", "AtomicType", "BF16", "BOOL", "DataType", "DynVar", "FP16", "FP32",
    "FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "HF4", "HF8", "INT4", "UINT4",
    "FunctionType", "INDEX", "INT8", "INT16", "INT32", "INT64", "TASK_ID", "InOut", "IntLike", "JITFunction",
    "Level", "Out", "Ptr", "Role", "Scalar", "Tensor", "Tile", "UINT8", "UINT16", "UINT32", "UINT64", "add",
    "assemble", "cast", "const", "dynamic", "function", "at", "inline", "jit", "load", "manual_scope", "max",
    "maximum", "min", "minimum", "mul", "parallel", "pipeline", "program", "range", "read", "slice",
    "static_assert", "static_print", "store", "sub", "system", "tensor", "tile", "typing", "unroll", "write",
    "yield_", "Mem", "MemorySpace", "TileLayout", "array", "col_max", "col_min", "col_prod", "col_sum",
    "create_tile", "full", "get_block_idx", "get_block_num", "get_subblock_idx", "matmul", "matmul_acc", "move",
    "reinterpret_view", "reshape", "row_max", "row_min", "row_prod", "row_sum", "spmd", "spmd_submit", "submit", "no_dep", "abs", "neg", "exp",
    "log", "sqrt", "rsqrt", "recip", "relu", "div", "set_validshape", "row_expand", "col_expand", "row_expand_mul",
    "row_expand_div", "row_expand_add", "row_expand_sub", "col_expand_mul", "col_expand_div", "col_expand_add",
    "col_expand_sub", "create_tensor", "fillpad", "PadValue", "transpose", "arange", "gather", "split_aiv", "aiv_shard", "aic_gather", "SplitMode", "split", "cross_core_slot", "cmp", "scope", "ScopeMode", "scatter", "sort32", "mrgsort", "row_expand_expdif", "col_expand_expdif", "concat",
    "create_l1", "gather_row", "prefetch",
]
# CUBE ... VECTOR, Function, TensorValue and UnsupportedError are imported
# for the programs that reach them here, as they could before pypto became
# a pure façade; they are not upstream's, so not in __all__.
