"""Type annotations (``pl.Tensor[[1, 64], pl.FP32]``, ``pl.Out[...]``,
``pld.DistributedTensor[...]``, ``pl.Scalar[pl.INT32]``, ``pl.dynamic``) and
the check of a call's arguments against them.  The annotation types that
``pypto.language.typing`` re-exports (``Tensor``, ``Scalar``, ``Out``,
``InOut``, ``dynamic``, ``IntLike``) are defined at the end.

Upstream compiles each function for the shapes it is called with, so a
mismatch is a compile error there; here every call is checked when it is
made, and a mismatch names the function, the parameter, what the
annotation says and what was passed."""

from __future__ import annotations

import contextlib
import threading

import inspect
import math
import sys
from typing import Any, Union

import _pldsim

from .config import as_upstream
from .errors import UsageTypeError, UsageValueError
from .arrays import Array as OnCoreArray
from .resident import DeviceTensor
from .taskids import TaskId
from .values import DELEGATES, TASK_ID, DataType, DistributedTensor, Tile, dtype_of_code, dtype_of_torch, int_range, is_torch_tensor


class _DimArith:
    """Arithmetic on run-time dimensions: ``M * 2`` or ``NR * SIZE`` in an
    annotation is a DynExpr, checked (or solved for its one unbound name)
    when the function is called."""

    __slots__ = ()

    def _op(self, other: Any, sym: str, f: Any, swap: bool = False) -> "DynExpr":
        if isinstance(other, bool) or not isinstance(other, (int, _DimArith)):
            return NotImplemented
        a, b = (other, self) if swap else (self, other)
        return DynExpr(lambda env: f(_eval(a, env), _eval(b, env)), f"{_text(a)} {sym} {_text(b)}", _names(a) | _names(b))

    def __add__(self, o: Any) -> "DynExpr":
        return self._op(o, "+", lambda x, y: x + y)

    def __radd__(self, o: Any) -> "DynExpr":
        return self._op(o, "+", lambda x, y: x + y, swap=True)

    def __sub__(self, o: Any) -> "DynExpr":
        return self._op(o, "-", lambda x, y: x - y)

    def __rsub__(self, o: Any) -> "DynExpr":
        return self._op(o, "-", lambda x, y: x - y, swap=True)

    def __mul__(self, o: Any) -> "DynExpr":
        return self._op(o, "*", lambda x, y: x * y)

    def __rmul__(self, o: Any) -> "DynExpr":
        return self._op(o, "*", lambda x, y: x * y, swap=True)

    def __floordiv__(self, o: Any) -> "DynExpr":
        return self._op(o, "//", lambda x, y: x // y)

    def __index__(self) -> int:
        """Its value in the body of a call whose arguments bound it."""
        return self.value(_Lookup())

    __int__ = __index__


class _Lookup(dict):
    """The bindings of the running call, for DynVar.value."""

    def __missing__(self, name: str) -> int:
        return _lookup(name)


# The dims bound by the calls running on this thread (each rank runs its
# Python on a thread of its own), innermost last: in a function's body, NR
# is what its arguments bound it to.
_bound = threading.local()


@contextlib.contextmanager
def dims_bound(dyn: dict[str, int]):
    """Makes `dyn` the run-time value of the pl.dynamic names in the body
    of the call it surrounds."""
    stack = getattr(_bound, "stack", None)
    if stack is None:
        stack = _bound.stack = []
    stack.append(dyn)
    try:
        yield
    finally:
        stack.pop()


def _lookup(name: str) -> int:
    for env in reversed(getattr(_bound, "stack", None) or ()):
        if name in env:
            return env[name]
    raise UsageValueError(
        "pl.dynamic", f"{name} has no value here: only a function whose arguments bind it (in their annotations) can use it"
    )


def _eval(d: Any, env: dict[str, int]) -> int:
    return d if isinstance(d, int) else d.value(env)


def _text(d: Any) -> str:
    return f"({d!r})" if isinstance(d, DynExpr) else repr(d)


def _names(d: Any) -> frozenset[str]:
    return frozenset() if isinstance(d, int) else d.names


class DynVar(_DimArith):
    """A dimension bound at run time, as ``pl.dynamic("NR")``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise TypeError(f"pl.dynamic expects a non-empty name, got {name!r}")
        self.name = name

    def __repr__(self) -> str:
        return self.name

    @property
    def names(self) -> frozenset[str]:
        return frozenset((self.name,))

    def value(self, env: dict[str, int]) -> int:
        return env[self.name]


class DynExpr(_DimArith):
    """A dimension computed from run-time ones (``M * 2``)."""

    __slots__ = ("_f", "_text", "names")

    def __init__(self, f: Any, text: str, names: frozenset[str]):
        self._f, self._text, self.names = f, text, names

    def __repr__(self) -> str:
        return self._text

    def value(self, env: dict[str, int]) -> int:
        return self._f(env)

    def solve(self, env: dict[str, int], got: int) -> int | None:
        """The value of its one unbound name that makes it `got`, when the
        expression is affine in that name (a * x + b, as shapes are), else
        None."""
        (name,) = self.names - env.keys()
        at = lambda x: self._f({**env, name: x})  # noqa: E731
        b, a = at(0), at(1) - at(0)
        if a == 0 or (got - b) % a:
            return None
        x = (got - b) // a
        return x if at(x) == got else None


class TensorAnn:
    """pl.Tensor[...], pld.DistributedTensor[...] or pl.Tile[...]."""

    __slots__ = ("kind", "shape", "dtype")

    def __init__(self, kind: str, shape: list[Any] | None, dtype: DataType | None):
        self.kind, self.shape, self.dtype = kind, shape, dtype

    def __repr__(self) -> str:
        head = {"tensor": "pl.Tensor", "dist": "pld.DistributedTensor", "tile": "pl.Tile"}[self.kind]
        if self.shape is None:
            return head
        return f"{head}[{list(self.shape)!r}, {self.dtype!r}]"


class DirectionAnn:
    """pl.Out[...] or pl.InOut[...]: how a kernel uses the tensor."""

    __slots__ = ("direction", "inner")

    def __init__(self, direction: str, inner: Any):
        self.direction, self.inner = direction, inner

    def __repr__(self) -> str:
        return f"pl.{self.direction}[{self.inner!r}]"


class ScalarAnn:
    """pl.Scalar[dtype]."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: DataType | None):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"pl.Scalar[{self.dtype!r}]" if self.dtype else "pl.Scalar"


class ArrayAnn:
    """pl.Array[extent, dtype]: an on-core array (pl.array.create)."""

    __slots__ = ("extent", "dtype")

    def __init__(self, extent: int, dtype: DataType):
        self.extent, self.dtype = extent, dtype

    def __repr__(self) -> str:
        return f"pl.Array[{self.extent}, {self.dtype!r}]"


def tensor_annotation(cls: type, item: Any) -> TensorAnn:
    kind = "dist" if cls is DistributedTensor else "tile" if cls is Tile else "tensor"
    if not isinstance(item, tuple) or len(item) not in (2, 3):
        raise TypeError(f"{cls.__name__}[...] expects [shape, dtype] (and optionally a layout), got {item!r}")
    shape, dtype = item[0], item[1]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{cls.__name__}[shape, dtype]: shape must be a list, got {shape!r}")
    for d in shape:
        if not isinstance(d, (int, _DimArith)) or isinstance(d, bool):
            raise TypeError(f"{cls.__name__}[shape, dtype]: dimensions are ints or pl.dynamic, got {d!r}")
    if not isinstance(dtype, DataType):
        raise TypeError(f"{cls.__name__}[shape, dtype]: dtype must be a pl dtype such as pl.FP32, got {dtype!r}")
    return TensorAnn(kind, list(shape), dtype)


def _resolve(fn: Any, scope: dict[str, Any] | None = None) -> dict[str, Any]:
    """The function's annotations as objects (evaluating string ones, as
    `from __future__ import annotations` leaves them, with the names of
    the function's globals, of the scope it was defined in, and of its
    closure)."""
    anns = dict(getattr(fn, "__annotations__", {}))
    if not any(isinstance(a, str) for a in anns.values()):
        return anns
    env = dict(fn.__globals__)
    env.update(scope or {})
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                env[name] = cell.cell_contents
            except ValueError:
                pass
    for k, a in anns.items():
        if isinstance(a, str):
            try:
                anns[k] = eval(a, env)  # noqa: S307 - the program's own annotation text
            except Exception as e:  # noqa: BLE001
                raise TypeError(f"{fn.__qualname__}: cannot evaluate the annotation of {k!r} ({a!r}): {e}") from None
    return anns


def _describe(v: Any) -> str:
    if isinstance(v, DeviceTensor):  # a worker-resident tensor, passed by hand
        what = f"a DeviceTensor {list(v.shape)} {v.dtype}"
        if v.freed:
            return f"{what} that has been freed (free_tensor, or its worker's close())"
        return f"{what}: its worker passes it (run, submit or a registered handle)"
    if is_torch_tensor(v):
        return f"a torch.{str(v.dtype).split('.')[-1]} tensor of shape {list(v.shape)}"
    if isinstance(v, DistributedTensor):
        return f"a window view {v.shape} {v.dtype!r}"
    if isinstance(v, Tile):
        return f"a tile {v.shape} {v.dtype!r}"
    return f"{type(v).__name__} {v!r}"


class Signature:
    """A function's parameters and annotations, resolved once."""

    def __init__(self, fn: Any, skip_self: bool, scope: dict[str, Any] | None = None):
        self.fn = fn
        self.sig = inspect.signature(fn)
        params = list(self.sig.parameters.values())
        self.params = params[1:] if skip_self and params else params
        self.anns = _resolve(fn, scope)

    def bind(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any], self_obj: Any = None) -> inspect.BoundArguments:
        try:
            if self_obj is not None:
                return self.sig.bind(self_obj, *args, **kwargs)
            return self.sig.bind(*args, **kwargs)
        except TypeError as e:
            raise UsageTypeError(op, f"{self.fn.__name__}() {e}") from None

    def check(self, op: str, bound: inspect.BoundArguments, samples: bool = False) -> dict[str, int]:
        """Checks every annotated argument; returns the pl.dynamic dims
        they bind (for dims_bound around the body).  `samples`: the
        arguments of ``compile(*samples)``, which upstream's JIT reads only
        for their shapes and dtypes and never checks against the static
        dims and dtypes of the annotations (pypto-lib's golden runner
        compiles with its specs in their own order); then only the
        pl.dynamic bindings are checked, and the real call checks the rest."""
        dyn: dict[str, int] = {}
        later: list[tuple[str, int, DynExpr, int]] = []  # computed dims, once their names are bound
        _install_bind_dynamic()
        for p in self.params:
            if p.name not in bound.arguments or p.name not in self.anns:
                continue
            ann = self.anns[p.name]
            if isinstance(ann, DirectionAnn):
                ann = ann.inner
            v = bound.arguments[p.name]
            seen = _as_declared(ann, v)
            if seen is not v:
                bound.arguments[p.name] = v = seen
            _check_one(op, self.fn.__name__, p.name, ann, v, dyn, later, samples)
        _check_computed(op, dyn, later)
        return dyn


