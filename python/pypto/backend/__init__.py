"""``pypto.backend`` on pldsim: only ``BackendType``, the chip a program is
compiled for.  Tools built on upstream's runtime (pypto-lib's golden
runner) pass one to ``ir.compile`` and ``RunConfig``; pldsim compiles
nothing, and takes the chip's model from the platform instead."""

from __future__ import annotations

import enum


class BackendType(enum.Enum):
    """The chip a program is compiled for (upstream's BackendType)."""

    Ascend910B = 0  # a2a3 and a2a3sim
    Ascend950 = 1  # a5 and a5sim


__all__ = ["BackendType"]
