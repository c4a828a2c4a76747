"""check_calibrate_input.py: tools/pldsim-calibrate refuses every bad file
it is given (measurements, a fit record, a model file, a file or directory
to write) and a python3 without SciPy for `fit`, each in one line naming
the file, the line and column where there is one, and what was expected,
with exit 2 (docs/errors.md) and no traceback; all before any point runs,
which a fake bench/pldsim-measured would notice.  Run by
tests/scripts/check_calibration.sh with the interpreter it chose; prints
"N passed, N failed" and exits 1 on a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import traceback

SRC = os.environ.get("PLDSIM_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "..", ".."))
TOOL = os.path.join(SRC, "tools", "pldsim-calibrate")
DATA = os.path.join(SRC, "bench", "measurements")
TMP = tempfile.mkdtemp(prefix="check_calibrate_input.")
# A build whose pldsim-measured leaves a mark and times every point at 1 us:
# a refusal must come before the first point runs, so the mark must not exist.
BUILD = os.path.join(TMP, "build")
MARK = os.path.join(TMP, "a-point-ran")
os.makedirs(os.path.join(BUILD, "bench"))
os.makedirs(os.path.join(BUILD, "tools"))
# stand-ins for bench/pldsim-measured and tools/pldsim-py (the GEMMs): each
# marks that a point ran, and refuses a --topology of "bogus" as pldsim
# does, in one line with exit 2
for exe in (os.path.join(BUILD, "bench", "pldsim-measured"), os.path.join(BUILD, "tools", "pldsim-py")):
    with open(exe, "w") as f:
        f.write(f"#!/bin/sh\ntouch '{MARK}'\ncase \"$*\" in *'--topology bogus'*)\n"
                "  echo \"pldsim: --topology 'bogus': unknown kind 'bogus'; expected one of mesh\" >&2; exit 2;;\n"
                "esac\necho device_wall_us=1 a2av_us=1 get_us=1\n")
    os.chmod(exe, 0o755)

with open(os.path.join(DATA, "a2a3-calibration.csv"), newline="") as f:
    MEAS = f.read().splitlines(keepends=True)
with open(os.path.join(DATA, "a2a3-fit-record.csv"), newline="") as f:
    REC = f.read().splitlines(keepends=True)
HEADER, ROW = MEAS[0], MEAS[1]  # ROW: all_to_all_v uniform, P=2, 0 B/peer, p50_us 3.26...
P50 = ",3.2600000000000002,"
assert P50 in ROW, ROW


def file(name: str, text: str | bytes) -> str:
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)
    return path


def run(args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    if os.path.exists(MARK):
        os.unlink(MARK)
    return subprocess.run([sys.executable, TOOL, "--build", BUILD, "--jobs", "1"] + args,
                          capture_output=True, text=True, env=env, timeout=60)


def refused(args: list[str], *parts: str, env: dict | None = None) -> None:
    """One line on stderr holding each of `parts`, exit 2, nothing on
    stdout, no traceback, and no point run."""
    r = run(args, env)
    what = f"{args}: exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
    assert r.returncode == 2, what
    assert "Traceback" not in r.stderr and r.stdout == "", what
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pldsim-calibrate: "), what
    for p in parts:
        assert p in lines[0], f"{what}\nexpected in it: {p}"
    assert not os.path.exists(MARK), f"{what}\na point ran before the refusal"


def data_lines(name: str) -> list[str]:
    """bench/measurements/NAME's lines, each with its line end."""
    with open(os.path.join(DATA, name), newline="") as f:
        return f.read().splitlines(keepends=True)


def refused_each(before: list[str], after: list[str], cases: list[tuple]) -> None:
    """refused() for each (file name, its text, *expected parts) in
    `cases`, the file written and given between `before` and `after`."""
    for name, body, *msg in cases:
        refused(before + [file(name, body)] + after, *msg)


TIME = "expected a time in us, a finite number above 0"