def _as_declared(ann: Any, v: Any) -> Any:
    """A 0-dim host tensor passed for a pl.Scalar parameter (pypto-lib's
    golden runner passes its ScalarSpecs so) as the number it holds; a window view passed for a pld.DistributedTensor parameter of
    another static shape with as many elements, seen with the declared
    shape (upstream passes a window's address, and the callee uses its own
    parameter type: test_l3_multi_group passes [SIZE] views for [1, SIZE]);
    anything else as it is."""
    if isinstance(ann, ScalarAnn) and is_torch_tensor(v) and v.dim() == 0:
        return v.item()
    if not (isinstance(ann, TensorAnn) and ann.kind == "dist" and isinstance(v, DistributedTensor) and ann.shape):
        return v
    if not all(isinstance(d, int) for d in ann.shape) or list(ann.shape) == v.shape:
        return v
    if ann.dtype is not None and v.dtype is not ann.dtype:
        return v
    if math.prod(ann.shape) != math.prod(v.shape):
        return v
    return DistributedTensor(_pldsim.view_as(v._view, list(ann.shape)))


def _check_one(op: str, fname: str, pname: str, ann: Any, v: Any, dyn: dict[str, int], later: list, samples: bool = False) -> None:
    where = f"argument '{pname}' of {fname}"
    if isinstance(ann, ScalarAnn):
        _check_scalar(op, where, ann, v)
        return
    if isinstance(ann, ArrayAnn):
        _check_array(op, where, ann, v)
        return
    if not isinstance(ann, TensorAnn):
        return
    if ann.kind == "tensor":
        if not is_torch_tensor(v):
            hint = " (a window view goes to a pld.DistributedTensor parameter)" if isinstance(v, DistributedTensor) else ""
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}{hint}")
        shape, dtype = list(v.shape), dtype_of_torch(v)
    elif ann.kind == "dist":
        if not isinstance(v, DistributedTensor):
            hint = " (make one with pld.window)" if is_torch_tensor(v) else ""
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}{hint}")
        shape, dtype = v.shape, v.dtype
    else:
        if not isinstance(v, Tile):
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
        shape, dtype = v.shape, v.dtype
    if ann.shape is None or (samples and len(shape) != len(ann.shape)):
        return
    if samples:
        for want, got in zip(ann.shape, shape):
            if isinstance(want, DynVar) and dyn.setdefault(want.name, got) != got:
                break
        else:
            return
    if ann.dtype is not None and dtype is not ann.dtype:
        raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}: dtype {dtype!r}, not {ann.dtype!r}")
    if len(shape) != len(ann.shape):
        raise UsageValueError(op, f"{where} is annotated {ann!r} but got {_describe(v)}: {len(shape)} dimensions, not {len(ann.shape)}")
    for i, (want, got) in enumerate(zip(ann.shape, shape)):
        if isinstance(want, DynExpr):
            later.append((where, i, want, got))
        elif isinstance(want, DynVar):
            bound = dyn.setdefault(want.name, got)
            if bound != got:
                raise UsageValueError(
                    op,
                    f"{where}: dimension {i} is pl.dynamic({want.name!r}), already bound to {bound} "
                    f"by an earlier argument, but this one has {got}",
                )
        elif want != got:
            raise UsageValueError(op, f"{where} is annotated {ann!r} but got {_describe(v)}: dimension {i} is {got}, not {want}")


