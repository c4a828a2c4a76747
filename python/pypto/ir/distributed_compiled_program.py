"""``DistributedConfig`` (which devices a run uses) and the compiled
program type, as in upstream's pypto.ir.distributed_compiled_program."""

from pldsim.config import DistributedConfig
from pldsim.program import CompiledProgram as DistributedCompiledProgram

__all__ = ["DistributedCompiledProgram", "DistributedConfig"]