def test_bad_measurements_are_one_line():
    nocol = [",".join(x for i, x in enumerate(line.rstrip("\r\n").split(",")) if i != 8) + "\n"
             for line in (HEADER, ROW)]  # column 8 is metric
    cases = [
        ("empty.csv", "", "empty.csv: empty; expected a CSV of 910B measurements"),
        ("header.csv", HEADER, "header.csv:1: a header and no rows; expected a CSV of 910B"),
        ("nocol.csv", "".join(nocol),
         "nocol.csv:1: no column 'metric'; expected a header with source, program"),
        ("text.csv", HEADER + ROW.replace(P50, ",fast,"), f"text.csv:2: p50_us 'fast': {TIME}"),
        ("huge.csv", HEADER + ROW.replace(P50, ",1e400,"), f"huge.csv:2: p50_us '1e400': {TIME}"),
        ("nan.csv", HEADER + ROW + ROW.replace(P50, ",nan,"), f"nan.csv:3: p50_us 'nan': {TIME}"),
        ("neg.csv", HEADER + ROW.replace(P50, ",-3,"), f"neg.csv:2: p50_us '-3': {TIME}"),
        ("zero.csv", HEADER + ROW.replace(P50, ",0,"), f"zero.csv:2: p50_us '0': {TIME}"),
        ("P.csv", HEADER + ROW.replace(",managed-l2/uniform,2,", ",managed-l2/uniform,two,"),
         "P.csv:2: P 'two': expected a whole number from 1 to 64"),
        ("count.csv", HEADER + ROW.replace("/uniform,2,0,", "/uniform,2,1e400,"),
         "count.csv:2: count '1e400': expected a whole number from 0 to"),
        ("width.csv", HEADER + "a,b,c\n", "width.csv:2: 3 fields; expected 12, as the header has"),
        ("latin1.csv", HEADER.encode() + b"caf\xe9\n", "latin1.csv:2: byte 0xe9 is not UTF-8"),
        ("nul.csv", HEADER + ROW.replace(P50, ",3\0,"), f"nul.csv:2: p50_us '3\\x00': {TIME}"),
        ("none.csv", HEADER + ROW.replace(",managed-l2/uniform,2,", ",managed-l2/uniform,8,"),
         "none.csv: no row is a point pldsim-calibrate uses at P = 2 or 4"),
    ]
    for name, text, msg in cases:
        path = file(name, text)
        refused(["--calibration", path, "guard"], msg)
    # every subcommand reads them before it runs a point; validate reads both
    bad = os.path.join(TMP, "text.csv")
    refused(["--calibration", bad, "record", "--write", os.path.join(TMP, "r.csv")], "text.csv:2")
    refused(["--calibration", bad, "validate"], "text.csv:2: p50_us")
    refused(["--heldout", bad, "validate"], "text.csv:2: p50_us")
    refused(["--calibration", bad, "fit"], "text.csv:2: p50_us")
    refused(["--calibration", os.path.join(TMP, "missing.csv"), "guard"],
            "missing.csv: cannot read it: No such file or directory")
    refused(["--calibration", TMP, "guard"], f"{TMP}: cannot read it: Is a directory")