def _check_computed(op: str, dyn: dict[str, int], later: list[tuple[str, int, DynExpr, int]]) -> None:
    """Checks the computed dims (``M * 2``) once the plain ones have bound
    their names, solving for a name that only a computed dim binds."""
    while later:
        progress = False
        for item in list(later):
            where, i, expr, got = item
            unbound = expr.names - dyn.keys()
            if len(unbound) == 1:
                x = expr.solve(dyn, got)
                if x is None:
                    raise UsageValueError(op, f"{where}: dimension {i} is {expr!r}, which no value of {next(iter(unbound))} makes {got}")
                dyn[next(iter(unbound))] = x
                unbound = frozenset()
            if not unbound:
                if expr.value(dyn) != got:
                    env = ", ".join(f"{n} = {dyn[n]}" for n in sorted(expr.names))
                    raise UsageValueError(op, f"{where}: dimension {i} is {expr!r} = {expr.value(dyn)} ({env}), but it has {got}")
                later.remove(item)
                progress = True
        if not progress:
            where, i, expr, got = later[0]
            names = ", ".join(sorted(expr.names - dyn.keys()))
            raise UsageValueError(op, f"{where}: dimension {i} is {expr!r} and nothing binds {names} alone; give one of them a plain dimension")


def _check_array(op: str, where: str, ann: ArrayAnn, v: Any) -> None:
    if not isinstance(v, OnCoreArray):
        raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
    if len(v) != ann.extent or v.dtype is not ann.dtype:
        raise UsageTypeError(op, f"{where} is annotated {ann!r} but got a pl.Array[{len(v)}, {v.dtype!r}]")


