"""The simulated times of a run's dispatches, for ``pypto.runtime.benchmark``.

Each time the host orchestrator dispatches a per-device function, this
records, in run time (simulated on sim): when the host issued it, and when
the rank started and ended it.  The run returns the records with its
statistics (``stats["dispatches"]``), so that they survive the child
process a sim run happens in (isolate.py)."""

from __future__ import annotations

import sys
import threading
from typing import Any

import _pldsim

_lock = threading.Lock()
_records: list[dict[str, Any]] = []
_running: dict[int, list[dict[str, Any]]] = {}


def start() -> None:
    """Forgets the last run's records: a run is about to start."""
    with _lock:
        _records.clear()
        _running.clear()


def issued() -> float:
    """The host's time now, when it issues a dispatch."""
    return _pldsim.time()


def begin(rank: int, name: str, issued_at: float) -> None:
    """Rank `rank` starts the per-device function `name`, issued at `issued_at`."""
    record = {"rank": rank, "function": name, "issued": issued_at, "start": _pldsim.time(), "end": None}
    with _lock:
        _running.setdefault(rank, []).append(record)


def end(rank: int) -> None:
    """Rank `rank` ends the function it started last."""
    now = _pldsim.time()
    with _lock:
        stack = _running.get(rank)
        if not stack:
            return
        record = stack.pop()
        record["end"] = now
        _records.append(record)


def collected() -> list[dict[str, Any]]:
    """The finished dispatches of the run, in the order they ended."""
    with _lock:
        return [dict(r) for r in _records]


def print_profile(total: float, stats: dict) -> None:
    """PLDSIM_PY_PROFILE=1: where a run's wall time went, on stderr.  The
    products are torch's arithmetic for the cube's matmuls; the rest of the
    run is the program's Python, pldsim's own and the simulator; the setup is
    what the call cost around the run (sharing the tensors, the fork)."""
    run_s, products = stats.get("profile_run_s", 0.0), stats.get("profile_products_s", 0.0)
    print(
        f"[pldsim] profile: call {total:.2f} s = setup {max(total - run_s, 0.0):.2f} s + run {run_s:.2f} s "
        f"(torch's matmul products {products:.2f} s, Python and the simulator {max(run_s - products, 0.0):.2f} s)",
        file=sys.stderr,
        flush=True,
    )
