"""``--shape-only``: a timing study whose inputs carry only shape and dtype.

``--timing-only`` computes no floats in the run, yet pypto-lib's model
files still make their weights with torch before the run starts: a MoE
layer at EP 16 draws gigabytes of normal samples, quantizes them and holds
them, and that is most of its wall time and memory.  The values are never
read (a timing-only run copies no float or 8/16-bit value), so under
``--shape-only`` (which implies ``--timing-only``) they are never made:

* ``torch.randn``, ``torch.normal``, ``torch.empty`` and their ``_like``
  forms, asked for at least MIN_ELEMENTS elements of a dtype the run does
  not keep (a float, or an integer of 8 or 16 bits), give a tensor on
  torch's meta device: shape and dtype, no storage, nothing computed;
* ``torch.zeros`` and ``zeros_like`` of as many elements and such a dtype
  give real zeros in shared memory that no page backs until written, so
  that a runner's ``share_memory_`` copies nothing;
* whatever is computed from such a tensor is one too (torch's meta
  kernels), and a write of one into an ordinary tensor leaves it as it was;
* when the program hands one to pldsim, or moves it to the CPU
  (``.cpu()``, ``.to("cpu")``), it becomes a tensor of that shape
  in shared memory that no page backs until something writes it, and
  nothing does: the run copies no such value.

The integers that steer a run (token ids, routing tables, counts: INT32
and INT64, and ``torch.rand``, ``randint``, ``randperm``, whose results
choose routes) are made as usual, so the run takes the data's path and its
time is that of ``--timing-only``, to the bit.  Reading a value of a
shape-only tensor on the host (``.item()``, ``.tolist()``, ``bool(...)``)
stops the program with one line naming its file:line, since there is no
value to give.  docs/python.md says more."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

from . import PACKAGE_DIRS
from .isolate import tensors_in
from .options import _TRUE
from .resident import NEVER_WRITTEN
from .values import fork_shared_zeros, is_fork_shared

#: below this many elements a tensor is made as usual: constants, scales
#: and small tables cost nothing, and a program may well read them
MIN_ELEMENTS = 1 << 16

_paused = False
_warned = False


def enabled() -> bool:
    """Is this run --shape-only (PLD_SHAPE_ONLY set true)?"""
    return os.environ.get("PLD_SHAPE_ONLY", "").strip().lower() in _TRUE


def unsupported() -> str | None:
    """Why this interpreter's torch cannot run --shape-only, or None.
    Before 2.1 a function mode survived no fork (a sim run's child hung in
    it, torch 1.13) and the meta device lacked kernels the generators use."""
    try:
        import torch
    except ImportError:
        return "needs torch, and this interpreter has none"
    major, minor = (int(p) for p in torch.__version__.split(".")[:2])
    if (major, minor) < (2, 1):
        return (f"needs torch >= 2.1 (its meta device and function modes), and {sys.executable} has torch "
                f"{torch.__version__}; ./bootstrap installs torch 2.13 into .venv")
    return None


def _torch() -> Any:
    import torch

    return torch


def _kept(dtype: Any) -> bool:
    """Does --timing-only keep values of torch dtype `dtype` (mem.h's rule)?"""
    t = _torch()
    return dtype in (t.int32, t.int64, getattr(t, "uint32", None))


def _is_meta(x: Any) -> bool:
    t = _torch()
    return isinstance(x, t.Tensor) and x.device.type == "meta"


def _to_meta(v: Any) -> Any:
    t = _torch()
    if isinstance(v, t.Tensor) and v.device.type != "meta" and v.dim() > 0:
        return v.to("meta")
    if isinstance(v, list):
        return [_to_meta(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_meta(x) for x in v)
    return v


def _program_line() -> str:
    """FILE:LINE of the innermost frame outside torch and pldsim (by their
    directories: a user's own project may well live in one named pldsim)."""
    skip = (*PACKAGE_DIRS, os.path.dirname(os.path.abspath(_torch().__file__)) + os.sep)
    for fr in reversed(traceback.extract_stack()[:-2]):
        f = os.path.abspath(fr.filename)
        if not f.startswith(skip) and not fr.filename.startswith("<"):
            return f"{fr.filename}:{fr.lineno}"
    return "<program>"


class ShapeOnlyError(RuntimeError):
    """A value of a shape-only tensor was asked for."""


_Mode: Any = None


def _mode_class() -> Any:
    global _Mode
    if _Mode is not None:
        return _Mode
    t = _torch()
    from torch.overrides import TorchFunctionMode

    factories = {t.randn, t.randn_like, t.normal, t.empty, t.empty_like, t.empty_strided}
    zeros = {t.zeros, t.zeros_like}
    # the writes of a value into a tensor, by name: with a shape-only source
    # the destination keeps what it held
    writes = {"__setitem__", "copy_"}
    reads = {"item", "tolist", "__bool__", "__int__", "__float__", "__index__", "numpy", "__array__"}

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if _paused:
                return func(*args, **kwargs)
            if func in zeros and set(kwargs) <= {"dtype", "device"} and kwargs.get("device") in (None, "cpu") \
                    and not any(_is_meta(a) for a in args):
                probe = func(*args, **{**kwargs, "device": "meta"})
                if isinstance(probe, t.Tensor) and probe.numel() >= MIN_ELEMENTS and not _kept(probe.dtype):
                    # real zeros, in shared memory that no page backs until
                    # written: a runner's share_memory_ then copies nothing
                    # (pro/decode_fwd.py's caches are larger than /dev/shm)
                    return fork_shared_zeros(list(probe.shape), probe.dtype)
                return func(*args, **kwargs)
            if func in factories and kwargs.get("device") in (None, "cpu") and not any(_is_meta(a) for a in args):
                probe = func(*args, **{**kwargs, "device": "meta"})
                if isinstance(probe, t.Tensor) and probe.numel() >= MIN_ELEMENTS and not _kept(probe.dtype):
                    return probe
                return func(*args, **kwargs)
            name = getattr(func, "__name__", "")
            if name in ("is_shared", "share_memory_") and args and isinstance(args[0], t.Tensor) \
                    and args[0].device.type == "cpu" and is_fork_shared(args[0]):
                # a placeholder is shared with a forked child as it is: a
                # runner that asks it to be shared must not copy it
                return True if name == "is_shared" else args[0]
            flat = tensors_in([args, kwargs])
            if not any(_is_meta(a) for a in flat):
                return func(*args, **kwargs)
            if _is_meta(args[0] if args else None) and (
                name == "cpu" or (name == "to" and "cpu" in (str(a) for a in [*args[1:], kwargs.get("device")]))
            ):
                return placeholder(args[0])  # where pldsim will see it
            if name in reads:
                raise ShapeOnlyError(
                    f"{_program_line()}: --shape-only: this reads a value of a tensor that carries only its "
                    f"shape (made by torch.randn, torch.empty or from one); drop --shape-only to compute it"
                )
            if name in writes and args and isinstance(args[0], t.Tensor) and not _is_meta(args[0]):
                return None if name == "__setitem__" else args[0]  # it keeps what it held
            if name.endswith("_") and not name.endswith("__") and args and isinstance(args[0], t.Tensor) and not _is_meta(args[0]):
                return args[0]  # an in-place update of an ordinary tensor by a shape-only one
            return func(*_to_meta(list(args)), **{k: _to_meta(v) for k, v in kwargs.items()})

    _Mode = Mode
    return Mode


class paused:
    """Within it, torch runs as usual: pldsim's own work during a run."""

    def __enter__(self) -> None:
        global _paused
        self.was = _paused
        _paused = True

    def __exit__(self, *exc: Any) -> None:
        global _paused
        _paused = self.was


def install() -> None:
    """Before the program runs: shape-only tensors from here on."""
    if not enabled():
        return
    mode = _mode_class()()
    mode.__enter__()  # for the rest of the process


_PLACEHOLDERS: dict[int, tuple[Any, Any]] = {}


def placeholder(x: Any) -> Any:
    """The tensor pldsim sees for shape-only tensor `x`: its shape and dtype
    in shared memory that no page backs until written (nothing writes it:
    the run copies no such value), the same one each time `x` is passed."""
    got = _PLACEHOLDERS.get(id(x))
    if got is not None and got[0] is x:
        return got[1]
    if _kept(x.dtype):
        global _warned
        if not _warned:
            _warned = True
            print(f"[pldsim] --shape-only: a {x.dtype} argument of shape {list(x.shape)} was computed from shape-only "
                  "tensors and holds zeros; a run that steers by it may take another path than with data (said once)",
                  file=sys.stderr)
    with paused():
        p = fork_shared_zeros(tuple(x.shape), x.dtype)
    if not _kept(x.dtype):
        NEVER_WRITTEN.add(p.data_ptr())
    _PLACEHOLDERS[id(x)] = (x, p)
    return p


def materialize(values: Any) -> Any:
    """`values` (a program's arguments, with lists, tuples and dicts) with
    each shape-only tensor replaced by its placeholder."""
    if _is_meta(values):
        return placeholder(values)
    if isinstance(values, list):
        return [materialize(v) for v in values]
    if isinstance(values, tuple):
        return tuple(materialize(v) for v in values)
    if isinstance(values, dict):
        return {k: materialize(v) for k, v in values.items()}
    return values


def report(e: BaseException) -> bool:
    """Prints a ShapeOnlyError as its one line; False for anything else."""
    if isinstance(e, ShapeOnlyError):
        print(e, file=sys.stderr)
        return True
    return False
