"""`fit`: least squares on log time of the model's fitted keys over the
calibration points, group by group; the keys read off the cube file's
spec rows; and the model file the keys are checked against
(--check-model) or written into (--write-model)."""

from __future__ import annotations

import argparse
import math
import os
import platform
import shlex
import subprocess
import sys

from .measurements import RUNTIME_CAL_KEYS, calibration_points, cube_data, runtime_keys
from .points import Point
from .readers import Refused, read_text, text_lines
from .report import report
from .simulate import Runner, spec_of
from .writers import check_writable, write_file

# The keys the fit moves: (model key, --topology field, start, lower, upper).
# Held fixed, and why (docs/validation.md): link_lat (every pull, push and
# notify pays it beside a fitted core cost, so the data cannot tell it
# apart: the fit only slides along that valley), push_bw (a 32-byte and a 256-byte push cost the same on the
# machine: no per-byte term is seen), poll_lat (every measured wait follows
# a notify, so it cannot be told from signal_lat), vector_rate.  launch_lat
# is not moved by least squares either: it is read off the runtime's own
# measured launches first (RUNTIME_KEYS), and the collectives are fitted
# with it.
FIT_KEYS = [
    ("dispatch_lat", "dispatch_lat", 245e-6, 1e-6, 10e-3),
    ("signal_lat", "signal_lat", 0.3e-6, 1e-9, 10e-6),
    ("hbm_lat", "hbm_lat", 80e-9, 1e-10, 5e-6),
    ("hbm_bw", "hbm_bw", 100e9, 1e9, 10e12),
    ("push_lat", "push_lat", 0.35e-6, 1e-10, 10e-6),
    ("pull_bw", "pull_bw", 5e9, 1e8, 1e12),
    # a pull's fixed cost: the collectives pull 16 KiB chunks only, which
    # cannot tell it from pull_bw; the TGET reads of the cube file (4 KiB
    # chunks, fitted with these keys) can
    ("pull_lat", "pull_lat", 0.1e-6, 1e-10, 10e-6),
]

# The cube's and the SDMA engines' keys, fitted after FIT_KEYS on the
# cube and one-sided figures (bench/measurements/a2a3-cube-sdma.csv), each
# group on its own points: l1_bw on the GEMMs (the rate of an AIC's loads
# into L1, which is what makes a 910B's GEMM fall short of the cube's
# peak); sdma_lat and sdma_bw on the SDMA reads.  Held: sdma_engines (every
# measured read is one transfer, so the engine count is not seen),
# sdma_issue (the core's issue cannot be told from the engine's fixed cost:
# the fit moves sdma_lat), launch_lat (the GEMMs' fall-off at small sizes is
# their tiles' waves and fill, docs/validation.md).  Read from the file's
# spec rows, not fitted: cube_rate, cube_fp32_rate and cube_lat (SPEC_KEYS).
CUBE_KEYS = [("l1_bw", "l1_bw", 150e9, 1e9, 10e12)]
SDMA_KEYS = [
    ("sdma_lat", "sdma_lat", 1e-6, 1e-9, 100e-6),
    ("sdma_bw", "sdma_bw", 20e9, 1e8, 1e12),
]
SPEC_KEYS = ("cube_rate", "cube_fp32_rate", "cube_lat")
# Read off the calibration half of the runtime figures
# (bench/measurements/a2a3-runtime.csv), not fitted: measurements.runtime_keys.
RUNTIME_KEYS = RUNTIME_CAL_KEYS
MODEL = "a pldsim model file with a line for each fitted key"

# Every key fit writes: the fitted groups' and those read off the spec rows.
WRITTEN = [k[0] for k in FIT_KEYS + CUBE_KEYS + SDMA_KEYS] + list(SPEC_KEYS + RUNTIME_KEYS)


def model_lines(path: str) -> list[tuple[str, str | None, str | None]]:
    """The lines of a model file, each with its key and value (None on a
    comment or blank line).  Refused: a file that cannot be read, or that
    has no line for a key fit writes, which neither --write-model nor
    --check-model could use."""
    out = []
    for line in text_lines(read_text(path, MODEL)):
        s = line.split("#", 1)[0].strip()
        k, v = (x.strip() for x in s.split("=", 1)) if "=" in s else (None, None)
        out.append((line, k, v))
    missing = sorted(set(WRITTEN) - {k for _, k, _ in out})
    if missing:
        raise Refused(f"{path}: no line for {', '.join(missing)}; expected {MODEL} (add each "
                      "key, with its source comment)")
    return out


def fmt_time(s: float) -> str:
    return f"{s * 1e9:.6g}ns" if s < 1e-6 else f"{s * 1e6:.6g}us"


def fmt_bw(b: float) -> str:
    return f"{b / 1e9:.6g}GBps"


def fmt_key(key: str, v: float) -> str:
    """A key's value as the model file writes it, to 6 significant digits."""
    if key.endswith("_bw"):
        return fmt_bw(v)
    return f"{v / 1e12:.6g}T" if key.endswith("_rate") else fmt_time(v)


def need_scipy() -> tuple:
    """numpy and SciPy's least_squares, which `fit` alone needs.  Refused
    in one line naming the interpreter that ran and how to run one that
    has them: the shebang's python3 is the first on PATH, which may be a
    pyenv or venv one without them."""
    # imported here, not at the top: they are optional, and record, guard
    # and validate run without them (tests/scripts/check_calibrate_input.py)
    try:
        import numpy
        from scipy.optimize import least_squares
    except ImportError as e:
        debian = "/usr/bin/python3"
        if (os.path.realpath(sys.executable) != os.path.realpath(debian)
                and os.access(debian, os.X_OK)
                and subprocess.run([debian, "-c", "import numpy, scipy.optimize"],
                                   capture_output=True).returncode == 0):
            how = "run it with one that has them: " + shlex.join([debian] + sys.argv)
        else:
            how = "install them (apt-get install python3-scipy), or run it with a python3 " \
                  "that has them"
        raise Refused(f"fit needs numpy and SciPy, which {sys.executable} (Python "
                      f"{platform.python_version()}) lacks ({e}); {how}") from None
    return numpy, least_squares