def _check_scalar(op: str, where: str, ann: ScalarAnn, v: Any) -> None:
    dt = ann.dtype
    if dt is TASK_ID:
        if v is not None and not isinstance(v, TaskId):
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}, not a task id")
        return
    if is_torch_tensor(v) or isinstance(v, (DistributedTensor, Tile)):
        raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
    if dt is None:
        return
    if dt.is_float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
        return
    if dt.name == "BOOL":
        if not isinstance(v, (bool, int)):
            raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
        return
    if isinstance(v, bool) or not isinstance(v, int):
        raise UsageTypeError(op, f"{where} is annotated {ann!r} but got {_describe(v)}")
    span = int_range(dt)
    if span is not None and not span[0] <= v <= span[1]:
        raise UsageValueError(op, f"{where} is annotated {ann!r} but {v} does not fit in {dt!r}")


# what ``pld.DistributedTensor[...]`` and ``pl.Tile[...]`` (values.py) make
DELEGATES.tensor_annotation = tensor_annotation
DELEGATES.bind_dynamic = lambda t, dim, var: bind_dynamic(t, dim, var)


# ---- the annotation types of pypto.language.typing


class _TensorMeta(type):
    def __getitem__(cls, item: Any) -> TensorAnn:
        return tensor_annotation(cls, item)

    def __instancecheck__(cls, obj: Any) -> bool:
        return is_torch_tensor(obj)


