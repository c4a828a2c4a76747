"""The data sets of bench/measurements/ as points, by docs/validation.md's
rules: the collectives' measurements (select()), the cube's and one-sided
reads' figures (cube_data()), pto-isa's GEMM + allreduce (gemm_ar_points())
the runtime's own costs that fit reads off (runtime_keys()) and the
runtime's held-out facts this build can run (runtime_points()).
Every row is checked, used or not, and what pldsim-measured or bench/gemm.py
could not run is Refused before any point runs."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from .points import Point
from .readers import Refused, Row, csv_cells, read_csv, shown


# The bounds of what bench/pldsim-measured takes: at most 64 devices
# (bench/measured.c), sizes up to 1 PiB (tools/size_arg.h), all_to_all_v
# 0 to 1 MiB per peer, and core_num up to the a2a3 device's 48 AIV
# (models/a2a3.model).  A row past them would fail inside a simulation.
P_MAX = 64
SIZE_MAX = 1 << 50
PEER_BYTES_MAX = 1 << 20
CORE_NUM_MAX = 48

MEASUREMENTS = "a CSV of 910B measurements, as in bench/measurements/"
MEASUREMENT_COLUMNS = ("source", "program", "variant", "P", "count", "core_num", "metric",
                       "p50_us", "mean_us")


A2AV_PATTERNS = ("uniform", "zero", "single-hot", "self-only", "mixed", "asymmetric")


def select(path: str, Ps: set | None) -> list[Point]:
    """The points of one measurement file, by the rules of
    docs/validation.md: the allreduce's device_wall and all_to_all_v's
    fastest-rank kernel span; the INT8 all_to_all_v builtin only; the
    count patterns the harness can make; published model fits, host wall
    times and the FP32 quick checks left out.  Every row's numbers are
    checked, used or not: a typo in one is a typo in the data set."""
    points: dict[tuple, Point] = {}
    for row in read_csv(path, MEASUREMENTS, MEASUREMENT_COLUMNS):
        c = row.cells
        P = row.whole("P", 1, P_MAX)
        cn = row.whole("core_num", 1, CORE_NUM_MAX) if c["core_num"] else 1
        if c["count"]:  # a published model fit has no count
            row.whole("count", 0, SIZE_MAX)
        times = {k: row.time(k) for k in ("p50_us", "mean_us") if c[k]}
        metric, variant = c["metric"], c["variant"]
        if Ps is not None and P not in Ps:
            continue
        if metric.startswith("device_wall_s") and variant in (
            "mesh", "ring", "host-mesh", "host-ring"):
            program = variant
            size = row.whole("count", 1, SIZE_MAX, " of FP32 elements per rank")
        elif (metric.startswith("aicore_gang_span") and "INT8" in c["program"]
              and variant.startswith("managed-l2/")
              and variant.split("/", 1)[1] in A2AV_PATTERNS):
            program = "a2av/" + variant.split("/", 1)[1]
            size = row.whole("count", 0, PEER_BYTES_MAX, " of bytes per peer")
        else:
            continue
        if not times:
            raise Refused(f"{row.where()}: p50_us and mean_us are both empty; expected the "
                          f"measured time of this {metric.split(' ', 1)[0]} row")
        p = points.setdefault((program, P, size, cn), Point(program, P, size, cn))
        p.values.append(times.get("p50_us", times.get("mean_us")))
        p.sources.add(c["source"])
    if not points:
        at = f" at P = {' or '.join(map(str, sorted(Ps)))}" if Ps else ""
        raise Refused(f"{path}: no row is a point pldsim-calibrate uses{at}; expected "
                      "device_wall_s rows of mesh, ring, host-mesh or host-ring, or "
                      "aicore_gang_span rows of the INT8 all_to_all_v")
    return sorted(points.values(), key=lambda p: p.key)


def calibration_points(path: str) -> list[Point]:
    return select(path, {2, 4})


def heldout_points(path: str) -> list[Point]:
    return select(path, None)


CUBE_WHAT = "a CSV of 910B cube and one-sided figures, as bench/measurements/a2a3-cube-sdma.csv"
# The file's own header is a comment (# kind,what,...): its columns, in order.
CUBE_COLUMNS = ("kind", "what", "dtype", "m", "k", "n", "bytes", "value", "unit", "conditions",
                "source")
# The one-sided rows count cycles of the device's 50 MHz system counter.
COUNTER_HZ = 50e6
PEAK = re.compile(r".*\(([0-9]+) AIC x ([0-9]+) flop/cycle x ([0-9]+(?:\.[0-9]+)?) GHz\)")
MAD = re.compile(r"([0-9]+) head cycles \+ 1 cycle per 16x16x16 block \(fp32: 1/([0-9]+) rate\)")
GEMM_DTYPES = {"fp16": "fp16", "fp16 in fp32 out": "fp16", "fp32": "fp32"}
# What bench/gemm.py and `pldsim-measured get` take: N a multiple of the
# GEMM's tiles (256) up to 16384 (its three matrices in the host's memory),
# reads of whole 4 KiB chunks up to 4 GiB.
GEMM_TILE, GEMM_N_MAX = 256, 16384
GET_CHUNK, GET_MAX = 4096, 1 << 32


@dataclass
class CubeData:
    """What a2a3-cube-sdma.csv gives: the GEMM and one-sided points, and the
    keys its spec rows state (fit.SPEC_KEYS, in model units)."""

    gemm: list[Point]
    oneside: list[Point]
    spec: dict[str, float]

    def points(self) -> list[Point]:
        return self.gemm + self.oneside


def cube_rows(path: str) -> list[Row]:
    """The rows of the cube file: CUBE_COLUMNS in order (its header is a
    comment), comments and blank lines skipped.  Refused: no rows, a row of
    another width, what csv_cells() refuses."""
    rows = []
    for line, cells in csv_cells(path, CUBE_WHAT):
        if len(cells) != len(CUBE_COLUMNS):
            raise Refused(f"{path}:{line}: {len(cells)} fields; expected "
                          f"{len(CUBE_COLUMNS)}: {','.join(CUBE_COLUMNS)}")
        rows.append(Row(path, line, dict(zip(CUBE_COLUMNS, cells))))
    if not rows:
        raise Refused(f"{path}: no rows; expected {CUBE_WHAT}")
    return rows


def cube_data(path: str, heldout: bool = False) -> CubeData:
    """The points and spec keys of the cube file, by docs/validation.md's
    rules: each N x N x N GEMM (fp16, or fp16 in and fp32 out, or fp32) at
    its TFLOPS; each one-sided read at its cycles; the cube's peak and its
    cost per mad as keys.  The link rows are read elsewhere (the model's
    link keys): here they are only checked to be rows."""
    gemm: dict[tuple, Point] = {}
    oneside: dict[tuple, Point] = {}
    spec: dict[str, float] = {}
    rates: list[tuple[Row, str, float]] = []  # each GEMM row's TFLOPS, held to the peak below
    rows = cube_rows(path)
    for row in rows:
        c = row.cells
        kind = c["kind"]
        if kind == "gemm":
            n = row.whole("m", GEMM_TILE, GEMM_N_MAX, " (the GEMM's M)")
            if (row.whole("k", GEMM_TILE, GEMM_N_MAX) != n
                    or row.whole("n", GEMM_TILE, GEMM_N_MAX) != n):
                raise Refused(f"{row.where()}: m, k and n differ; expected an N x N x N GEMM")
            if n % GEMM_TILE:
                raise Refused(f"{row.where()}: m {n}: expected a multiple of {GEMM_TILE}, the "
                              "tile of bench/gemm.py")
            if c["dtype"] not in GEMM_DTYPES:
                raise Refused(f"{row.where()}: dtype {shown(c['dtype'])}: expected "
                              f"{', '.join(GEMM_DTYPES)}")
            if c["unit"] != "TFLOPS":
                raise Refused(f"{row.where()}: unit {shown(c['unit'])}: expected TFLOPS")
            tflops = row.time("value", "TFLOPS")
            rates.append((row, GEMM_DTYPES[c["dtype"]], tflops))
            p = gemm.setdefault((GEMM_DTYPES[c["dtype"]], n),
                                Point(f"gemm/{GEMM_DTYPES[c['dtype']]}", 1, n))
            p.values.append(2.0 * n ** 3 / (tflops * 1e6))
            p.sources.add(c["source"])
        elif kind == "oneside":
            nbytes = row.whole("bytes", GET_CHUNK, GET_MAX, " of bytes read")
            if nbytes % GET_CHUNK:
                raise Refused(f"{row.where()}: bytes {nbytes}: expected a multiple of "
                              f"{GET_CHUNK}, the chunk of the measured read")
            if c["what"].startswith("TGET_ASYNC"):
                how = "async"
            elif c["what"].startswith("TGET "):
                how = "sync"
            else:
                raise Refused(f"{row.where()}: what {shown(c['what'])}: expected a TGET or "
                              "TGET_ASYNC read")
            if c["unit"] != "cycles":
                raise Refused(f"{row.where()}: unit {shown(c['unit'])}: expected cycles")
            p = oneside.setdefault((how, nbytes), Point(f"tget/{how}", 2, nbytes))
            p.values.append(row.time("value", "device cycles") / COUNTER_HZ * 1e6)
            p.sources.add(c["source"])
        elif kind == "spec" and c["what"].startswith("cube peak"):
            m = PEAK.fullmatch(c["what"])
            if not m:
                raise Refused(f"{row.where()}: what {shown(c['what'])}: expected 'cube peak (N "
                              "AIC x F flop/cycle x G GHz)'")
            if c["unit"] != "TFLOPS":
                raise Refused(f"{row.where()}: unit {shown(c['unit'])}: expected TFLOPS")
            aic, per_cycle, ghz = int(m[1]), int(m[2]), float(m[3])
            rate = per_cycle * ghz * 1e9
            peak = row.time("value", "TFLOPS") * 1e12
            if aic < 1 or abs(aic * rate / peak - 1) > 0.01:
                raise Refused(f"{row.where()}: value {shown(c['value'])} TFLOPS is not "
                              f"{aic} x {per_cycle} x {ghz} GHz; expected the two to agree")
            spec["cube_rate"], spec["clock_hz"] = rate, ghz * 1e9
            spec["peak_tflops"], spec["peak_line"] = peak / 1e12, row.line
        elif kind == "spec" and c["what"].startswith("cube cost per mad"):
            m = MAD.fullmatch(c["value"])
            if not m or int(m[2]) < 1:
                raise Refused(f"{row.where()}: value {shown(c['value'])}: expected 'H head "
                              "cycles + 1 cycle per 16x16x16 block (fp32: 1/D rate)'")
            spec["head_cycles"], spec["fp32_div"] = float(m[1]), float(m[2])
        elif kind not in ("link", "spec"):
            raise Refused(f"{row.where()}: kind {shown(kind)}: expected gemm, oneside, spec or "
                          "link")
    # A measured GEMM above the same file's peak is a typo in one of them
    # (the fit would take it at its word); fp32 is held to its share of it.
    for row, dtype, tflops in rates:
        if "peak_tflops" not in spec:
            break
        ceiling = spec["peak_tflops"] / (spec.get("fp32_div", 1.0) if dtype == "fp32" else 1.0)
        if tflops > ceiling:
            share = "" if dtype == "fp16" else f" ({dtype}: 1/{spec.get('fp32_div', 1.0):g} of it)"
            raise Refused(f"{row.where()}: value {shown(row.cells['value'])} TFLOPS is above the "
                          f"cube peak of line {spec['peak_line']}, {ceiling:g} TFLOPS{share}; "
                          "expected a GEMM at or below the peak")
    if heldout:  # points only, of either kind
        if not gemm and not oneside:
            raise Refused(f"{path}: no gemm or oneside row; expected {CUBE_WHAT}")
        return CubeData(sorted(gemm.values(), key=lambda p: p.key),
                        sorted(oneside.values(), key=lambda p: p.key), {})
    for what, have in (("gemm", gemm), ("oneside", oneside)):
        if not have:
            raise Refused(f"{path}: no {what} row; expected {CUBE_WHAT}")
    if "cube_rate" not in spec or "head_cycles" not in spec:
        raise Refused(f"{path}: no 'cube peak' or 'cube cost per mad' spec row; expected "
                      f"{CUBE_WHAT}")
    keys = {"cube_rate": spec["cube_rate"], "cube_fp32_rate": spec["cube_rate"] / spec["fp32_div"],
            "cube_lat": spec["head_cycles"] / spec["clock_hz"]}
    return CubeData(sorted(gemm.values(), key=lambda p: p.key),
                    sorted(oneside.values(), key=lambda p: p.key), keys)


GEMM_AR_WHAT = ("a CSV of pto-isa's GEMM + allreduce figures, as "
                "bench/measurements/a2a3-gemm-ar-heldout.csv")
GEMM_AR_COLUMNS = ("metric", "comm_cores", "baseline", "value", "unit", "what", "source")
# metric: (unit, needs a baseline)
GEMM_AR_METRICS = {"gemm_us": ("us", False), "wall_us": ("us", False), "gemm_ratio": ("x", True)}
# What bench/gemm_ar.py runs them at: its default shape on 8 ranks, the
# comm cores a multiple or a divisor of its 24 AIC, up to the 48 AIV
GEMM_AR_P, GEMM_AR_G = 8, 24


def gemm_ar_points(path: str) -> list[Point]:
    """The points of the GEMM + allreduce file: program gemm_ar/<metric>,
    P = 8, size = the comm cores, core_num = the baseline's comm cores
    (a ratio's; else 1)."""
    points = []
    first: dict[tuple, int] = {}
    for row in read_csv(path, GEMM_AR_WHAT, GEMM_AR_COLUMNS):
        c = row.cells
        if c["metric"] not in GEMM_AR_METRICS:
            raise Refused(f"{row.where()}: metric {shown(c['metric'])}: expected "
                          f"{', '.join(GEMM_AR_METRICS)}")
        unit, ratio = GEMM_AR_METRICS[c["metric"]]
        cores = [row.whole("comm_cores", 0, CORE_NUM_MAX, " of comm AIV")]
        if ratio:
            cores.append(row.whole("baseline", 0, CORE_NUM_MAX, " of comm AIV"))
        elif c["baseline"]:
            raise Refused(f"{row.where()}: baseline {shown(c['baseline'])}: expected it empty "
                          f"for {c['metric']} (only gemm_ratio has one)")
        for n in cores:
            if n and GEMM_AR_G % n and n % GEMM_AR_G:
                raise Refused(f"{row.where()}: {n} comm AIV: expected a divisor or a multiple "
                              f"of the GEMM's {GEMM_AR_G} AIC (bench/gemm_ar.py)")
        if c["unit"] != unit:
            raise Refused(f"{row.where()}: unit {shown(c['unit'])}: expected {unit} for "
                          f"{c['metric']}")
        p = Point(f"gemm_ar/{c['metric']}", GEMM_AR_P, cores[0], cores[1] if ratio else 1)
        # each point is reported once, against one figure, as a fit record's
        if p.key in first:
            baseline = f" against {cores[1]}" if ratio else ""
            raise Refused(f"{row.where()}: {c['metric']} at {cores[0]} comm AIV{baseline} is "
                          f"given twice (first at line {first[p.key]}); expected one row of "
                          "each point")
        first[p.key] = row.line
        p.values.append(row.time("value", "a ratio" if ratio else "a time in us"))
        p.sources.add(c["source"])
        points.append(p)
    return points



RUNTIME_CAL_WHAT = "a CSV of 910B runtime figures, as bench/measurements/a2a3-runtime.csv"
RUNTIME_CAL_COLUMNS = ("kind", "quantity", "value", "low", "high", "unit", "conditions", "clock",
                       "source", "keys")
# the keys read off that file, each the median of the rows tagged with it
RUNTIME_CAL_KEYS = ("launch_lat", "submit_lat")


def runtime_keys(path: str) -> tuple[dict[str, float], list[Row]]:
    """The keys the calibration half of the runtime figures gives, and the
    rows each was read from.  Each key in RUNTIME_CAL_KEYS (s) is the median
    of the rows whose keys cell is exactly that key: launch_lat, the warm
    head overhead of a task; submit_lat, the orchestrator's cost per
    submitted task.  The file tags a cold core's first task "launch_lat
    (cold start)" and the doorbell alone "launch_lat (lower bound)": a
    pldsim kernel's launch is a warm core's, and the doorbell is only part
    of it.  Every row's value is checked.  Refused: a bad row, a key's row
    not in us, a key with no row."""
    rows, used = [], []
    for line, cells in csv_cells(path, RUNTIME_CAL_WHAT):
        if len(cells) != len(RUNTIME_CAL_COLUMNS):
            raise Refused(f"{path}:{line}: {len(cells)} fields; expected "
                          f"{len(RUNTIME_CAL_COLUMNS)}: {','.join(RUNTIME_CAL_COLUMNS)}")
        row = Row(path, line, dict(zip(RUNTIME_CAL_COLUMNS, cells)))
        row.time("value", "a figure")
        rows.append(row)
        if row.cells["keys"] in RUNTIME_CAL_KEYS:
            if row.cells["unit"] != "us":
                raise Refused(f"{row.where()}: unit {shown(row.cells['unit'])}: expected us "
                              f"for a {row.cells['keys']} row")
            used.append(row)
    keys = {}
    for k in RUNTIME_CAL_KEYS:
        of = [r.time("value") for r in used if r.cells["keys"] == k]
        if not of:
            raise Refused(f"{path}: no row with keys {k}; expected {RUNTIME_CAL_WHAT}")
        keys[k] = statistics.median(of) * 1e-6
    return keys, used


RUNTIME_WHAT = "a CSV of 910B runtime figures, as bench/measurements/a2a3-runtime-heldout.csv"
RUNTIME_COLUMNS = ("kind", "quantity", "value", "before", "unit", "conditions", "clock", "source",
                   "keys")
# the upstream case of the split-phase figure: P = 2, a 64-step add loop
SPLIT_P, SPLIT_LOOP = 2, 64


def runtime_rows(path: str) -> list[tuple[int, dict[str, str]]]:
    """The runtime held-out file's rows by line, each value checked (and a
    `before`, where one is given)."""
    rows = []
    for line, cells in csv_cells(path, RUNTIME_WHAT):
        if len(cells) != len(RUNTIME_COLUMNS):
            raise Refused(f"{path}:{line}: {len(cells)} fields; expected "
                          f"{len(RUNTIME_COLUMNS)}: {','.join(RUNTIME_COLUMNS)}")
        c = dict(zip(RUNTIME_COLUMNS, cells))
        Row(path, line, c).time("value", "a figure")
        if c["before"]:
            Row(path, line, c).time("before", "a figure")
        rows.append((line, c))
    return rows


def runtime_points(path: str, rows: list[tuple[int, dict[str, str]]]) -> list[Point]:
    """The held-out runtime facts that a program of this build runs: the
    split-phase ratio (kind defer: defer=True's mean device wall is `value`
    times lower than the blocking call's), as split_phase/ratio, its
    measured value the deferred wall over the blocking one; and the
    launches of a task that does no work (kind launch, keys launch_lat, in
    us), as launch/<n>, n the row's line.  Every row's value is checked;
    the other kinds are whole layers and pypto-lib programs, reported in
    docs, not run here.  `rows` are runtime_rows(path)'s."""
    points = []
    for line, c in rows:
        v = float(c["value"])
        if c["kind"] == "defer":
            if c["unit"] != "x":
                raise Refused(f"{path}:{line}: unit {shown(c['unit'])}: expected x for a "
                              "defer ratio")
            points.append(Point("split_phase/ratio", SPLIT_P, SPLIT_LOOP, 1, [1 / v], {c["source"]}))
        elif c["kind"] == "launch" and c["keys"] == "launch_lat":
            if c["unit"] != "us":
                raise Refused(f"{path}:{line}: unit {shown(c['unit'])}: expected us for a "
                              "launch row")
            points.append(Point(f"launch/{line}", 1, 0, 1, [v], {c["source"]}))
    if not points:
        raise Refused(f"{path}: no defer row and no launch row with keys launch_lat; expected "
                      f"{RUNTIME_WHAT}")
    return points
