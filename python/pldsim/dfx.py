"""The runtime diagnostics that upstream's ``RunConfig`` switches on
(``enable_dep_gen``, ``enable_scope_stats``, ``enable_chip_swimlane``),
written per dispatch as upstream's L3 driver lays them out::

    <output_dir>/dfx_outputs/rank{r}/d{k}/deps.json
    <output_dir>/dfx_outputs/rank{r}/d{k}/scope_stats/scope_stats.jsonl
    <output_dir>/dfx_outputs/rank{r}/d{k}/chip_swimlane_records.json

``d{k}`` is rank r's k-th dispatch.  The contents are what pldsim observed
of that dispatch, in simulated time: its kernels in program order (on one
vector core each depends on the one before, which is the dependency graph
``deps.json`` gives), one scope-statistics line per kernel, and one
swimlane record per kernel.  Upstream's files come from the device
runtime and hold more (AICPU scheduling, per-instruction PMU counts); these
hold what a simulation of the API can know.  As upstream's driver does,
swimlanes switch dependency generation on too.

The files are written by the rank when its dispatch ends, so they exist
when the compiled program's call returns (the run's child process shares
the output directory)."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import _pldsim

_settings: dict[str, Any] | None = None
_lock = threading.Lock()
_count: dict[int, int] = {}
_current: dict[int, dict[str, Any]] = {}


def configure(config: Any, output_dir: Any) -> None:
    """Turns the diagnostics on for the next run as `config` asks (off when
    it asks for none)."""
    global _settings
    swimlane = bool(getattr(config, "enable_chip_swimlane", 0)) if config is not None else False
    dep_gen = swimlane or bool(getattr(config, "enable_dep_gen", False)) if config is not None else False
    scope = bool(getattr(config, "enable_scope_stats", False)) if config is not None else False
    _count.clear()
    _current.clear()
    if not (dep_gen or scope or swimlane):
        _settings = None
        return
    _settings = {"dir": os.path.join(str(output_dir), "dfx_outputs"), "deps": dep_gen, "scope": scope, "swimlane": swimlane}


def task_begin(rank: int, name: str) -> None:
    """Rank `rank` starts a dispatched task, per-device function `name`."""
    if _settings is None:
        return
    with _lock:
        k = _count.get(rank, 0)
        _count[rank] = k + 1
    _current[rank] = {"dispatch": k, "function": name, "start": _pldsim.time(), "kernels": []}


def kernel_done(name: str, file: str, line: int, start: float) -> None:
    """The running rank's kernel `name`, called at file:line, ran from
    `start` until now (seconds of run time)."""
    if _settings is None:
        return
    task = _current.get(_pldsim.self())
    if task is not None:
        task["kernels"].append({"kernel": name, "source": f"{os.path.basename(file)}:{line}", "start": start, "end": _pldsim.time()})


def _ns(t: float) -> float:
    return round(t * 1e9, 3)


def task_end(rank: int) -> None:
    """Rank `rank`'s task ended: its files are written."""
    if _settings is None or rank not in _current:
        return
    task = _current.pop(rank)
    end = _pldsim.time()
    d = os.path.join(_settings["dir"], f"rank{rank}", f"d{task['dispatch']}")
    os.makedirs(d, exist_ok=True)
    kernels = task["kernels"]
    if _settings["deps"]:
        deps = {
            "rank": rank,
            "dispatch": task["dispatch"],
            "function": task["function"],
            "tasks": [{"id": i, "kernel": k["kernel"], "source": k["source"], "deps": [i - 1] if i else []} for i, k in enumerate(kernels)],
        }
        with open(os.path.join(d, "deps.json"), "w") as f:
            json.dump(deps, f, indent=1)
    if _settings["scope"]:
        os.makedirs(os.path.join(d, "scope_stats"), exist_ok=True)
        with open(os.path.join(d, "scope_stats", "scope_stats.jsonl"), "w") as f:
            f.write(json.dumps({"scope": task["function"], "kind": "per-device function", "start_ns": _ns(task["start"]), "end_ns": _ns(end), "duration_ns": _ns(end - task["start"])}) + "\n")
            for k in kernels:
                f.write(json.dumps({"scope": k["kernel"], "kind": "kernel", "source": k["source"], "start_ns": _ns(k["start"]), "end_ns": _ns(k["end"]), "duration_ns": _ns(k["end"] - k["start"])}) + "\n")
    if _settings["swimlane"]:
        records = [{"task_id": i, "kernel": k["kernel"], "core": "aiv0", "start_ns": _ns(k["start"]), "end_ns": _ns(k["end"])} for i, k in enumerate(kernels)]
        with open(os.path.join(d, "chip_swimlane_records.json"), "w") as f:
            json.dump({"rank": rank, "dispatch": task["dispatch"], "records": records}, f, indent=1)