def test_bad_cube_files_are_one_line():
    cube = data_lines("a2a3-cube-sdma.csv")
    text = "".join(cube)
    gemm = next(i for i, line in enumerate(cube) if line.startswith("gemm,"))
    row = cube[gemm]  # gemm,torch.matmul N^3,fp16,2048,2048,2048,,251.0,TFLOPS,...
    at = f":{gemm + 1}:"
    cases = [
        ("c-empty.csv", "# only a comment\n", "c-empty.csv: no rows"),
        ("c-short.csv", text.replace(row, row.replace(",TFLOPS,", ",")),
         f"c-short.csv{at} 10 fields; expected 11"),
        ("c-mkn.csv", text.replace(row, row.replace(",2048,2048,2048,", ",2048,1024,2048,")),
         f"c-mkn.csv{at} m, k and n differ"),
        ("c-dtype.csv", text.replace(row, row.replace(",fp16,", ",fp8,")),
         f"c-dtype.csv{at} dtype 'fp8': expected fp16"),
        ("c-nan.csv", text.replace(row, row.replace(",251.0,", ",nan,")),
         f"c-nan.csv{at} value 'nan': expected TFLOPS, a finite number above 0"),
        ("c-unit.csv", text.replace(row, row.replace(",TFLOPS,", ",GFLOPS,")),
         f"c-unit.csv{at} unit 'GFLOPS': expected TFLOPS"),
        ("c-kind.csv", text.replace(row, row.replace("gemm,", "gemv,", 1)),
         f"c-kind.csv{at} kind 'gemv': expected gemm, oneside, spec or link"),
        ("c-peak.csv", text.replace(",353.9,", ",35.39,"),
         "TFLOPS is not 24 x 8192 x 1.8 GHz; expected the two to agree"),
        ("c-bytes.csv", text.replace(",4096,36.3,", ",0,36.3,"),
         "c-bytes.csv:", "bytes '0': expected a whole number of bytes read from 4096"),
        ("c-nospec.csv", "".join(x for x in cube if not x.startswith("spec,")),
         "no 'cube peak' or 'cube cost per mad' spec row"),
        # rows bench/gemm.py or pldsim-measured get would fail on mid-run
        ("c-tile.csv", text.replace(row, row.replace(",2048,2048,2048,", ",1000,1000,1000,")),
         f"c-tile.csv{at} m 1000: expected a multiple of 256"),
        ("c-huge.csv", text.replace(row, row.replace(",2048,2048,2048,", ",1048576,1048576,1048576,")),
         f"c-huge.csv{at} m '1048576': expected a whole number (the GEMM's M) from 256 to 16384"),
        ("c-chunk.csv", text.replace(",4096,36.3,", ",1000,36.3,"),
         "bytes '1000': expected a whole number of bytes read from 4096 to"),
        ("c-tput.csv", text.replace("TGET (sync through UB)", "TPUT (sync through UB)"),
         "what 'TPUT (sync through UB) device cycles at ...': expected a TGET or TGET_ASYNC read"),
        ("c-ghz.csv", text.replace("x 1.8 GHz)", "x 1..8 GHz)"),
         "expected 'cube peak (N AIC x F flop/cycle x G GHz)'"),
        ("c-gflops.csv", text.replace(",353.9,TFLOPS,", ",353.9,GFLOPS,"),
         "unit 'GFLOPS': expected TFLOPS"),
        # a GEMM faster than the file's own peak (fp32 against its share of it)
        ("c-fast.csv", text.replace(row, row.replace(",251.0,", ",400.0,")),
         f"c-fast.csv{at} value '400.0' TFLOPS is above the cube peak of line",
         "353.9 TFLOPS; expected a GEMM at or below the peak"),
        ("c-fast32.csv", text.replace(",fp32,4096,4096,4096,,84.5,", ",fp32,4096,4096,4096,,90,"),
         "value '90' TFLOPS is above the cube peak of line", "88.475 TFLOPS (fp32: 1/4 of it)"),
    ]
    refused_each(["--cube"], ["fit", "--only", "cube"], cases)
    refused_each(["--cube"], ["validate"], cases)
    refused(["--cube-heldout", os.path.join(TMP, "no-cube.csv"), "validate"],
            "no-cube.csv: cannot read it: No such file or directory")


