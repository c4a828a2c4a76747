"""Pure functions of newer torch that programs' test harnesses call, for
the older torch some systems have (Debian 12's is 1.13): pldsim-py adds
each one to torch only where torch lacks it, with the newer one's meaning.

Today that is ``torch.unravel_index`` (torch 2.2), which pypto-lib's golden
comparison calls on every tensor it checks.  Nothing here can stand in for
a missing dtype (``torch.float8_e4m3fn``, torch 2.1): a program that needs
one needs a newer torch, and names such a dtype of an older torch raise
``NewerTorchNeeded``, which the runner reports in one line naming the torch
the program needs (pypto-lib's DeepSeek-V4 files round their weights
through float8; Debian 12's torch is 1.13)."""

from __future__ import annotations

import sys
from typing import Any


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates in a tensor of `shape` of each flat index in
    `indices` (an int or an integer tensor): one tensor per dimension, each
    of `indices`'s shape, as torch's own ``torch.unravel_index`` (2.2 on)."""
    import torch

    idx = indices if isinstance(indices, torch.Tensor) else torch.tensor(indices)
    if idx.is_floating_point() or idx.is_complex() or idx.dtype is torch.bool:
        raise TypeError(f"expected 'indices' to be an integer tensor, but got {idx.dtype}")
    dims = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(dims))
    # no range check: torch's own (2.13) wraps an index past either end
    # dimension by dimension, as the floor divisions here do
    idx = idx.to(torch.int64)
    coords = []
    for d in reversed(dims):
        coords.append(idx % d if d else idx)
        idx = torch.div(idx, d, rounding_mode="floor") if d else idx
    return tuple(reversed(coords))


#: dtypes of newer torch that programs name, and the release that brought each
NEWER_DTYPES = {
    "float8_e4m3fn": "2.1",
    "float8_e5m2": "2.1",
    "float8_e4m3fnuz": "2.2",
    "float8_e5m2fnuz": "2.2",
    "uint16": "2.3",
    "uint32": "2.3",
    "uint64": "2.3",
    "float8_e8m0fnu": "2.7",
    "float4_e2m1fn_x2": "2.8",
}


class NewerTorchNeeded(AttributeError):
    """A program named a dtype that this torch is too old to have.  It is
    an AttributeError, so ``hasattr(torch, name)`` and ``getattr(torch,
    name, default)`` behave as they would without pldsim."""

    def __init__(self, name: str, release: str):
        import torch

        super().__init__(
            f"torch.{name} needs torch >= {release}, and {sys.executable} has torch {torch.__version__}; "
            "./bootstrap installs torch 2.13 (its CPU build) where pip reaches PyPI, "
            "or name another interpreter with ./configure PYTHON=..."
        )
        self.name = name
        self.release = release


def _newer_torch_getattr(fallback: Any) -> Any:
    """torch's module __getattr__ (PEP 562, asked only for names torch
    lacks): the newer dtypes name their torch, the rest go to torch's own
    __getattr__, if it has one."""

    def getattr_(name: str) -> Any:
        if name in NEWER_DTYPES:
            raise NewerTorchNeeded(name, NEWER_DTYPES[name])
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module 'torch' has no attribute '{name}'")

    getattr_.pldsim_newer_torch = True
    return getattr_


def install() -> None:
    """Adds to the loaded torch what it lacks of the above, and makes the
    newer dtypes it lacks name the torch that has them."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    if not hasattr(torch, "unravel_index"):
        torch.unravel_index = unravel_index
    own = vars(torch).get("__getattr__")
    if any(n not in vars(torch) for n in NEWER_DTYPES) and not hasattr(own, "pldsim_newer_torch"):
        torch.__getattr__ = _newer_torch_getattr(own)
