"""pldsim-calibrate: the a2a3 model against real 910B runs of the same programs.

    pldsim-calibrate fit [--write-model FILE] [options]
    pldsim-calibrate validate [--out DIR] [options]
    pldsim-calibrate record [--write FILE] [options]
    pldsim-calibrate guard [--record FILE] [--tolerance F] [options]

fit       least squares on log time of the model's fitted keys over the
          CALIBRATION sets only, in three groups: collectives
          (bench/measurements/a2a3-calibration.csv: the composite mesh
          allreduce at P = 2, 4 and all_to_all_v at EP 2, 4; with the sync
          one-sided reads of a2a3-cube-sdma.csv), cube (its GEMMs) and sdma
          (its SDMA reads), each point the median of its repeated
          measurements; the cube's rates and head cost are read off its
          spec rows, and launch_lat and submit_lat off the runtime's
          calibration half (a2a3-runtime.csv), before the groups are fitted; prints the
          keys, and with --write-model rewrites their lines in the model
          file; --check-model FILE fails unless FILE
          holds those keys; --only GROUP fits one group.
validate  runs every calibration and held-out point on the model as built
          (no overrides), prints simulated against measured, the error on
          each set apart, and with --out writes the tables and draws the
          curves with pldsim-plot; with --pypto-lib DIR it also runs the
          held-out whole layers, pypto-lib's own files.
record    writes the simulated time of a few calibration points under the
          model as built (bench/measurements/a2a3-fit-record.csv): what
          `guard` holds the model to.
guard     reruns the recorded points and fails (exit 1) when one has moved
          more than --tolerance (a fraction from 0 to 1; default 0.10) from
          its record.

Every point runs bench/pldsim-measured or, for a GEMM, bench/gemm.py under
tools/pldsim-py, and pto-isa's GEMM + allreduce bench/gemm_ar.py: the
measured programs written in pldsim's own words; upstream's split-phase
case (a2a3-runtime-heldout.csv's defer row, held out) runs
tests/python/programs/split_phase.py under tools/pldsim-py.
docs/validation.md explains the method and the data.

Every file named on the command line (--calibration, --heldout, --cube,
--cube-heldout, --gemm-ar, --runtime, --runtime-heldout, --record, --write, --write-model, --check-model,
--out) is read or tried for writing before any point runs; a bad one is
one line, FILE:LINE, the column and what was expected, and exit 2.  A file is written whole or not at all.
"""

# This docstring is the tool's usage: --help shows its first paragraph as
# the description and its last (the input checks) as the epilog.

from __future__ import annotations

import argparse
import os
import sys

from . import DATA, TOP
from .fit import GROUPS, cmd_fit
from .guard import cmd_guard, cmd_record, fraction
from .readers import Refused
from .validate import cmd_validate


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad command line said in one line (its usage block
    made every error two or more lines) and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        tool, *command = self.prog.split()
        where = f"{' '.join(command)}: " if command else ""
        print(f"{tool}: {where}{message} (see {tool} --help)", file=sys.stderr)
        sys.exit(2)


