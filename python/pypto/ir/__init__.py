"""``pypto.ir`` on pldsim: ``ir.compile`` for ``@pl.program`` classes, and
``ParamDirection`` (what a compiled program's ``_get_metadata()`` says of
each parameter).

Each name is pldsim's, re-exported: compile is pldsim/program.py's
compile_program, ParamDirection is from pldsim/metadata.py."""

from pldsim.metadata import ParamDirection
from pldsim.program import compile_program as compile  # noqa: A004 - upstream's name

from .distributed_compiled_program import DistributedConfig

__all__ = ["DistributedConfig", "ParamDirection", "compile"]
