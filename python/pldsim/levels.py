"""The three levels, executed eagerly on libpld's ranks.

* A host orchestrator (``@pl.jit.host``, or ``@pl.function(level=HOST,
  role=Orchestrator)``) runs on pldsim's host; calling a per-device
  function there with ``device=r`` dispatches it to rank r.
* A per-device function (``@pl.jit``, or ``type=Orchestration``) runs on
  its rank when the rank gets to it; calling a kernel there launches it.
* A kernel (``@pl.jit.incore``, or ``type=InCore``) runs on the rank's
  vector core, between libpld's incore enter and exit, so its tiles live
  in that kernel's UB.

Which level the running code is at is kept per thread, in state.py."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import _pldsim

from . import dfx, tensor_ops, timing
from .annotations import DirectionAnn, Signature, dims_bound
from .domains import describe as describe_domain
from .errors import LABELS, UsageTypeError, UsageValueError, describe
from .scopes import rewrite
from .state import DEVICE, HOST, KERNEL, MIXED, in_kernel, kernel, launch_as, level, run_as
from .values import DistributedTensor, is_torch_tensor, scalar_int
from .where import caller, defining_scope

_KIND_NAMES = {HOST: "host orchestrator", DEVICE: "per-device function", KERNEL: "InCore kernel"}
_LABELS = {HOST: "host orchestrator", DEVICE: "per-device function", KERNEL: "kernel"}

_MISSING = object()
_pldsim.set_reporter(describe)


def _no_entry_points(*args: Any) -> Any:
    raise RuntimeError("pldsim.program is not loaded: import pypto.language (or pldsim.program) first")


# What a Function's compile() and its call outside any run do: program.py
# builds on Function, so it installs them when it is imported (and
# pypto.language imports it) rather than this module importing it back.
_compile_function: Callable[..., Any] = _no_entry_points
_call_outside_run: Callable[..., Any] = _no_entry_points


def set_entry_points(compile_function: Callable[..., Any], call_outside_run: Callable[..., Any]) -> None:
    """program.py's compile and run of a Function, outside any run."""
    global _compile_function, _call_outside_run
    _compile_function, _call_outside_run = compile_function, call_outside_run


class ModuleProgram:
    """`self` in a module's jit functions: the program upstream's @pl.jit
    makes of the module, whose methods are the module's functions."""

    def __init__(self, globs: dict):
        self._globs = globs

    def __getattr__(self, name: str) -> Any:
        fn = self._globs.get(name)
        if not isinstance(fn, Function):
            raise AttributeError(f"self.{name}: the module's program has no function {name!r} (a @pl.jit or @pl.jit.incore function of the module)")
        return fn


def bind_module_self(fn: Any) -> None:
    """Upstream's @pl.jit makes a module's functions the methods of one
    generated @pl.program, so a function may name its siblings as
    self.NAME (pypto-lib's pro/moe.py does, for pl.spmd_submit): where a
    module-level function uses a global `self` and its module has none,
    `self` is that program (ModuleProgram)."""
    code, globs = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is not None and "self" in code.co_names and isinstance(globs, dict) and "self" not in globs:
        globs["self"] = ModuleProgram(globs)


