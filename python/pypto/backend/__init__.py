"""``pypto.backend`` on pldsim: only ``BackendType``, the chip a program is
compiled for.  Tools built on upstream's runtime (pypto-lib's golden
runner) pass one to ``ir.compile`` and ``RunConfig``; pldsim compiles
nothing, and takes the chip's model from the platform instead."""

from pldsim.config import BackendType

__all__ = ["BackendType"]
