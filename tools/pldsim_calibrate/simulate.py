"""The points run on the simulator: bench/pldsim-measured, or bench/gemm.py
under tools/pldsim-py, for most (Runner); bench/gemm_ar.py under
tools/pldsim-py for pto-isa's GEMM + allreduce (gemm_ar_simulate()); the
split-phase program and a task with no work under tools/pldsim-py for
upstream's defer=True figure and its launches (runtime_simulate())."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from . import TOP
from .points import Point
from .readers import Refused


def not_submitted(spec: str) -> str:
    """`spec` for a kernel measured as its own host code launched it, not
    as a task of pypto's orchestrator (the GEMMs, pto-isa's GEMM +
    allreduce): submit_lat 0, whatever `spec` gave it."""
    return ",".join([f for f in spec.split(",") if not f.startswith("submit_lat=")] +
                    ["submit_lat=0"])


class Runner:
    """Runs points through bench/pldsim-measured, in parallel."""

    def __init__(self, build: str, jobs: int, points: list[Point] | None = None):
        self.exe = os.path.join(build, "bench", "pldsim-measured")
        self.py = os.path.join(build, "tools", "pldsim-py")
        for exe, needed in ((self.exe, True), (self.py, any(p.gemm() for p in points or []))):
            if needed and not os.access(exe, os.X_OK):
                raise Refused(f"{exe} is not built (run make first, or give --build the "
                              "build directory)")
        self.jobs = jobs

    def one(self, p: Point, spec: str | None) -> float:
        topology = ["--topology", spec] if spec else []
        if p.gemm():  # pldsim-py's options go before the program
            # the measured GEMMs were launched by torch_npu's and pto-isa's
            # own host code, not submitted by pypto's orchestrator: no
            # submit_lat (bench/gemm.py's one pl.spmd_submit would pay it)
            topology = ["--topology", not_submitted(spec or "hccs")]
            cmd = [self.py, "--timing-only", "--no-summary"] + topology + p.args()
        else:
            cmd = [self.exe] + p.args() + ["--no-summary"] + topology
        r = subprocess.run(cmd, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode == 2 and len(lines) == 1 and lines[0].startswith("pldsim: "):
            # bad input the user gave (a --topology): pldsim's own line is the message
            raise Refused(lines[0][len("pldsim: "):])
        if r.returncode != 0:
            sys.exit(f"pldsim-calibrate: {' '.join(cmd)} failed ({r.returncode}):\n"
                     f"{r.stderr.strip()}")
        out = dict(kv.split("=", 1) for kv in r.stdout.split())
        return float(out[p.clock()])

    def all(self, points: list[Point], spec: str | None = None) -> list[float]:
        with ThreadPoolExecutor(self.jobs) as ex:
            return list(ex.map(lambda p: self.one(p, spec), points))


def spec_of(values: dict[str, float | str]) -> str:
    # the a2a3 model's own shape (hccs) with the keys overridden: a number
    # by its repr, which keeps every bit, a string (a key as the model file
    # writes it) as it is; float() first, as NumPy 2 writes its own floats'
    # repr as np.float64(...), which no --topology takes
    return "hccs," + ",".join(f"{k}={v if isinstance(v, str) else repr(float(v))}"
                              for k, v in values.items())


def gemm_ar_run(py: str, comm: int, scratch: str) -> tuple[float, float]:
    """bench/gemm_ar.py with `comm` AIV beside the GEMM: (the GEMM's own
    time, the largest over the ranks of its first load to its last store,
    read off a --trace; the device wall), in us.  Every rank starts at once
    (dispatch_lat=0): on the machine each rank is a process of its own that
    launches its own kernels."""
    trace = os.path.join(scratch, f"gemm-ar-{comm}.txt")
    cmd = [py, "--timing-only", "--no-summary", "--topology", not_submitted("hccs,dispatch_lat=0"),
           "--trace", trace, os.path.join(TOP, "bench", "gemm_ar.py"), "--comm-cores", str(comm)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)} failed ({r.returncode}):\n"
                 f"{r.stderr.strip()}")
    m = re.search(r"device_wall_us=([0-9.eE+-]+)", r.stdout)
    if not m:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)} printed no device_wall_us")
    wall = float(m[1])
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    with open(trace) as f:
        for line in f:
            c = line.split()
            # start_ns end_ns rank op peer where ...: the GEMM's loads of a
            # and b, its matmuls and its stores to c
            if line.startswith("#") or not ((c[3] == "load" and c[5] in ("a", "b"))
                                            or c[3] == "matmul"
                                            or (c[3] == "store" and c[5] == "c")):
                continue
            first[c[2]] = min(first.get(c[2], math.inf), float(c[0]))
            last[c[2]] = max(last.get(c[2], 0.0), float(c[1]))
    os.unlink(trace)
    if not first:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)}: its trace holds no GEMM op")
    return max(last[r] - first[r] for r in first) / 1e3, wall


def gemm_ar_simulate(build: str, jobs: int, pts: list[Point]) -> list[float]:
    """Each point's simulated value, from one run per comm-core count."""
    py = os.path.join(build, "tools", "pldsim-py")
    if not os.access(py, os.X_OK):
        raise Refused(f"{py} is not built (run make first, or give --build the build directory)")
    counts = sorted({p.size for p in pts} | {p.core_num for p in pts if p.program.endswith("ratio")})
    with tempfile.TemporaryDirectory(prefix="pldsim-calibrate-") as d, \
            ThreadPoolExecutor(min(jobs, 2)) as ex:  # each run holds 1.6 GB
        runs = dict(zip(counts, ex.map(lambda n: gemm_ar_run(py, n, d), counts)))
    out = []
    for p in pts:
        gemm, wall = runs[p.size]
        out.append({"gemm_ar/gemm_us": gemm, "gemm_ar/wall_us": wall}.get(
            p.program, gemm / runs[p.core_num][0] if p.program.endswith("ratio") else 0))
    return out



