"""The configuration types a program builds: ``pl.Level``,
``pl.FunctionType``, ``pl.Role``, ``pypto.backend.BackendType``,
``pypto.runtime.RunConfig`` and ``DistributedConfig``.

They are upstream's types, so programs reach them through the ``pypto``
modules, which re-export them from here.  They live in pldsim because the
machinery checks them (scopes.py the ``pl.at`` level, program.py the run's
configuration): defined in ``pypto``, they would make pldsim import its own
façade back.  This module imports nothing of pldsim's, and no extension,
so that the pytest plugin can load it in any pytest process."""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass, field
from typing import Any


def as_upstream(cls: Any, module: str) -> Any:
    """`cls`, named as upstream's own (``repr(type(x))``, pickles): by the
    pypto module that programs import it from, which re-exports it."""
    cls.__module__ = module
    return cls


class FunctionType(enum.Enum):
    """What a ``@pl.function`` is (upstream's FunctionType)."""

    Opaque = 0
    Orchestration = 1
    InCore = 2
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7


class Level(enum.Enum):
    """Where a ``@pl.function`` runs (upstream's Level); HOST is the host."""

    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    CHIP = 4
    HOST = 5
    GLOBAL = 6
    PROCESSOR = 7
    UMA = 8
    NODE = 9
    POD = 10


class Role(enum.Enum):
    """An orchestrator builds and submits work; a sub-worker runs it."""

    Orchestrator = 0
    SubWorker = 1


class BackendType(enum.Enum):
    """The chip a program is compiled for (upstream's BackendType)."""

    Ascend910B = 0  # a2a3 and a2a3sim
    Ascend950 = 1  # a5 and a5sim


_PLATFORMS = ("a2a3sim", "a2a3", "a5sim", "a5")

_backend_type: BackendType | None = None


def set_backend_type(backend_type: Any) -> None:
    """Upstream's global backend type: set once (again with the same type
    is fine, another type is a ValueError, as upstream).  pldsim takes the
    chip's model from the platform; this only records the choice."""
    global _backend_type
    if not isinstance(backend_type, BackendType):
        raise TypeError(f"set_backend_type: expected a pypto.backend.BackendType, got {backend_type!r}")
    if _backend_type is not None and _backend_type is not backend_type:
        raise ValueError(f"set_backend_type: the backend type is already {_backend_type.name}; it cannot become {backend_type.name}")
    _backend_type = backend_type


def get_backend_type() -> BackendType:
    """The type set_backend_type recorded (ValueError before it is set)."""
    if _backend_type is None:
        raise ValueError("get_backend_type: no backend type is configured (call set_backend_type first)")
    return _backend_type


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


def short_ids(ids: Any, brackets: bool = True) -> str:
    """A device list as a message quotes it: whole up to 14 ids, else its
    first 14, '...' and how many (10 000 ids made a 49 KB line; libpld cuts
    its -d lists alike)."""
    ids = list(ids)
    head = ", ".join(str(i) for i in ids[:14])
    if len(head) > 120:  # ids of hundreds of digits
        head = head[:120] + "..."
    if len(ids) > 14:
        head += f", ... ({len(ids)} ids)" if not brackets else ", ..."
    text = f"[{head}]" if brackets else head
    return text + (f" ({len(ids)} ids)" if brackets and len(ids) > 14 else "")


def short_text(raw: str) -> str:
    """A flag's value as a message quotes it: repr'd, cut to 32 characters
    and its length when longer, as libpld quotes a -d list."""
    return repr(raw) if len(raw) <= 32 else f"{raw[:32] + '...'!r} ({len(raw)} characters)"


@dataclass
class DistributedConfig:
    """The devices of a distributed run: rank r runs on device_ids[r].
    Validated as upstream validates it."""

    device_ids: list[int] = field(default_factory=lambda: [0])
    num_sub_workers: int = 0
    runtime: str = "tensormap_and_ringbuffer"
    aicpu_thread_num: int = 0

    def __post_init__(self) -> None:
        if not self.device_ids:
            raise ValueError("DistributedConfig.device_ids must not be empty")
        ids = self.device_ids
        # a list cut short may hide the id at fault: name it then
        at = lambda i: f"; {ids[i]} at index {i}" if len(ids) > 14 else ""  # noqa: E731
        if any(d < 0 for d in ids):
            bad = next(i for i, d in enumerate(ids) if d < 0)
            raise ValueError(f"DistributedConfig.device_ids must be non-negative device indices, got {short_ids(ids)}{at(bad)}")
        if len(set(ids)) != len(ids):
            first = {}
            bad = next(i for i, d in enumerate(ids) if first.setdefault(d, i) != i)  # the first repeat
            raise ValueError(f"DistributedConfig.device_ids must be distinct, got {short_ids(ids)}{at(bad)}")
        if self.num_sub_workers < 0:
            raise ValueError(f"DistributedConfig.num_sub_workers must be non-negative, got {self.num_sub_workers}")
        if self.aicpu_thread_num < 0 or self.aicpu_thread_num == 1:
            raise ValueError(
                "DistributedConfig.aicpu_thread_num must be 0 (architecture default) or at least 2, "
                f"got {self.aicpu_thread_num}"
            )


for _cls in (FunctionType, Level, Role):
    as_upstream(_cls, "pypto.language")
as_upstream(BackendType, "pypto.backend")
as_upstream(RunConfig, "pypto.runtime")
as_upstream(DistributedConfig, "pypto.ir.distributed_compiled_program")
del _cls
