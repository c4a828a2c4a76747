"""``DistributedConfig`` (which devices a run uses) and the compiled
program type, as in upstream's pypto.ir.distributed_compiled_program."""

from __future__ import annotations

from dataclasses import dataclass, field

from pldsim.program import CompiledProgram as DistributedCompiledProgram


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
        if any(d < 0 for d in self.device_ids):
            raise ValueError(f"DistributedConfig.device_ids must be non-negative device indices, got {self.device_ids}")
        if len(set(self.device_ids)) != len(self.device_ids):
            raise ValueError(f"DistributedConfig.device_ids must be distinct, got {self.device_ids}")
        if self.num_sub_workers < 0:
            raise ValueError(f"DistributedConfig.num_sub_workers must be non-negative, got {self.num_sub_workers}")
        if self.aicpu_thread_num < 0 or self.aicpu_thread_num == 1:
            raise ValueError(
                "DistributedConfig.aicpu_thread_num must be 0 (architecture default) or at least 2, "
                f"got {self.aicpu_thread_num}"
            )


__all__ = ["DistributedCompiledProgram", "DistributedConfig"]
