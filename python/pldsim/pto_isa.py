"""Upstream's PTO-ISA resolution (``pypto.runtime.pto_isa_include_dir``,
``ensure_pto_isa_root``): the pinned headers that external CCE kernels
(``pl.jit.extern``, built by CANN's compiler) include.  pldsim builds and
runs no such kernel, so these exist only to stop a program that asks, at
its call and in one line, rather than at its import with an ImportError
(pypto-lib's qwen3_14b/paged_attention_cce.py calls one at import time)."""

from __future__ import annotations

from .errors import UnsupportedError


def _refused(op: str) -> UnsupportedError:
    return UnsupportedError(
        op,
        "the PTO-ISA headers serve external CCE kernels (pl.jit.extern, built by CANN's compiler), which pldsim cannot build or run",
    )


def ensure_pto_isa_root() -> str:
    """Refused: see the module's docstring."""
    raise _refused("pypto.runtime.ensure_pto_isa_root")


def pto_isa_include_dir() -> str:
    """Refused: see the module's docstring."""
    raise _refused("pypto.runtime.pto_isa_include_dir")
