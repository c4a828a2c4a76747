"""SPMD launches: ``out, tid = pl.spmd_submit(self.kernel, *args,
core_num=N, deps=[...])`` (and ``pl.submit``, its one-block sibling) in a
per-device function, and ``pl.tile.get_block_idx()`` /
``get_block_num()`` in the kernel.

Upstream's runtime fans an SPMD task out over `core_num` blocks, each on a
core of its own, each reading its block index.  pldsim submits one task
per block to the rank's task graph (taskgraph.c), so the blocks run at
once on the device's simulated cores, as ``pl.at`` tasks do: in a
``pl.manual_scope()`` with the scope's other tasks, after their `deps`;
outside one, as a scope of their own that ends before the call returns
(the rank's program order).  The result is what the kernel writes (its
``pl.Out`` and ``pl.InOut`` arguments, filled once the task has run) and
a task id that stands for every block."""

from __future__ import annotations

import functools
from typing import Any

import _pldsim

from . import annotations, levels, scopes, state, tensor_ops
from .annotations import DirectionAnn, dims_bound
from .errors import UnsupportedError, UsageTypeError
from .where import caller


def _kernel_of(op: str, kernel: Any) -> tuple[levels.Function, Any]:
    """The kernel Function and its ``self`` of `kernel` (``self.kernel``)."""
    if isinstance(kernel, functools.partial) and getattr(kernel.func, "__self__", None) is not None:
        fn = kernel.func.__self__
        if isinstance(fn, levels.Function) and kernel.args:
            return fn, kernel.args[0]
    if isinstance(kernel, levels.Function):
        return kernel, None
    raise UsageTypeError(op, f"{op} submits a kernel (self.kernel, an InCore, AIC or AIV function), not a call or {type(kernel).__name__}: pass the kernel itself")


def launch(kernel: Any, args: tuple, kwargs: dict, core_num: Any, sync_start: Any, deps: Any, op: str) -> tuple[Any, scopes.TaskId]:
    """Submits `kernel` as `core_num` blocks; (what it writes, task id)."""
    fn, self_obj = _kernel_of(op, kernel)
    if fn.kind != state.KERNEL:
        raise UsageTypeError(op, f"{op} submits a kernel; {fn.name} is a {levels._KIND_NAMES[fn.kind]}")
    if state.level() != state.DEVICE:
        raise UsageTypeError(op, f"{op} belongs in a per-device (Orchestration) function")
    core_num = scopes.launch_spec(op, core_num, sync_start)
    dep_ids = scopes.task_ids(op, deps)
    sig = fn.signature()
    bound = sig.bind(fn.name, args, kwargs, self_obj)
    dyn = sig.check(fn.name, bound)
    levels._check_tensors_first(fn, bound, fn.name)
    kargs = [tensor_ops.in_kernel_form(a) for a in bound.args]
    kkwargs = {k: tensor_ops.in_kernel_form(v) for k, v in bound.kwargs.items()}
    outer = list(getattr(annotations._bound, "stack", None) or ())
    file, line = caller()

    def block(b: int) -> Any:
        def run() -> None:
            annotations._bound.stack = list(outer)
            state.launch_as(fn.unit, b, core_num)
            with dims_bound(dyn):
                state.in_kernel(file, line, fn.name, fn.fn, *kargs, **kkwargs)

        return run

    cube = fn.unit == state.CUBE  # an AIC function's blocks run on the cube cores
    if scopes.in_manual_scope():
        ids = [_pldsim.at(file, line, fn.name, block(b), dep_ids, cube, b > 0) for b in range(core_num)]
        tid = scopes.TaskId(ids[0][0], ids[0][1], fn.name, tuple(tuple(i) for i in ids[1:]))
    else:
        # the blocks run now, at once, on the device's cores: a scope of
        # their own (what they depend on ran before, in program order)
        _pldsim.scope_begin(file, line)
        for b in range(core_num):
            _pldsim.at(file, line, fn.name, block(b), [], cube, b > 0)
        _pldsim.scope_end(file, line)
        tid = scopes.TaskId(0, -1, fn.name)
    outs = [bound.arguments[p.name] for p in sig.params if isinstance(sig.anns.get(p.name), DirectionAnn) and p.name in bound.arguments]
    result = outs[0] if len(outs) == 1 else tuple(outs) if outs else None
    return result, tid


_UNSUPPORTED_KW = ("predicate", "allow_early_resolve")


def spmd_submit(kernel: Any = None, *args: Any, core_num: Any = None, sync_start: bool = False, deps: Any = None, **kwargs: Any) -> tuple[Any, scopes.TaskId]:
    """``out, tid = pl.spmd_submit(self.kernel, *args, core_num=N, deps=[...])``."""
    op = "pl.spmd_submit"
    _refuse(op, kwargs)
    if kernel is None:
        raise UsageTypeError(op, f"{op} needs the kernel as its first argument")
    if core_num is None:
        raise UsageTypeError(op, "needs the core_num keyword argument, a positive integer: pl.spmd_submit(self.kernel, ..., core_num=N)")
    return launch(kernel, args, kwargs, core_num, sync_start, deps, op)


def submit(kernel: Any = None, *args: Any, deps: Any = None, **kwargs: Any) -> tuple[Any, scopes.TaskId]:
    """``out, tid = pl.submit(self.kernel, *args, deps=[...])``: one block."""
    op = "pl.submit"
    _refuse(op, kwargs)
    if kernel is None:
        raise UsageTypeError(op, f"{op} needs the kernel as its first argument")
    return launch(kernel, args, kwargs, 1, False, deps, op)


def _refuse(op: str, kwargs: dict) -> None:
    for name in _UNSUPPORTED_KW:
        if kwargs.pop(name, None) not in (None, False):
            raise UnsupportedError(op, f"{name}= is not supported by pldsim")
    kwargs.pop("name_hint", None)


def _block(op: str) -> state.KernelContext:
    k = state.kernel()
    if k is None:
        raise UsageTypeError(op, "only a kernel has a block index, and this is not one")
    return k


def get_block_idx() -> int:
    """The running kernel's block of its SPMD launch (0 when not one)."""
    return _block("pl.tile.get_block_idx").block_idx


def get_block_num() -> int:
    """How many blocks the running kernel's SPMD launch has (1 when not one)."""
    return _block("pl.tile.get_block_num").block_num


def get_subblock_idx() -> int:
    """The vector core of a split kernel: pldsim runs kernels unsplit, on 0."""
    _block("pl.tile.get_subblock_idx")
    return 0
