"""What the Python front end's tests share: where the build is, running
pldsim-py and the C steps, and reading text traces."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

BUILD = os.environ.get("PLDSIM_BUILDDIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SRC = os.environ.get("PLDSIM_SRCDIR", BUILD)
RUNNER = os.path.join(BUILD, "tools", "pldsim-py")
PROGRAMS = os.path.join(SRC, "tests", "python", "programs")
STEPS = os.path.join(SRC, "tutorials")
#: how long any one run may take before the test calls it a hang
TIMEOUT = 120


def run(
    argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess:
    """Runs a command (`input_text` on its stdin); its stdout and stderr as
    text.  A hang fails the test."""
    full = dict(os.environ)
    # the PLD_* settings of the caller's shell must not change the runs
    for k in list(full):
        if k.startswith("PLD_"):
            del full[k]
    full.update(env or {})
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, env=full, cwd=cwd, input=input_text)


def pldsim_py(
    *args: str, env: dict[str, str] | None = None, cwd: str | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess:
    return run([RUNNER, *args], env=env, cwd=cwd, input_text=input_text)


_UNITS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "TBps": 1e12, "GBps": 1e9,
          "MBps": 1e6, "kBps": 1e3, "KBps": 1e3, "Bps": 1.0, "KiB": 1024.0, "MiB": 1048576.0, "B": 1.0,
          "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3}


def model(name: str = "a2a3") -> dict[str, float]:
    """The numeric keys of models/NAME.model, in seconds, bytes and bytes
    per second, as the library reads them: the closed forms of the tests
    follow the model instead of copying its numbers."""
    keys: dict[str, float] = {}
    with open(os.path.join(SRC, "models", f"{name}.model")) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if "=" not in text:
                continue
            key, value = (x.strip() for x in text.split("=", 1))
            for unit in sorted(_UNITS, key=len, reverse=True):
                if value.endswith(unit):
                    try:
                        keys[key] = float(value[: -len(unit)]) * _UNITS[unit]
                    except ValueError:
                        pass
                    break
            else:
                try:
                    keys[key] = float(value)
                except ValueError:
                    pass
    return keys


def model_us(name: str = "a2a3") -> dict[str, float]:
    """model(), in microseconds and bytes (or elements) per microsecond."""
    per_time = ("_bw", "_rate")
    return {k: v / 1e6 if k.endswith(per_time) else v * 1e6 for k, v in model(name).items()}


def task_start_us(m: dict[str, float]) -> float:
    """What a dispatch's first task-graph task (pl.at, pl.submit, all the
    blocks of one pl.spmd) pays before its first op, in model_us()'s m: the
    orchestrator's submission of it, then its launch."""
    return m["submit_lat"] + m["launch_lat"]


def program(name: str) -> str:
    """A test program of tests/python/programs."""
    return os.path.join(PROGRAMS, name)


def step(name: str) -> str:
    """A Python tutorial step (tutorials/NN_name.py)."""
    return os.path.join(STEPS, name + ".py")


def c_step(name: str) -> str:
    """A built C tutorial step."""
    return os.path.join(BUILD, "tutorials", name)


def trace_rows(path: str) -> list[tuple[str, ...]]:
    """A text trace's lines without the columns a Python program and its C
    twin may differ in: the buffer name (where) and the source location."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            c = line.split()
            rows.append(tuple(c[:5] + c[6:9]))
    return rows


def in_parallel(fn, items: list, workers: int = 2) -> list:
    """fn over items, two at a time (the machine has two cores)."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="pldsim-pytest-")


def _torch_before_2_1() -> bool:
    import torch

    return tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 1)


#: the interpreter the tests run (the one pldsim-py runs) has a torch older than 2.1
TORCH_BEFORE_2_1 = _torch_before_2_1()


def fault_line(path: str, name: str) -> int:
    """The line of `path` (a test program) marked `# FAULT name`: where the
    fault's message must point."""
    with open(path) as f:
        return next(i for i, l in enumerate(f, 1) if l.rstrip().endswith(f"# FAULT {name}"))


def messages(stderr: str) -> list[str]:
    """The error lines of a run's stderr: no traceback, summary or warning."""
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback", "[pldsim]")) and ": warning: " not in l]


def sim_time_us(r) -> float:
    """The simulated time on a run's summary line, in us."""
    return float(re.search(r"time=([0-9.]+) us", r.stdout + r.stderr).group(1))