class Tensor(metaclass=_TensorMeta):
    """A tensor in global memory: on pldsim, a torch tensor on the host.
    ``pl.Tensor[[1, 64], pl.FP32]`` annotates a parameter."""


class Scalar:
    """``pl.Scalar[pl.INT32]`` annotates a scalar parameter."""

    def __class_getitem__(cls, dtype: Any) -> ScalarAnn:
        if not isinstance(dtype, DataType):
            raise TypeError(f"pl.Scalar[dtype] expects a pl dtype such as pl.INT32, got {dtype!r}")
        return ScalarAnn(dtype)


class Array:
    """``pl.Array[N, pl.TASK_ID]`` annotates an on-core array parameter."""

    def __class_getitem__(cls, item: Any) -> ArrayAnn:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"pl.Array[extent, dtype] expects two items, got {item!r}")
        extent, dtype = item
        if isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0:
            raise TypeError(f"pl.Array[extent, dtype]: the extent must be a positive int, got {extent!r}")
        if not isinstance(dtype, DataType):
            raise TypeError(f"pl.Array[extent, dtype] expects a pl dtype such as pl.INT32, got {dtype!r}")
        return ArrayAnn(extent, dtype)


class Out:
    """``pl.Out[T]``: a parameter the function writes (output only)."""

    def __class_getitem__(cls, inner: Any) -> DirectionAnn:
        return DirectionAnn("Out", inner)


class InOut:
    """``pl.InOut[T]``: a parameter the function reads and writes."""

    def __class_getitem__(cls, inner: Any) -> DirectionAnn:
        return DirectionAnn("InOut", inner)


def dynamic(name: str) -> DynVar:
    """A dimension bound at run time from the tensor passed (``pl.dynamic("NR")``)."""
    return DynVar(name)


IntLike = Union[int, DynVar]


def bind_dynamic(tensor: Any, dim: Any, var: Any) -> None:
    """``t.bind_dynamic(dim, NR)``: says that dimension `dim` of `t` is the
    pl.dynamic `NR` in the running call.  Upstream's compiler uses it to
    size the tensor; here it binds NR in the running function if nothing
    there has, and refuses a tensor whose dimension contradicts what NR is
    already bound to in that function."""
    op = "bind_dynamic"
    if not isinstance(var, DynVar):
        raise UsageTypeError(op, f"the second argument must be a pl.dynamic variable, got {var!r}")
    shape = list(tensor.shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not -len(shape) <= dim < len(shape):
        raise UsageValueError(op, f"dimension {dim!r} is not one of the tensor's {len(shape)} dimensions {shape}")
    got = shape[dim]
    stack = getattr(_bound, "stack", None)
    if not stack:
        raise UsageValueError(op, f"binds {var.name} outside a pl function's body")
    # the running function's own binding: a helper may bind a name of its
    # caller's to another size (qwen3_14b/prefill_fwd.py's inline
    # prefill_layer binds PREFILL_TOKENS_DYN to its window's rows, its
    # caller to the prompt's), as upstream sizes each function on its own
    env = stack[-1]
    if var.name in env:
        if env[var.name] != got:
            raise UsageValueError(op, f"dimension {dim} of the tensor is {got}, but {var.name} is already bound to {env[var.name]}")
        return
    env[var.name] = got


def _install_bind_dynamic() -> None:
    """Host tensors are torch's: give them upstream's bind_dynamic method
    once torch is loaded (a program that passes tensors has loaded it)."""
    t = sys.modules.get("torch")
    if t is not None and not hasattr(t.Tensor, "bind_dynamic"):
        t.Tensor.bind_dynamic = bind_dynamic

# named, as config.py's types are, by the pypto module programs import them from
for _cls in (_TensorMeta, Tensor, Scalar, Array, Out, InOut):
    as_upstream(_cls, "pypto.language.typing")
del _cls

__all__ = [
    "Array", "ArrayAnn", "DirectionAnn", "DynExpr", "DynVar", "InOut", "IntLike", "Out", "Scalar", "ScalarAnn", "Signature", "Tensor", "TensorAnn",
    "dtype_of_code", "dynamic", "tensor_annotation",
]
