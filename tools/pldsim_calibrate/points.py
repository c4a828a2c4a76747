"""A point: one measured configuration (a program, P, a size, a core
count), the measurements of it, and the command line that simulates it."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field

from . import TOP


@dataclass
class Point:
    """One measured configuration and the median of its repeated runs."""

    program: str  # mesh, ring, host-mesh, host-ring, a2av/<pattern>, gemm/<dtype>, tget/<how>
    P: int
    size: int  # allreduce: FP32 elements per rank; a2av: bytes per peer; gemm: N of
    #            an N x N x N GEMM; tget: bytes read
    core_num: int = 1
    values: list = field(default_factory=list)  # measured us, one per row
    sources: set = field(default_factory=set)

    @property
    def key(self) -> tuple:
        return (self.program, self.P, self.size, self.core_num)

    @property
    def measured(self) -> float:
        return statistics.median(self.values)

    def label(self) -> str:
        cn = f" core_num={self.core_num}" if self.core_num != 1 else ""
        if self.program.startswith("layer/"):  # a pypto-lib layer: its fast card, P ranks
            return f"{self.program:<26} P={self.P:<2} fast card       "
        if self.program.startswith("launch/"):  # a held-out row's line: no size
            return f"{'launch (empty task)':<18} row {self.program.split('/')[1]:<20}"
        unit = {"a2av": "B/peer", "gemm": "N^3", "tget": "B",
                "gemm_ar": "comm AIV", "split_phase": "steps"}.get(self.program.split("/")[0], "elems")
        if self.program == "gemm_ar/gemm_ratio":  # against a baseline, not a core_num
            cn = f" vs {self.core_num}"
        return f"{self.program:<18} P={self.P:<2} {self.size:>8} {unit}{cn}"

    def gemm(self) -> bool:
        return self.program.startswith("gemm/")

    def args(self) -> list:
        """The command line of this point's program: bench/gemm.py's under
        pldsim-py for a GEMM, else bench/pldsim-measured's."""
        devices = ["-d", f"0-{self.P - 1}"]
        if self.gemm():
            n = str(self.size)
            return [os.path.join(TOP, "bench", "gemm.py"), "--dtype", self.program.split("/")[1],
                    "-m", n, "-k", n, "-n", n]
        if self.program.startswith("tget/"):
            return ["get", "--bytes", str(self.size), "--how", self.program.split("/")[1]] + devices
        if self.program.startswith("a2av/"):
            return ["a2av", "--peer-bytes", str(self.size), "--pattern",
                    self.program.split("/", 1)[1]] + devices
        mode = "ring" if self.program.endswith("ring") else "mesh"
        where = "host" if self.program.startswith("host-") else "kernel"
        return ["allreduce", "--mode", mode, "--where", where, "--count",
                str(self.size), "--core-num", str(self.core_num)] + devices

    def clock(self) -> str:
        """The key of pldsim-measured's output that is this point's clock."""
        return {"a2av": "a2av_us", "tget": "get_us"}.get(self.program.split("/")[0],
                                                         "device_wall_us")
