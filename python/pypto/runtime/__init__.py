"""``pypto.runtime`` on pldsim: ``RunConfig``, ``run`` (compile and
call in one step), and ``DistributedWorker`` with its resident tensors
(pldsim/resident.py).

RunConfig takes upstream's fields.  pldsim reads ``platform`` (which
pldsim model the run uses: a2a3sim and a2a3 are the a2a3 model, a5sim and
a5 the a5 model), ``distributed_config`` (the devices), ``save_kernels``
and ``save_kernels_dir`` (where the compile's output directory goes); the
others are accepted and have no effect on the simulator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_PLATFORMS = ("a2a3sim", "a2a3", "a5sim", "a5")


@dataclass
class RunConfig:
    """How to compile and run a program (upstream's RunConfig)."""

    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: Any = None
    backend_type: Any = None
    dump_passes: Any = False
    save_kernels: bool = False
    save_kernels_dir: str | None = None
    codegen_only: bool = False
    enable_chip_swimlane: Any = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: Any = None
    disabled_diagnostics: Any = None
    golden_data_dir: str | None = None
    aicpu_thread_num: int | None = None
    ring_task_window: Any = None
    ring_heap: Any = None
    ring_dep_pool: Any = None
    distributed_config: Any = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: Any = None
    dump_ptoas_passes: bool = False

    def __post_init__(self) -> None:
        if self.platform not in _PLATFORMS:
            raise ValueError(f"Invalid platform {self.platform!r}. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.")


def run(program: Any, *args: Any, config: RunConfig | None = None) -> Any:
    """Compiles `program` (a @pl.program class or a decorated host
    function) and runs it once with `args`; returns the compiled program."""
    from pldsim.levels import Function
    from pldsim.program import compile_program

    if isinstance(program, Function):
        compiled = program.compile(*args, config=config)
    else:
        cfg = config or RunConfig()
        compiled = compile_program(program, platform=cfg.platform, distributed_config=cfg.distributed_config)
    compiled(*args)
    return compiled


def DistributedWorker(compiled: Any, *, inherited_host_tensors: Any = None, **kwargs: Any) -> Any:  # noqa: N802 - upstream's class name
    """A worker for one compiled program or a list of them (the first is
    the default; ``run(compiled, *args)`` picks another).  Other keywords
    go to ``prepare``."""
    del inherited_host_tensors  # pldsim's runs fork with every host tensor in shared memory
    programs = list(compiled) if isinstance(compiled, (list, tuple)) else [compiled]
    if not programs:
        raise ValueError("DistributedWorker needs at least one compiled program")
    return programs[0].prepare(extra_compiled=programs[1:], **kwargs)


def __getattr__(name: str) -> Any:
    if name in ("DeviceTensor", "StackedDeviceTensor"):
        from pldsim import resident

        return getattr(resident, name)
    raise AttributeError(f"module 'pypto.runtime' has no attribute {name!r}")


__all__ = ["DeviceTensor", "DistributedWorker", "RunConfig", "StackedDeviceTensor", "run"]