def test_bad_gemm_ar_files_are_one_line():
    lines = data_lines("a2a3-gemm-ar-heldout.csv")
    text = "".join(lines)
    at = next(i for i, line in enumerate(lines) if line.startswith("gemm_ratio,"))
    row = lines[at]  # gemm_ratio,48,24,1.24,x,...
    where = f":{at + 1}:"
    cases = [
        ("g-empty.csv", "# only a comment\n", "g-empty.csv: empty; expected a CSV of pto-isa's"),
        ("g-metric.csv", text.replace(row, row.replace("gemm_ratio,", "gemm_ms,", 1)),
         f"g-metric.csv{where} metric 'gemm_ms': expected gemm_us, wall_us, gemm_ratio"),
        ("g-cores.csv", text.replace(row, row.replace("gemm_ratio,48,", "gemm_ratio,36,", 1)),
         f"g-cores.csv{where} 36 comm AIV: expected a divisor or a multiple of the GEMM's 24 AIC"),
        ("g-many.csv", text.replace(row, row.replace("gemm_ratio,48,", "gemm_ratio,96,", 1)),
         f"g-many.csv{where} comm_cores '96': expected a whole number of comm AIV from 0 to 48"),
        ("g-nobase.csv", text.replace(row, row.replace(",48,24,", ",48,,", 1)),
         f"g-nobase.csv{where} baseline '': expected a whole number of comm AIV"),
        ("g-base.csv", text.replace("wall_us,24,,", "wall_us,24,12,", 1),
         "baseline '12': expected it empty for wall_us (only gemm_ratio has one)"),
        ("g-unit.csv", text.replace(row, row.replace(",1.24,x,", ",1.24,us,", 1)),
         f"g-unit.csv{where} unit 'us': expected x for gemm_ratio"),
        ("g-nan.csv", text.replace(row, row.replace(",1.24,", ",nan,", 1)),
         f"g-nan.csv{where} value 'nan': expected a ratio, a finite number above 0"),
        # a point given twice would be reported (and counted) twice
        ("g-twice.csv", text + row.replace(",1.24,", ",1.30,", 1),
         f"g-twice.csv:{len(lines) + 1}: gemm_ratio at 48 comm AIV against 24 is given twice "
         f"(first at line {at + 1}); expected one row of each point"),
    ]
    refused_each(["--gemm-ar"], ["validate"], cases)
    refused(["--gemm-ar", os.path.join(TMP, "no-gemm-ar.csv"), "validate"],
            "no-gemm-ar.csv: cannot read it: No such file or directory")


def test_bad_runtime_files_are_one_line():
    lines = data_lines("a2a3-runtime-heldout.csv")
    text = "".join(lines)
    at = next(i for i, line in enumerate(lines) if line.startswith("defer,"))
    row = lines[at]  # defer,...,1.15,,x,...
    where = f":{at + 1}:"
    cases = [
        ("t-empty.csv", "# only a comment\n", "t-empty.csv: no defer row and no launch row with "
         "keys launch_lat; expected a CSV of 910B runtime figures"),
        ("t-nopoint.csv", "".join(l for l in lines if not l.startswith("defer,") and not (
            l.startswith("launch,") and l.rstrip("\r\n").endswith(",launch_lat"))),
         "t-nopoint.csv: no defer row and no launch row"),
        ("t-unit.csv", text.replace(row, row.replace(",1.15,,x,", ",1.15,,%,", 1)),
         f"t-unit.csv{where} unit '%': expected x for a defer ratio"),
        ("t-value.csv", text.replace(row, row.replace(",1.15,,x,", ",fast,,x,", 1)),
         f"t-value.csv{where} value 'fast': expected a figure, a finite number above 0"),
        ("t-width.csv", text.replace(row, "defer,1.15,x\n", 1),
         f"t-width.csv{where} 3 fields; expected 9: kind,quantity,value,before,unit"),
    ]
    refused_each(["--runtime-heldout"], ["validate"], cases)
    # a launch row: its unit is us, as the model's launch_lat is a time
    launch = next(i for i, line in enumerate(lines) if line.startswith("launch,"))
    bad = lines[launch].replace(",us,", ",ms,", 1)
    refused(["--runtime-heldout", file("t-launch.csv", text.replace(lines[launch], bad)),
             "validate"], f"t-launch.csv:{launch + 1}: unit 'ms': expected us for a launch row")


