"""``pypto.runtime`` on pldsim: ``RunConfig``, ``run`` (compile and
call in one step), ``DistributedWorker`` with its resident tensors
(pldsim/resident.py), and ``benchmark``, whose statistics are the runs'
simulated times (pldsim/bench.py).

RunConfig takes upstream's fields.  pldsim reads ``platform`` (which
pldsim model the run uses: a2a3sim and a2a3 are the a2a3 model, a5sim and
a5 the a5 model), ``distributed_config`` (the devices), ``save_kernels``
and ``save_kernels_dir`` (where the compile's output directory goes); the
others are accepted and have no effect on the simulator."""

from __future__ import annotations

import warnings
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
        from pypto.backend import BackendType

        if self.platform not in _PLATFORMS:
            raise ValueError(f"Invalid platform {self.platform!r}. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.")
        # as upstream's: the platform decides the chip
        self.backend_type = BackendType.Ascend950 if self.platform.startswith("a5") else BackendType.Ascend910B

    @property
    def enable_l2_swimlane(self) -> Any:
        """The former name of enable_chip_swimlane (deprecated upstream)."""
        return self.enable_chip_swimlane

    @enable_l2_swimlane.setter
    def enable_l2_swimlane(self, value: Any) -> None:
        warnings.warn(_L2_SWIMLANE_RENAMED, DeprecationWarning, stacklevel=2)
        self.enable_chip_swimlane = value


_L2_SWIMLANE_RENAMED = "RunConfig.enable_l2_swimlane is the former name of enable_chip_swimlane; use that"
_dataclass_init = RunConfig.__init__


def _init_with_former_names(self: RunConfig, *args: Any, enable_l2_swimlane: Any = None, **kwargs: Any) -> None:
    """RunConfig(...) that also takes enable_l2_swimlane=, as upstream's does
    (with a DeprecationWarning), for programs written before the rename."""
    if enable_l2_swimlane is not None:
        warnings.warn(_L2_SWIMLANE_RENAMED, DeprecationWarning, stacklevel=2)
        if "enable_chip_swimlane" in kwargs:
            raise ValueError("RunConfig got both enable_chip_swimlane and its former name enable_l2_swimlane; pass only enable_chip_swimlane")
        kwargs["enable_chip_swimlane"] = enable_l2_swimlane
    _dataclass_init(self, *args, **kwargs)


RunConfig.__init__ = _init_with_former_names  # type: ignore[method-assign]


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


def benchmark(compiled: Any, args: Any, **kwargs: Any) -> Any:
    """Runs `compiled` ``warmup + rounds`` times and returns the measured
    rounds' ``BenchmarkStats``, in simulated time (pldsim/bench.py)."""
    from pldsim.bench import benchmark as run_rounds

    return run_rounds(compiled, args, **kwargs)


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
    if name == "BenchmarkStats":
        from pldsim.bench import BenchmarkStats

        return BenchmarkStats
    if name in ("DeviceTensor", "StackedDeviceTensor"):
        from pldsim import resident

        return getattr(resident, name)
    raise AttributeError(f"module 'pypto.runtime' has no attribute {name!r}")


__all__ = ["BenchmarkStats", "DeviceTensor", "DistributedWorker", "RunConfig", "StackedDeviceTensor", "benchmark", "run"]