GROUPS = ("collectives", "cube", "sdma")


def cmd_fit(a: argparse.Namespace) -> int:
    # every file first, then the interpreter: the fit takes minutes
    if a.write_model:
        model_lines(a.write_model)
        check_writable(a.write_model, "the fitted keys")
    if a.check_model:
        model_lines(a.check_model)
    only = a.only or list(GROUPS)
    cube = cube_data(a.cube)
    runtime, launches = runtime_keys(a.runtime)
    groups = {"collectives": (FIT_KEYS, calibration_points(a.calibration) +
                              [p for p in cube.oneside if p.program == "tget/sync"]),
              "cube": (CUBE_KEYS, cube.gemm),
              "sdma": (SDMA_KEYS, [p for p in cube.oneside if p.program == "tget/async"])}
    run = Runner(a.build, a.jobs, cube.gemm if "cube" in only else [])
    np, least_squares = need_scipy()
    # Each group is fitted with the keys before it as the model file will
    # write them (the same text the model as built parses), so that a
    # group fitted alone (--only) on the rewritten model finds the same.
    written = {k: fmt_key(k, v) for k, v in cube.spec.items()}
    # the runtime's keys first: the collectives' measured times hold launches
    written.update({k: fmt_key(k, v) for k, v in runtime.items()})
    for name in GROUPS:
        if name in only:
            keys, pts = groups[name]
            vals = fit_group(run, np, least_squares, name, keys, pts, written, a)
            written.update({k: fmt_key(k, v) for k, v in vals.items()})
    print("\nkeys read off the spec rows of " + a.cube + " (not fitted):")
    for k in SPEC_KEYS:
        print(f"  {k:<14} = {written[k]}")
    print(f"\nkeys read off the calibration rows of {a.runtime} (not fitted):")
    for r in launches:
        print(f"  {r.where()}: {r.cells['value']} us, {r.cells['quantity']}")
    for k in RUNTIME_KEYS:
        print(f"  {k:<14} = {written[k]} (the median of its rows)")
    if a.write_model:
        write_model(a.write_model, written)
        print(f"\nwrote the fitted keys into {a.write_model}; rebuild (make) to embed them")
    if a.check_model:
        return check_model(a.check_model, written)
    return 0


def fit_group(run: Runner, np, least_squares, name: str, keys: list, pts: list[Point],
              fixed: dict[str, str], a: argparse.Namespace) -> dict[str, float]:
    """Least squares on log time of `keys` over `pts`, the keys in `fixed`
    set as given; prints the fit's table and keys and returns them."""
    meas = np.array([p.measured for p in pts])
    lo = np.log([k[3] for k in keys])
    hi = np.log([k[4] for k in keys])
    x0 = np.log([k[2] for k in keys])
    evals = [0]

    def spec(x) -> str:
        return spec_of({**fixed, **{k[1]: v for k, v in zip(keys, np.exp(x))}})

    def residuals(x):
        sim = np.array(run.all(pts, spec(x)))
        evals[0] += 1
        r = np.log(sim / meas)
        if a.verbose:
            shown_keys = " ".join(f"{k[0]}={v:.4g}" for k, v in zip(keys, np.exp(x)))
            print(f"  eval {evals[0]}: rms log error {math.sqrt(np.mean(r * r)):.5f} "
                  f"{shown_keys}", file=sys.stderr)
        return r

    print(f"fitting {len(keys)} {name} key(s) to {len(pts)} calibration points "
          f"({sum(len(p.values) for p in pts)} measurements)", file=sys.stderr)
    # tolerances: a key known to 1e-4 of its value is far finer than the
    # data's spread, and the fit stops in a few minutes
    res = least_squares(residuals, x0, bounds=(lo, hi), method="trf", diff_step=1e-3,
                        xtol=1e-4, ftol=1e-6, max_nfev=a.max_evals)
    report(pts, run.all(pts, spec(res.x)), f"{name} calibration (fit)")
    vals = {k[0]: v for k, v in zip(keys, np.exp(res.x))}
    print(f"\nfitted {name} keys ({evals[0]} evaluations of the {len(pts)} points; "
          f"{res.message}):")
    for k, v in vals.items():
        print(f"  {k:<14} = {fmt_key(k, v)}")
    return vals


def check_model(path: str, written: dict[str, str]) -> int:
    """Do the keys in the model file equal what the fit found, to the 6
    significant digits the file keeps?  0 if so, 1 (naming each) if not.
    Read again now: --write-model may have just rewritten it."""
    have = {k: v for _, k, v in model_lines(path) if k is not None}
    bad = 0
    for k, want in written.items():
        same = have.get(k) == want
        bad += not same
        print(f"{'same' if same else 'DIFFERS'}: {k} fitted {want}, {path} has "
              f"{have.get(k, 'nothing')}")
    if bad:
        print(f"{bad} key(s) of {path} are not what the calibration data gives")
    return 1 if bad else 0


def write_model(path: str, written: dict[str, str]) -> None:
    out = [f"{k} = {written[k]}\n" if k in written else line for line, k, _ in model_lines(path)]
    write_file(path, "".join(out))