def test_bad_runtime_calibration_files_are_one_line():
    # read before the fit's first point: launch_lat is the first key it sets
    lines = data_lines("a2a3-runtime.csv")
    text = "".join(lines)
    used = [i for i, line in enumerate(lines) if line.rstrip("\r\n").endswith(",launch_lat")]
    assert len(used) == 2, used  # the two warm launches; the cold and the doorbell are tagged
    row, where = lines[used[0]], f":{used[0] + 1}:"
    cases = [
        ("c-empty.csv", "# only a comment\n", "c-empty.csv: no row with keys launch_lat; expected "
         "a CSV of 910B runtime figures"),
        ("c-nolaunch.csv", "".join(l for i, l in enumerate(lines) if i not in used),
         "c-nolaunch.csv: no row with keys launch_lat"),
        ("c-unit.csv", text.replace(row, row.replace(",us,", ",ms,", 1)),
         f"c-unit.csv{where} unit 'ms': expected us for a launch_lat row"),
        ("c-value.csv", text.replace(row, row.replace(",0.35,", ",-0.35,", 1)),
         f"c-value.csv{where} value '-0.35': expected a figure, a finite number above 0"),
        ("c-width.csv", text.replace(row, "launch,0.35,us,launch_lat\n", 1),
         f"c-width.csv{where} 4 fields; expected 10: kind,quantity,value,low,high,unit"),
    ]
    # submit_lat is read off the same file, from its own rows
    sub = [i for i, line in enumerate(lines) if line.rstrip("\r\n").endswith(",submit_lat")]
    assert len(sub) == 1, sub  # the orchestrator's cost per task
    srow, swhere = lines[sub[0]], f":{sub[0] + 1}:"
    cases += [
        ("c-nosubmit.csv", "".join(l for i, l in enumerate(lines) if i not in sub),
         "c-nosubmit.csv: no row with keys submit_lat"),
        ("c-subunit.csv", text.replace(srow, srow.replace(",us,", ",ms,", 1)),
         f"c-subunit.csv{swhere} unit 'ms': expected us for a submit_lat row"),
    ]
    refused_each(["--runtime"], ["fit"], cases)
    refused(["--runtime", os.path.join(TMP, "no-runtime.csv"), "fit"],
            "no-runtime.csv: cannot read it: No such file or directory")


def test_a_bad_pypto_lib_is_one_line():
    # checked before any point runs: the layers come after every other set
    refused(["validate", "--pypto-lib", os.path.join(TMP, "no-plib")],
            "--pypto-lib ", "no-plib: not a directory; expected a clone of hw-native-sys/pypto-lib")
    repo = os.path.join(TMP, "plib")
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", repo], check=True)
    refused(["validate", "--pypto-lib", repo], "plib: no commit d28a3fb9 (the layer "
            "layer/lm_head-tp4); expected a clone of hw-native-sys/pypto-lib that holds it")
    # the layers are read with git: without it, one line, not a traceback
    nogit = os.path.join(TMP, "nogit-path")
    os.makedirs(nogit)
    refused(["validate", "--pypto-lib", repo], "plib: no git on PATH",
            env=dict(os.environ, PATH=nogit))
    # --pypto-lib with a runtime file that has no layer to run: a summary
    # over no points failed with a traceback
    lines = data_lines("a2a3-runtime-heldout.csv")
    refused(["--runtime-heldout", file("t-nolayer.csv", "".join(
        l for l in lines if not l.startswith("layer,"))), "validate", "--pypto-lib", repo],
            "t-nolayer.csv: no layer row that --pypto-lib could run")


