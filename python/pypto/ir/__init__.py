"""``pypto.ir`` on pldsim: ``ir.compile`` for ``@pl.program`` classes, and
``ParamDirection`` (what a compiled program's ``_get_metadata()`` says of
each parameter)."""

from __future__ import annotations

from typing import Any

from pldsim.metadata import ParamDirection
from pldsim.program import compile_program

from .distributed_compiled_program import DistributedConfig


def compile(program: Any, platform: str = "a2a3sim", distributed_config: Any = None, **kwargs: Any) -> Any:  # noqa: A001 - upstream's name
    """Returns the compiled program: call it with the host orchestrator's
    arguments; ``.output_dir`` says where its description was written.
    Upstream's other keywords (strategy, dump_passes, ...) are accepted;
    ``output_dir=`` chooses the directory."""
    return compile_program(program, platform=platform, distributed_config=distributed_config, **kwargs)


__all__ = ["DistributedConfig", "ParamDirection", "compile"]
