"""`validate`: every calibration and held-out point on the model as built,
simulated against measured, the error of each set apart; with --out the
tables (validation.csv) and one chart per program, drawn by pldsim-plot."""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys

from .layers import check_repo, layer_points, layers_simulate
from .measurements import (calibration_points, cube_data, gemm_ar_points, heldout_points,
                           runtime_points, runtime_rows)
from .readers import Refused
from .report import geomean, report
from .simulate import Runner, gemm_ar_simulate, runtime_simulate
from .writers import check_writable, write_file


def cmd_validate(a: argparse.Namespace) -> int:
    if a.out:
        check_out_dir(a.out)
    cube, cube_out = cube_data(a.cube), cube_data(a.cube_heldout, heldout=True)
    shared = gemm_ar_points(a.gemm_ar)
    # read once: the split-phase and launch points and the layers share the file
    rows = runtime_rows(a.runtime_heldout)
    split = runtime_points(a.runtime_heldout, rows)
    layers = layer_points(rows)
    if a.pypto_lib and not layers:
        raise Refused(f"{a.runtime_heldout}: no layer row that --pypto-lib could run; expected "
                      "a row of kind layer whose source names a pypto-lib commit that "
                      "tools/pldsim_calibrate/layers.py runs")
    if a.pypto_lib:
        check_repo(a.pypto_lib, layers)
    sets = [("calibration set (fitted on)", calibration_points(a.calibration)),
            ("held-out set (never fitted on)", heldout_points(a.heldout)),
            ("cube/SDMA calibration (fitted on)", cube.points()),
            ("cube/SDMA held-out (never fitted on)", cube_out.points()),
            ("shared GM held-out (never fitted on)", shared),
            ("runtime held-out (never fitted on)", split)]
    if a.pypto_lib:
        sets.append(("layers held-out (never fitted on)", layers))
    run = Runner(a.build, a.jobs, cube.gemm + cube_out.gemm)
    summary, tables = [], []
    for title, pts in sets:
        sim = (gemm_ar_simulate(a.build, a.jobs, pts) if pts is shared
               else runtime_simulate(a.build, pts) if pts is split
               else layers_simulate(a.build, a.pypto_lib, pts) if pts is layers else run.all(pts))
        errs = report(pts, sim, title)
        summary.append((title, geomean(errs), max(errs), sum(e <= 2 for e in errs), len(errs)))
        tables.append((title, pts, sim))
    print("\n== summary ==")
    for title, g, worst, ok, n in summary:
        print(f"{title:<38} geomean error {g:.3f}x, worst {worst:.2f}x, {ok}/{n} within 2x")
    if not a.pypto_lib:
        print(f"{'layers held-out':<38} not run: give --pypto-lib DIR (make validate "
              "PYPTO_LIB=DIR), a clone of hw-native-sys/pypto-lib")
    if a.out:
        write_out(a, tables)
    return 0


def check_out_dir(path: str) -> None:
    """Makes validate's --out DIR now and tries a file in it, so that a bad
    DIR is refused before the points run, not after."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise Refused(f"{path}: not a directory; expected a directory for validate's tables "
                      "and plots")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise Refused(f"{path}: cannot make the directory: {e.strerror}; expected a directory "
                      "for validate's tables and plots") from None
    check_writable(os.path.join(path, "validation.csv"), "the validation table")


def write_out(a: argparse.Namespace, tables: list) -> None:
    f = io.StringIO()
    w = csv.writer(f)
    w.writerow(["set", "program", "P", "size", "core_num", "simulated_us", "measured_us",
                "min_us", "max_us", "n", "ratio"])
    for title, pts, sim in tables:
        for p, s in zip(pts, sim):
            w.writerow([title.split(" (")[0], p.program, p.P, p.size, p.core_num, f"{s:.6g}",
                        f"{p.measured:.6g}", min(p.values), max(p.values), len(p.values),
                        f"{s / p.measured:.4f}"])
    write_file(os.path.join(a.out, "validation.csv"), f.getvalue())
    plot = os.path.join(a.build, "tools", "pldsim-plot")
    # one chart per program family: measured medians and simulated times
    # against the size, one pair of lines per P
    families: dict[str, list] = {}
    for title, pts, sim in tables:
        for p, s in zip(pts, sim):
            if (p.core_num != 1 or p.program.startswith("gemm_ar/")
                    or (p.program.startswith("a2av/") and p.program != "a2av/uniform")):
                continue
            families.setdefault(p.program, []).append((p, s))
    for prog, rows in sorted(families.items()):
        files = []
        for P in sorted({p.P for p, _ in rows}):
            ser = sorted((p.size, p.measured, s) for p, s in rows if p.P == P and p.size > 0)
            if len(ser) < 2:
                continue
            # the x axis: bytes, but N for a GEMM; an allreduce's size is FP32s
            scaled = prog.split("/")[0] in ("a2av", "gemm", "tget")
            bytes_of = (lambda n: n) if scaled else (lambda n: 4 * n)
            for what, col in (("measured", 1), ("pldsim", 2)):
                name = os.path.join(a.out, f"{prog.replace('/', '-')}-P{P}-{what}.txt")
                write_file(name, "".join(f"{bytes_of(row[0])} {row[col]:.6g}\n" for row in ser))
                files.append(f"{name}=P={P} {what}")
        if not files or not os.access(plot, os.X_OK):
            continue
        svg = os.path.join(a.out, f"{prog.replace('/', '-')}.svg")
        family = prog.split("/")[0]
        xl = {"a2av": "bytes per peer", "gemm": "N (an N x N x N GEMM)",
              "tget": "bytes read"}.get(family, "bytes per rank")
        clock = {"a2av": "fastest-rank kernel (us)",
                 "tget": "the read's span (us)"}.get(family, "device wall (us)")
        r = subprocess.run([plot, "--xy", "--xlabel", xl, "--ylabel", clock, "-t",
                            f"{prog} on a2a3: pldsim against 910B", "-o", svg] + files[:12],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"pldsim-calibrate: pldsim-plot failed: {r.stderr.strip()}")
        print(f"wrote {svg}")