def test_layer_rows_and_windows():
    # which held-out rows are layer points, and pldsim's clock for a window
    sys.path.insert(0, os.path.join(SRC, "tools"))
    from pldsim_calibrate.layers import layer_points, window_us
    from pldsim_calibrate.measurements import runtime_rows

    path = os.path.join(DATA, "a2a3-runtime-heldout.csv")
    got = {p.program: (p.P, p.values) for p in layer_points(runtime_rows(path))}
    want = {"layer/lm_head-tp4": (4, [301.0]), "layer/lm_head-tp4-before": (4, [528.0])}
    for tp, after, before in ((2, 458.7, 578.8), (4, 254.5, 353.7), (8, 97.9, 186.9)):
        want[f"layer/mtp-lm_head-tp{tp}"] = (tp, [after])
        want[f"layer/mtp-lm_head-tp{tp}-before"] = (tp, [before])
    assert got == want, got
    # the smallest span over the ranks of the ops on the window's lines;
    # the host's, other files' and other lines' ops are not in it
    trace = file("w.txt", "# pldsim text trace v1\n# start_ns end_ns rank op ...\n"
                 "0 500000 host dispatch r0 - - - - lm_head.py:300\n"
                 "1000 2000 r0 launch - - - - - lm_head.py:228\n"
                 "2000 9000 r0 matmul - - - - - lm_head.py:247\n"
                 "9000 99000 r0 load - - - - - lm_head.py:400\n"
                 "9000 99000 r0 load - - - - - other.py:250\n"
                 "3000 5000 r1 launch - - - - - lm_head.py:228\n"
                 "5000 8500 r1 notify_add r0 - - - - lm_head.py:334\n")
    assert abs(window_us(trace, "lm_head.py", (228, 334)) - 5.5) < 1e-12
    # lines that hold no op: one line, not a window of nothing
    r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from pldsim_calibrate.layers import window_us; "
                        "window_us(sys.argv[2], 'lm_head.py', (500, 600))",
                        os.path.join(SRC, "tools"), trace], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r
    assert "w.txt: no op of lm_head.py:500-600; the window's lines" in r.stderr, r.stderr


def test_bad_records_are_one_line():
    rec = "".join(REC)
    first = REC[3].split(",")[3]  # mesh P=2 256's simulated_us, line 4
    cases = [
        ("r-empty.csv", "", "r-empty.csv: empty; expected a fit record"),
        ("r-comments.csv", "".join(REC[:2]), "r-comments.csv: empty; expected a fit record"),
        ("r-header.csv", "".join(REC[:3]), "r-header.csv:3: a header and no rows"),
        ("r-nocol.csv", rec.replace("simulated_us", "sim_us"),
         "r-nocol.csv:3: no column 'simulated_us'; expected a header with program, P, size, "
         "simulated_us"),
        ("r-zero.csv", rec.replace(first, "0"), f"r-zero.csv:4: simulated_us '0': {TIME}"),
        ("r-text.csv", rec.replace(first, "x"), f"r-text.csv:4: simulated_us 'x': {TIME}"),
        ("r-huge.csv", rec.replace(first, "1e400"), f"r-huge.csv:4: simulated_us '1e400': {TIME}"),
        ("r-nan.csv", rec.replace(first, "nan"), f"r-nan.csv:4: simulated_us 'nan': {TIME}"),
        ("r-neg.csv", rec.replace(first, "-281"), f"r-neg.csv:4: simulated_us '-281': {TIME}"),
        ("r-size.csv", rec.replace("mesh,2,256,", "mesh,2,-256,"),
         "r-size.csv:4: size '-256': expected a whole number from 0 to"),
        ("r-twice.csv", rec + REC[3],
         f"r-twice.csv:{len(REC) + 1}: 'mesh P=2 size 256' is recorded twice (first at line 4)"),
        ("r-short.csv", "".join(REC[:4]),
         "r-short.csv: no record of mesh P=2 size 1048576, mesh P=4 size 65536"),
    ]
    for name, text, msg in cases:
        refused(["guard", "--record", file(name, text)], msg)
    refused(["guard", "--record", os.path.join(TMP, "missing.csv")],
            "missing.csv: cannot read it: No such file or directory; expected a fit record")


