"""`record` and `guard`: the simulated time of a few calibration points
under the model as built, written as the fit's record
(bench/measurements/a2a3-fit-record.csv), and the check that fails when
one has moved from it by more than a tolerance."""

from __future__ import annotations

import argparse
import csv
import io

from .measurements import P_MAX, SIZE_MAX, calibration_points, cube_data
from .points import Point
from .readers import Refused, read_csv, shown
from .simulate import Runner
from .writers import check_writable, write_file

# The recorded points of `guard`: one small and one large of each program.
GUARD = [
    ("mesh", 2, 256),
    ("mesh", 2, 1048576),
    ("mesh", 4, 65536),
    ("a2av/uniform", 2, 0),
    ("a2av/uniform", 4, 4096),
    ("a2av/uniform", 2, 1048576),
    ("gemm/fp16", 1, 2048),
    ("gemm/fp16", 1, 4096),
    ("tget/async", 2, 4096),
    ("tget/async", 2, 4194304),
]

RECORD = "a fit record, as pldsim-calibrate record writes it"
RECORD_COLUMNS = ("program", "P", "size", "simulated_us")


def guard_name(g: tuple) -> str:
    return f"{g[0]} P={g[1]} size {g[2]}"


def guard_points(a: argparse.Namespace) -> list[Point]:
    by_key = {(p.program, p.P, p.size): p
              for p in calibration_points(a.calibration) + cube_data(a.cube).points()}
    missing = [guard_name(g) for g in GUARD if g not in by_key]
    if missing:
        raise Refused(f"{a.calibration} and {a.cube}: no calibration data for "
                      f"{', '.join(missing)}; expected each guard point among the measurements")
    return [by_key[g] for g in GUARD]


def read_record(path: str) -> dict[tuple, float]:
    """The simulated us of each guard point in a fit record.  Refused: a
    point recorded twice, a guard point not recorded (both before any
    point runs), and what read_csv() refuses."""
    rec: dict[tuple, float] = {}
    first: dict[tuple, int] = {}
    for row in read_csv(path, RECORD, RECORD_COLUMNS):
        key = (row.cells["program"], row.whole("P", 1, P_MAX), row.whole("size", 0, SIZE_MAX))
        if key in first:
            raise Refused(f"{row.where()}: {shown(guard_name(key))} is recorded twice (first at "
                          f"line {first[key]}); expected one record of each point")
        first[key] = row.line
        rec[key] = row.time("simulated_us")
    missing = [guard_name(g) for g in GUARD if g not in rec]
    if missing:
        raise Refused(f"{path}: no record of {', '.join(missing)}; expected one of each guard "
                      "point (pldsim-calibrate record writes them)")
    return rec


def cmd_record(a: argparse.Namespace) -> int:
    check_writable(a.write, "the fit record")
    pts = guard_points(a)
    sim = Runner(a.build, a.jobs, pts).all(pts)
    f = io.StringIO()
    f.write("# pldsim-calibrate record: the simulated us of the guard points under the\n"
            "# fitted model; tests/scripts/check_calibration.sh fails when one moves > 10 %.\n")
    w = csv.writer(f)
    w.writerow(["program", "P", "size", "simulated_us", "measured_us"])
    for p, s in zip(pts, sim):
        w.writerow([p.program, p.P, p.size, repr(s), f"{p.measured:.6g}"])
    write_file(a.write, f.getvalue())
    print(f"wrote {a.write}")
    return 0


def cmd_guard(a: argparse.Namespace) -> int:
    rec = read_record(a.record)
    pts = guard_points(a)
    if a.no_python:
        for p in (p for p in pts if p.gemm()):
            print(f"skip {p.label()}: --no-python (a GEMM runs under tools/pldsim-py)")
        pts = [p for p in pts if not p.gemm()]
    sim = Runner(a.build, a.jobs, pts).all(pts, a.topology)
    bad = 0
    for p, s in zip(pts, sim):
        want = rec[(p.program, p.P, p.size)]
        drift = s / want - 1
        ok = abs(drift) <= a.tolerance
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {p.label()}: simulated {s:.2f} us, fitted "
              f"{want:.2f} us ({drift:+.1%}), measured {p.measured:.2f} us")
    if bad:
        print(f"{bad} point(s) moved more than {a.tolerance:.0%} from the fit: the model "
              "changed; refit (tools/pldsim-calibrate fit --write-model models/a2a3.model) "
              "and record again, or undo the change")
    return 1 if bad else 0


def fraction(text: str) -> float | None:
    """`text` as a number from 0 to 1, or None.  Negative or NaN would fail
    or pass every point; above 1 is most likely a percentage (10 for 10 %),
    which would let the model drift tenfold."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if 0 <= v <= 1 else None
