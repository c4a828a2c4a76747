"""``pypto.backend`` on pldsim: ``BackendType``, the chip a program is
compiled for, and the global ``set_backend_type`` / ``get_backend_type``.  Tools built on upstream's runtime (pypto-lib's golden
runner) pass one to ``ir.compile`` and ``RunConfig``; pldsim compiles
nothing, and takes the chip's model from the platform instead."""

from pldsim.config import BackendType, get_backend_type, set_backend_type

__all__ = ["BackendType", "get_backend_type", "set_backend_type"]
