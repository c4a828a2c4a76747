"""``--timing-only`` for Python programs: what changes above libpld.

libpld does the work itself: under ``PLD_TIMING_ONLY`` no tile holds
values, so loads, the vector math and the cube's products (computed with
torch on a tile's values, python/pldsim/vector_math.py and cube.py) are
charged and skipped, and stores leave host outputs as they were.  The
simulated times are those of a run with data (tests/python/test_timing_only.py).

A program's own checks of its outputs then fail, by construction.  For
pypto-lib's golden runner (``golden.run`` and ``golden.run_jit``), the
harness all of pypto-lib's model files use, this module asks for what a
timing study wants: no golden reference is computed and nothing is
validated, as when a file passes neither ``golden_fn`` nor
``golden_data`` (the runner then reports "validation skipped").  That
spares the golden's own torch work too, often the larger part of a run.
Any other program runs as it is written."""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
from typing import Any

from .options import _TRUE

#: the module and functions of pypto-lib's golden runner this mode adjusts
GOLDEN_RUNNER = "golden.runner"
GOLDEN_ENTRIES = ("run", "run_jit")


def enabled() -> bool:
    """Is this run --timing-only (PLD_TIMING_ONLY set true, or
    PLD_SHAPE_ONLY, which implies it)?"""
    return any(os.environ.get(v, "").strip().lower() in _TRUE for v in ("PLD_TIMING_ONLY", "PLD_SHAPE_ONLY"))


def _without_golden(fn: Any) -> Any:
    """`fn` (a golden runner entry) called with no golden reference."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    if not {"golden_fn", "golden_data"} <= set(sig.parameters):
        return fn  # another runner than the one this was written against: left alone

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        if bound.arguments.get("golden_fn") is not None or bound.arguments.get("golden_data") is not None:
            print("[pldsim] --timing-only: no golden computed, nothing validated (outputs hold no values)", flush=True)
        bound.arguments["golden_fn"] = None
        bound.arguments["golden_data"] = None
        return fn(*bound.args, **bound.kwargs)

    return run


class _Loader(importlib.abc.Loader):
    """The real loader of the golden runner, then the entries wrapped."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.real.exec_module(module)
        for name in GOLDEN_ENTRIES:
            fn = getattr(module, name, None)
            if callable(fn):
                setattr(module, name, _without_golden(fn))


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the golden runner as the other finders do, with _Loader."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != GOLDEN_RUNNER:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Before the program runs: adjust pypto-lib's golden runner when the
    program imports it (nothing happens if it never does)."""
    if enabled() and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
