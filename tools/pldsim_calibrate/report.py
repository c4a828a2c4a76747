"""The table of simulated against measured times that fit and validate
print, and the error of a set: each point's factor max(sim/meas,
meas/sim), their geometric mean."""

from __future__ import annotations

import math

from .points import Point


def fold(r: float) -> float:
    """The error factor of a ratio: max(r, 1/r)."""
    return max(r, 1 / r)


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def report(pts: list[Point], sim: list[float], title: str) -> list[float]:
    print(f"\n== {title}: {len(pts)} points ==")
    print(f"{'program':<18} {'P':<4} {'size':>8}       {'simulated us':>12} "
          f"{'measured us':>12} {'(min..max, n)':>22} {'sim/meas':>9}")
    errs = []
    for p, s in zip(pts, sim):
        r = s / p.measured
        errs.append(fold(r))
        spread = f"({min(p.values):.4g}..{max(p.values):.4g}, {len(p.values)})"
        print(f"{p.label():<36} {s:12.2f} {p.measured:12.2f} {spread:>22} {r:9.3f}")
    print(f"geometric mean of max(sim/meas, meas/sim): {geomean(errs):.3f}; "
          f"worst {max(errs):.2f}x; within 2x: {sum(e <= 2 for e in errs)}/{len(errs)}")
    return errs
