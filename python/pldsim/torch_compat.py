"""Pure functions of newer torch that programs' test harnesses call, for
the older torch some systems have (Debian 12's is 1.13): pldsim-py adds
each one to torch only where torch lacks it, with the newer one's meaning.

Today that is ``torch.unravel_index`` (torch 2.2), which pypto-lib's golden
comparison calls on every tensor it checks.  Nothing here can stand in for
a missing dtype (``torch.float8_e4m3fn``, torch 2.1): a program that needs
one needs a newer torch."""

from __future__ import annotations

import math
import sys
from typing import Any


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates in a tensor of `shape` of each flat index in
    `indices` (an int or an integer tensor): one tensor per dimension, each
    of `indices`'s shape, as torch 2.2's ``torch.unravel_index``."""
    import torch

    idx = indices if isinstance(indices, torch.Tensor) else torch.tensor(indices)
    if idx.is_floating_point() or idx.is_complex() or idx.dtype is torch.bool:
        raise TypeError(f"expected 'indices' to be an integer tensor, but got {idx.dtype}")
    dims = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(dims))
    numel = math.prod(dims)
    idx = idx.to(torch.int64)
    if bool(((idx < -numel) | (idx >= numel)).any()):
        raise ValueError(f"'indices' must be in range [{-numel}, {numel - 1}]")
    idx = torch.where(idx < 0, idx + numel, idx)
    coords = []
    for d in reversed(dims):
        coords.append(idx % d if d else idx)
        idx = torch.div(idx, d, rounding_mode="floor") if d else idx
    return tuple(reversed(coords))


def install() -> None:
    """Adds to the loaded torch what it lacks of the above."""
    torch = sys.modules.get("torch")
    if torch is not None and not hasattr(torch, "unravel_index"):
        torch.unravel_index = unravel_index
