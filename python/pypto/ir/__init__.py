"""``pypto.ir`` on pldsim: ``ir.compile`` for ``@pl.program`` classes,
``DistributedConfig`` and ``DistributedCompiledProgram`` (what it returns), and
``ParamDirection`` (what a compiled program's ``_get_metadata()`` says of
each parameter).

Each name is pldsim's, re-exported: compile is pldsim/program.py's
compile_program, ParamDirection is from pldsim/metadata.py."""

from pldsim.metadata import ParamDirection
from pldsim.program import compile_program as compile  # noqa: A004 - upstream's name

# upstream's newest import path has both here (issue 40); the module path
# stays for programs written for the older one
from .distributed_compiled_program import DistributedCompiledProgram, DistributedConfig

__all__ = ["DistributedCompiledProgram", "DistributedConfig", "ParamDirection", "compile"]