# upstream's split-phase case: each of 2 ranks gathers 256 FP32 and runs an
# add loop beside it (the program the task tests run too)
SPLIT_PROGRAM = os.path.join(TOP, "tests", "python", "programs", "split_phase.py")


def split_phase_wall(py: str, mode: str, loop: int, scratch: str) -> float:
    """The device wall (us: the slowest rank's longest dispatch, upstream's
    clock) of split_phase.py in `mode` (fused: the blocking allgather and
    the loop in one task; deferred: defer=True, the loop beside it).  Every
    rank starts at once (dispatch_lat=0), as gemm_ar_run's: on the machine
    each rank is a process of its own; with the host's 277 us between the
    ranks' dispatches the first rank's wall is that wait in both modes."""
    return summary_wall(py, SPLIT_PROGRAM, [mode, "allgather", str(loop)],
                        os.path.join(scratch, f"split-{mode}-{loop}.json"))


def summary_wall(py: str, program: str, args: list[str], out: str) -> float:
    """The device wall (us) of `program` under pldsim-py, every rank
    started at once (dispatch_lat=0), read off its --summary-json `out`."""
    cmd = [py, "--no-summary", "--topology", "hccs,dispatch_lat=0", "--summary-json", out,
           program] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr.strip()}")
    with open(out) as f:
        return float(json.load(f)["run"]["device_wall_us"])


# a task with no work on each of 2 ranks: its wall is its submission and its launch
EMPTY_PROGRAM = os.path.join(TOP, "tests", "python", "programs", "empty_task.py")


def runtime_simulate(build: str, pts: list[Point]) -> list[float]:
    """Each runtime point's simulated value: a split_phase/ratio point's,
    the deferred wall over the fused one at its loop steps (its size); a
    launch point's, the device wall of empty_task.py (us), started at once
    as split_phase_wall's runs are."""
    py = os.path.join(build, "tools", "pldsim-py")
    if not os.access(py, os.X_OK):
        raise Refused(f"{py} is not built (run make first, or give --build the build directory)")
    out = []
    with tempfile.TemporaryDirectory(prefix="pldsim-calibrate-") as d:
        empty = None
        for p in pts:
            if p.program.startswith("launch/"):
                if empty is None:
                    empty = summary_wall(py, EMPTY_PROGRAM, [], os.path.join(d, "empty.json"))
                out.append(empty)
            else:
                out.append(split_phase_wall(py, "deferred", p.size, d)
                           / split_phase_wall(py, "fused", p.size, d))
    return out