class Function:
    """A function of one of the three levels; the decorators make these.
    In a class (``@pl.program``) it binds ``self`` like a method."""

    def __init__(self, fn: Any, kind: str, decorator: str, unit: str = MIXED):
        if not callable(fn):
            raise TypeError(f"{decorator} decorates a function, got {fn!r}")
        self.fn = fn
        self.kind = kind
        self.decorator = decorator
        self.unit = unit  # a kernel's: MIXED, CUBE (AIC) or VECTOR (AIV)
        # what its string annotations may name besides globals and closures
        self._scope = defining_scope()
        self.name = fn.__name__
        self._sig: Signature | None = None
        self._body: Any = None
        self._method = False
        functools.update_wrapper(self, fn)
        code = getattr(fn, "__code__", None)
        if code is not None:
            LABELS[code] = f"{_LABELS[kind]} {self.name}"
        bind_module_self(fn)

    def __repr__(self) -> str:
        return f"<pldsim {_KIND_NAMES[self.kind]} {self.fn.__qualname__}>"

    def __set_name__(self, owner: type, name: str) -> None:
        self._method = True

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self._call, obj)

    def body(self) -> Any:
        """What runs: a per-device function with ``pl.at`` tasks in it is
        rewritten so that their bodies can run later (scopes.py)."""
        if self._body is None:
            self._body = rewrite(self.fn) if self.kind == DEVICE else self.fn
            code = getattr(self._body, "__code__", None)
            if code is not None and code is not getattr(self.fn, "__code__", None):
                LABELS[code] = f"{_LABELS[self.kind]} {self.name}"
        return self._body

    def _param_names(self) -> list[str]:
        """The parameters' names, in order, without ``self`` (upstream's
        JIT function has this; pypto-lib's decode_fwd_mtp.py orders its
        tensor specs by it)."""
        return [p for p in inspect.signature(self.fn).parameters if p != "self"]

    def signature(self) -> Signature:
        if self._sig is None:
            self._sig = Signature(self.fn, skip_self=self._method, scope=self._scope)
        return self._sig

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(None, *args, **kwargs)

    def compile(self, *args: Any, **kwargs: Any) -> Any:
        """Checks the arguments (if any) against the signature and returns
        the compiled program (``config=RunConfig(...)`` chooses the
        platform and, through its distributed_config, the devices)."""
        return _compile_function(self, args, kwargs)

    def _call(self, self_obj: Any, *args: Any, **kwargs: Any) -> Any:
        device = kwargs.pop("device", _MISSING)
        lvl = level()
        if lvl is None:
            return _call_outside_run(self, self_obj, args, kwargs, device)
        config = kwargs.pop("config", None)
        op = self.name
        if config is not None:
            raise UsageTypeError(op, f"config= is for starting a program; {self.name} is called inside the run")
        if self.kind == DEVICE:
            if lvl == HOST:
                if device is _MISSING:
                    # one device: it is the only place the call can go
                    if _pldsim.world_size(*caller()) != 1:
                        raise UsageTypeError(
                            op,
                            f"{self.name} is a per-device function ({self.decorator}): "
                            f"the host orchestrator dispatches it with device=r",
                        )
                    device = 0
                return _dispatch(self, self_obj, args, kwargs, device)
            if device is not _MISSING:
                raise UsageTypeError(op, f"only the host orchestrator dispatches with device=; {lvl}s cannot")
            if lvl == KERNEL:
                raise UsageTypeError(op, f"a kernel cannot call the per-device function {self.name}")
            return self._inline(self_obj, args, kwargs, op)
        if device is not _MISSING:
            raise UsageTypeError(
                op,
                f"device= dispatches a per-device function; {self.name} is a {_KIND_NAMES[self.kind]}",
            )
        if self.kind == KERNEL:
            if lvl == HOST:
                raise UsageTypeError(
                    op,
                    f"the host orchestrator never calls an InCore kernel ({self.name}) directly: "
                    f"dispatch a per-device function (@pl.jit) with device=r that calls it",
                )
            return _incore(self, self_obj, args, kwargs)
        if lvl != HOST:
            raise UsageTypeError(op, f"{self.name} is a host orchestrator; only the host can call it")
        return self._inline(self_obj, args, kwargs, op)

    def _inline(self, self_obj: Any, args: tuple, kwargs: dict, op: str) -> Any:
        """A call at the same level: an ordinary function call."""
        sig = self.signature()
        bound = sig.bind(op, args, kwargs, self_obj)
        with dims_bound(sig.check(op, bound)):
            return self.body()(*bound.args, **bound.kwargs)