def main() -> int:
    ap = OneLineParser(prog="pldsim-calibrate",
                       description=__doc__.split("\n\n")[0],
                       epilog=__doc__.split("\n\n")[-1],  # the input checks
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("PLDSIM_BUILD", TOP),
                    help="the build directory holding bench/pldsim-measured (default: the "
                         "source tree)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                    help="simulations at once (default: the core count)")
    ap.add_argument("--calibration", metavar="FILE",
                    default=os.path.join(DATA, "a2a3-calibration.csv"),
                    help="the calibration set's measurements (default: "
                         "bench/measurements/a2a3-calibration.csv)")
    ap.add_argument("--heldout", metavar="FILE", default=os.path.join(DATA, "a2a3-heldout.csv"),
                    help="the held-out set's measurements, for validate (default: "
                         "bench/measurements/a2a3-heldout.csv)")
    ap.add_argument("--cube", metavar="FILE", default=os.path.join(DATA, "a2a3-cube-sdma.csv"),
                    help="the cube's and one-sided reads' calibration figures (default: "
                         "bench/measurements/a2a3-cube-sdma.csv)")
    ap.add_argument("--cube-heldout", metavar="FILE",
                    default=os.path.join(DATA, "a2a3-cube-sdma-heldout.csv"),
                    help="their held-out figures, for validate (default: "
                         "bench/measurements/a2a3-cube-sdma-heldout.csv)")
    ap.add_argument("--gemm-ar", metavar="FILE",
                    default=os.path.join(DATA, "a2a3-gemm-ar-heldout.csv"),
                    help="pto-isa's GEMM + allreduce figures, held out, for validate (default: "
                         "bench/measurements/a2a3-gemm-ar-heldout.csv)")
    ap.add_argument("--runtime", metavar="FILE", default=os.path.join(DATA, "a2a3-runtime.csv"),
                    help="the runtime's calibration figures, for fit: launch_lat and submit_lat "
                         "(default: "
                         "bench/measurements/a2a3-runtime.csv)")
    ap.add_argument("--runtime-heldout", metavar="FILE",
                    default=os.path.join(DATA, "a2a3-runtime-heldout.csv"),
                    help="the runtime's held-out figures, for validate: its split-phase ratio "
                         "(default: bench/measurements/a2a3-runtime-heldout.csv)")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="{fit,validate,record,guard}")
    f = sub.add_parser("fit", help="fit the keys to the calibration set")
    f.add_argument("--write-model", metavar="FILE", help="rewrite the fitted keys' lines in FILE")
    f.add_argument("--check-model", metavar="FILE",
                   help="exit 1 unless FILE holds the keys the fit finds (reproducibility)")
    f.add_argument("--only", metavar="GROUP", action="append", choices=GROUPS,
                   help="fit this group of keys alone (collectives, cube or sdma; may be "
                        "repeated); the others stay as the model file has them")
    f.add_argument("--max-evals", type=int, default=400)
    f.add_argument("--verbose", "-v", action="store_true")
    v = sub.add_parser("validate", help="the model as built against every point")
    v.add_argument("--out", metavar="DIR", help="write validation.csv and the plots here")
    v.add_argument("--pypto-lib", metavar="DIR", default=os.environ.get("PYPTO_LIB") or None,
                   help="a clone of hw-native-sys/pypto-lib: run the held-out whole layers "
                        "(their pypto-lib files, at the commits the measurements name) too "
                        "(default: $PYPTO_LIB; without it they are not run)")
    r = sub.add_parser("record", help="record the guard points under the model as built")
    r.add_argument("--write", metavar="FILE",
                   default=os.path.join(DATA, "a2a3-fit-record.csv"))
    g = sub.add_parser("guard", help="fail when a guard point moved from its record")
    g.add_argument("--record", metavar="FILE",
                   default=os.path.join(DATA, "a2a3-fit-record.csv"))
    g.add_argument("--tolerance", metavar="F", default="0.10",
                   help="the drift a point may have, a fraction from 0 to 1 (default 0.10)")
    g.add_argument("--no-python", action="store_true",
                   help="leave out the GEMM points, which need the Python front end (a build "
                        "without it, or a sanitizer build, which Python cannot load)")
    g.add_argument("--topology", metavar="SPEC",
                   help="run the points on this --topology instead of the model as built "
                        "(to see the guard fail)")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error("--jobs must be 1 or more")
    if a.cmd == "fit" and a.max_evals < 1:
        ap.error("--max-evals must be 1 or more")
    try:
        if a.cmd == "guard":
            text, a.tolerance = a.tolerance, fraction(a.tolerance)
            if a.tolerance is None:
                raise Refused(f"--tolerance '{text}': expected a fraction from 0 to 1 "
                              "(0.10 is 10 %)")
        return {"fit": cmd_fit, "validate": cmd_validate, "record": cmd_record,
                "guard": cmd_guard}[a.cmd](a)
    except Refused as e:
        print(f"pldsim-calibrate: {e}", file=sys.stderr)
        return 2