def test_files_to_write_are_tried_first():
    # paths under TMP: root may create /nonexistent/dir, and validate does
    missing = os.path.join(TMP, "nodir", "x.csv")
    refused(["record", "--write", missing],
            f"{missing}: cannot create a file in {os.path.dirname(missing)}: No such file or "
            "directory; expected a file to write the fit record in")
    refused(["record", "--write", TMP], f"{TMP}: is a directory; expected a file to write")
    refused(["record", "--write", "/dev/null"], "/dev/null: not a regular file")
    plain = file("plain", "x")
    refused(["validate", "--out", plain], "plain: not a directory")
    refused(["validate", "--out", os.path.join(plain, "d")],
            "plain/d: cannot make the directory: Not a directory")
    # a refused record leaves the old file as it was
    old = file("old-record.csv", "the old record\n")
    refused(["--calibration", file("e.csv", ""), "record", "--write", old], "e.csv: empty")
    with open(old) as f:
        assert f.read() == "the old record\n"
    # a written one is whole, and leaves no temporary file beside it
    d = os.path.join(TMP, "out")
    os.makedirs(d)
    r = run(["record", "--write", os.path.join(d, "rec.csv")])
    assert r.returncode == 0, r.stderr
    assert os.listdir(d) == ["rec.csv"], os.listdir(d)
    with open(os.path.join(d, "rec.csv")) as f:
        assert f.read().count("\n") == len(REC)


def test_model_files_are_read_before_the_fit():
    # it took the whole fit (minutes) to say the file was missing
    refused(["fit", "--check-model", os.path.join(TMP, "no.model")],
            "no.model: cannot read it: No such file or directory; expected a pldsim model file")
    refused(["fit", "--write-model", os.path.join(TMP, "no.model")], "no.model: cannot read it")
    refused(["fit", "--check-model", file("keys.model", "hbm_lat = 80ns\n")],
            "keys.model: no line for cube_fp32_rate, cube_lat, cube_rate, dispatch_lat, hbm_bw, "
            "l1_bw, launch_lat, pull_bw, pull_lat, push_lat, sdma_bw, sdma_lat, signal_lat, submit_lat")
    refused(["--build", os.path.join(TMP, "nobuild"), "guard"],
            "nobuild/bench/pldsim-measured is not built")


def test_fit_without_scipy_says_how_to_run_it():
    # a scipy that cannot be imported, ahead of the real one on the path
    shadow = os.path.join(TMP, "shadow", "scipy")
    os.makedirs(shadow)
    file(os.path.join(shadow, "__init__.py"),
         "raise ModuleNotFoundError(\"No module named 'scipy'\", name='scipy')\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(shadow))
    refused(["fit"], f"fit needs numpy and SciPy, which {sys.executable} (Python ",
            "lacks (No module named 'scipy')", "python3", env=env)
    # the other subcommands never import it
    r = run(["guard"], env)
    assert r.returncode == 1 and "SciPy" not in r.stderr and "FAIL mesh" in r.stdout, r


def test_a_bad_command_line_is_one_line():
    # argparse printed its usage block first: two or more lines
    refused(["fit", "--bogus"], "unrecognized arguments: --bogus", "(see pldsim-calibrate --help)")
    refused(["nonesuch"], "invalid choice: 'nonesuch'")
    refused(["guard", "--tolerance"], "pldsim-calibrate: guard: argument --tolerance: expected one argument")
    refused(["fit", "--max-evals", "0"], "--max-evals must be 1 or more")


def test_a_bad_topology_is_pldsims_own_line():
    # it was the whole pldsim-measured command line, then pldsim's message, exit 1
    r = run(["guard", "--topology", "bogus"])
    what = f"exit {r.returncode}\nstderr: {r.stderr}"
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1, what
    assert lines[0].startswith("pldsim-calibrate: --topology 'bogus': unknown kind 'bogus'"), what


def main() -> int:
    tests = [(k, v) for k, v in globals().items() if k.startswith("test_")]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"PASS: {name}")
        except Exception:  # report every failure, then the count
            failed += 1
            print(f"FAIL: {name}")
            traceback.print_exc(file=sys.stdout)
    print(f"{len(tests) - failed} passed, {failed} failed")
    shutil.rmtree(TMP)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