def _check_tensors_first(fn: Function, bound: Any, op: str) -> None:
    """Upstream packs a task's tensors before its scalars, and fails at run
    time when a tensor follows a scalar."""
    seen_scalar = None
    for name, v in bound.arguments.items():
        is_tensor = is_torch_tensor(v) or isinstance(v, DistributedTensor)
        if is_tensor and seen_scalar is not None:
            raise UsageTypeError(
                op,
                f"TaskArgs: cannot add tensor after scalar: argument '{name}' of {fn.name} is a tensor "
                f"after the scalar '{seen_scalar}' (every tensor argument must come before every scalar)",
            )
        if not is_tensor and isinstance(v, (int, float)):
            seen_scalar = name


def _dispatch(fn: Function, self_obj: Any, args: tuple, kwargs: dict, device: Any) -> None:
    op = fn.name
    where = caller()
    sig = fn.signature()
    bound = sig.bind(op, args, kwargs, self_obj)
    dyn = sig.check(op, bound)
    _check_tensors_first(fn, bound, op)
    rank = scalar_int(device, op, "device")
    _check_domains(fn, bound, rank, op)
    call_args, call_kwargs = bound.args, bound.kwargs
    body = fn.body()
    issued = timing.issued()

    def task() -> None:
        timing.begin(rank, fn.name, issued)
        dfx.task_begin(rank, fn.name)
        with dims_bound(dyn):
            run_as(DEVICE, body, *call_args, **call_kwargs)
        dfx.task_end(rank)
        timing.end(rank)

    _pldsim.dispatch(where[0], where[1], rank, f"per-device function {fn.name}", task)
    # what the host gets back: the tensors the function writes (its pl.Out
    # and pl.InOut arguments), filled once the task has run
    outs = [bound.arguments[p.name] for p in sig.params if isinstance(sig.anns.get(p.name), DirectionAnn) and p.name in bound.arguments]
    return outs[0] if len(outs) == 1 else tuple(outs) if outs else None


def _check_domains(fn: Function, bound: Any, rank: int, op: str) -> None:
    """A window view may only go to a device of its buffer's comm domain:
    the others have no copy of that window."""
    for name, v in bound.arguments.items():
        if not isinstance(v, DistributedTensor):
            continue
        group = v._view.group
        if group is not None and rank not in group:
            raise UsageValueError(
                op,
                f"device={rank} gets argument '{name}', a view of window buffer '{v.name}', whose comm "
                f"domain is {describe_domain(list(group))}: device {rank} has no copy of it",
            )


def _incore(fn: Function, self_obj: Any, args: tuple, kwargs: dict) -> Any:
    op = fn.name
    where = caller()
    sig = fn.signature()
    bound = sig.bind(op, args, kwargs, self_obj)
    dyn = sig.check(op, bound)
    _check_tensors_first(fn, bound, op)
    args = [tensor_ops.in_kernel_form(a) for a in bound.args]
    kwargs = {k: tensor_ops.in_kernel_form(v) for k, v in bound.kwargs.items()}
    outer = kernel()
    if outer is not None and outer.carrier:
        # a kernel that a pl.spmd body dispatches: the body's block runs it
        with dims_bound(dyn):
            return run_as(KERNEL, fn.fn, *args, **kwargs)
    launch_as(fn.unit)
    with dims_bound(dyn):
        return in_kernel(where[0], where[1], fn.name, fn.fn, *args, **kwargs)


def _dispatch_closure(rank: int, fn: Function, body: Any) -> None:
    """From the host: runs body() on `rank` as fn's per-device function."""
    where = caller()
    issued = timing.issued()

    def task() -> None:
        timing.begin(rank, fn.name, issued)
        dfx.task_begin(rank, fn.name)
        run_as(DEVICE, body)
        dfx.task_end(rank)
        timing.end(rank)

    _pldsim.dispatch(where[0], where[1], rank, f"per-device function {fn.name}", task)
