"""``pypto.runtime.benchmark`` on pldsim: a compiled program run
``warmup + rounds`` times on one prepared worker, and the statistics of
the measured rounds, in simulated time.

Upstream's benchmark reads each dispatch's timing from the runtime's trace
markers: per rank (a ``pid``, one forked process per card there) and per
dispatch, a host span (from the host's call to the end of the run) and a
device span (the orchestrator's wall on the card).  pldsim knows those
times exactly, from the simulation (timing.py): a dispatch's device wall
is its per-device function's run on the rank, from start to end; its host
wall runs from when the host issued it to that end.  ``pid`` is the rank.
Every run is a simulation of its own from time 0, so each round gives the
same numbers; the rounds still run, as asked.

The statistics keep upstream's shape: per round, the device wall is the
largest, over the ranks, of each rank's dispatches' device walls summed;
``per_round("union")`` spans the host timeline of every dispatch of the
round; ``effective`` (upstream's orchestrator-and-scheduler window) is the
device wall, since the simulation has no separate scheduler."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Sequence

from .program import CompiledProgram

_METRICS = {"device": "device_wall_us", "host": "host_wall_us", "effective": "effective_us"}


@dataclass
class TraceInvocation:
    """One dispatch of one round: rank `pid`'s `inv`-th dispatch of the
    benchmark, running per-device function `hid`."""

    pid: int
    inv: int
    hid: str
    device_wall_us: float
    host_wall_us: float
    host_start_us: float  # when the host issued it, in its run's time
    host_end_us: float

    @property
    def effective_us(self) -> float:
        return self.device_wall_us

    @property
    def task(self) -> str:
        return self.hid

    @property
    def task_name(self) -> str:
        return self.hid


def _metric(metric: str, caller: str) -> str:
    attr = _METRICS.get(metric)
    if attr is None:
        raise ValueError(f"{caller}: metric must be one of {sorted(_METRICS)}, got {metric!r}")
    return attr


@dataclass
class BenchmarkStats:
    """What ``benchmark`` returns (upstream's BenchmarkStats), for the
    measured rounds; times in microseconds of simulated time."""

    device_wall_us: list[float] = field(default_factory=list)
    host_wall_us: list[float] = field(default_factory=list)
    rounds: int = 0
    warmup: int = 0
    invocations: list[TraceInvocation] = field(default_factory=list)
    rounds_dispatches: list[dict[int, list[TraceInvocation]]] = field(default_factory=list)
    fallback_flattened: bool = False
    unstable_dispatch_slots: bool = False

    def dispatch_groups(self) -> dict[tuple[int, int], list[TraceInvocation]]:
        """``{(pid, slot): [round 0's, round 1's, ...]}``."""
        if self.unstable_dispatch_slots:
            return {}
        out: dict[tuple[int, int], list[TraceInvocation]] = {}
        for ranks in self.rounds_dispatches:
            for pid, dispatches in ranks.items():
                for slot, d in enumerate(dispatches):
                    out.setdefault((pid, slot), []).append(d)
        return {k: out[k] for k in sorted(out)}

    def dispatch_tasks(self) -> dict[tuple[int, int], str]:
        return {k: g[0].task_name for k, g in self.dispatch_groups().items() if g}

    def per_dispatch(self, metric: str = "device") -> dict[tuple[int, int], list[float]]:
        attr = _metric(metric, "per_dispatch()")
        return {k: [getattr(d, attr) for d in g] for k, g in self.dispatch_groups().items()}

    def per_rank(self, metric: str = "device") -> dict[int, list[float]]:
        """``{pid: [per round: that rank's dispatches summed]}``."""
        attr = _metric(metric, "per_rank()")
        n = len(self.rounds_dispatches)
        out: dict[int, list[float]] = {}
        for k, ranks in enumerate(self.rounds_dispatches):
            for pid, dispatches in ranks.items():
                out.setdefault(pid, [0.0] * n)[k] = sum(getattr(d, attr) for d in dispatches)
        return dict(sorted(out.items()))

    def per_round(self, metric: str = "device") -> list[float]:
        """One number per measured round: ``device``, ``host``, ``effective``
        (the slowest rank's) or ``union`` (the host-timeline window of every
        dispatch of the round)."""
        if metric == "device":
            return list(self.device_wall_us)
        if metric == "host":
            return list(self.host_wall_us)
        if metric == "effective":
            ranks = self.per_rank("effective")
            return [max(v[k] for v in ranks.values()) for k in range(len(self.rounds_dispatches))] if ranks else []
        if metric == "union":
            out = []
            for ranks in self.rounds_dispatches:
                ds = [d for dispatches in ranks.values() for d in dispatches]
                out.append(max(d.host_end_us for d in ds) - min(d.host_start_us for d in ds) if ds else 0.0)
            return out
        raise ValueError(f"per_round(): unknown metric {metric!r}")

    @property
    def samples(self) -> list[float]:
        return self.device_wall_us

    @property
    def device_us_min(self) -> float:
        return min(self.device_wall_us) if self.device_wall_us else 0.0

    @property
    def device_us_median(self) -> float:
        return statistics.median(self.device_wall_us) if self.device_wall_us else 0.0

    @property
    def device_us_mean(self) -> float:
        return statistics.fmean(self.device_wall_us) if self.device_wall_us else 0.0

    @property
    def device_us_max(self) -> float:
        return max(self.device_wall_us) if self.device_wall_us else 0.0

    @property
    def device_us_stdev(self) -> float:
        return statistics.stdev(self.device_wall_us) if len(self.device_wall_us) > 1 else 0.0

    device_wall_us_min = device_us_min
    device_wall_us_median = device_us_median
    device_wall_us_mean = device_us_mean
    device_wall_us_max = device_us_max
    device_wall_us_stdev = device_us_stdev

    @property
    def all_zero_device(self) -> bool:
        """Never, on pldsim, once a round ran: the device times are simulated."""
        return bool(self.device_wall_us) and not any(self.device_wall_us)

    def __str__(self) -> str:
        if not self.device_wall_us:
            return f"BenchmarkStats(rounds={self.rounds}: no samples)"
        ranks = len({pid for r in self.rounds_dispatches for pid in r})
        return (
            f"BenchmarkStats(rounds={self.rounds}, warmup={self.warmup}): simulated device_wall_us "
            f"min={self.device_us_min:.1f} median={self.device_us_median:.1f} mean={self.device_us_mean:.1f} "
            f"max={self.device_us_max:.1f} stdev={self.device_us_stdev:.1f} [{ranks} ranks, per-round max across ranks]"
        )


def _round(dispatches: list[dict[str, Any]], first_inv: dict[int, int]) -> dict[int, list[TraceInvocation]]:
    """One run's dispatches, by rank, in the order each rank started them."""
    out: dict[int, list[TraceInvocation]] = {}
    for d in sorted(dispatches, key=lambda d: (d["rank"], d["start"])):
        pid = d["rank"]
        inv = first_inv.get(pid, 0)
        first_inv[pid] = inv + 1
        out.setdefault(pid, []).append(
            TraceInvocation(
                pid=pid,
                inv=inv,
                hid=d["function"],
                device_wall_us=(d["end"] - d["start"]) * 1e6,
                host_wall_us=(d["end"] - d["issued"]) * 1e6,
                host_start_us=d["issued"] * 1e6,
                host_end_us=d["end"] * 1e6,
            )
        )
    return dict(sorted(out.items()))


def benchmark(
    compiled: Any,
    args: Sequence[Any],
    *,
    rounds: int = 100,
    warmup: int = 3,
    platform: str | None = None,
    device_id: int | None = None,
    config: Any = None,
    persistent: bool = False,
    reset_persistent_windows: bool | None = None,
) -> BenchmarkStats:
    """Runs `compiled` ``warmup + rounds`` times with `args` on one
    prepared worker, and returns the measured rounds' statistics."""
    if rounds <= 0:
        raise ValueError(f"rounds must be positive, got {rounds}")
    if warmup < 0:
        raise ValueError(f"warmup must be non-negative, got {warmup}")
    if not isinstance(compiled, CompiledProgram):
        raise TypeError(f"benchmark(): expects a compiled program (ir.compile, fn.compile), got {type(compiled).__name__}")
    if platform is not None or device_id is not None:
        raise ValueError(
            "benchmark(): platform= and device_id= do not apply to a distributed program, whose devices are "
            "fixed when it is compiled (distributed_config); pass config=RunConfig(...) instead"
        )
    stats = BenchmarkStats(rounds=rounds, warmup=warmup)
    invs: dict[int, int] = {}
    with compiled.prepare(config, persistent=persistent, reset_persistent_windows=reset_persistent_windows) as worker:
        handle = worker.register(compiled)
        for k in range(warmup + rounds):
            handle(*args, config=config)
            run = compiled.last_run_stats or {}
            one = _round(run.get("dispatches", []), invs)
            if k < warmup:
                continue
            stats.rounds_dispatches.append(one)
            for dispatches in one.values():
                stats.invocations.extend(dispatches)
    per_rank_device, per_rank_host = stats.per_rank("device"), stats.per_rank("host")
    for k in range(rounds):
        stats.device_wall_us.append(max((v[k] for v in per_rank_device.values()), default=0.0))
        stats.host_wall_us.append(max((v[k] for v in per_rank_host.values()), default=0.0))
    if not stats.invocations:
        raise RuntimeError(f"benchmark(): {compiled.name} dispatched nothing in {warmup + rounds} runs: there is no timing to read")
    return stats
