"""nccl_tests_log: a strict parser for the text that nccl-tests' perf
programs (all_reduce_perf, ...) print, written from nccl-tests' own format
(src/util.cu and src/common.cu, release 2.19), for real logs.  It knows
nothing of pldsim: tests/scripts/check_nccl_format.py feeds it pldsim-perf's output
to show that a tool written for nccl-tests logs reads ours.

parse(text) returns a Log, or raises LogError naming the line at fault.
"""

import re

# The header line with the run's parameters; "unalign" came in 2.19.
PARAMS = re.compile(
    r"^# nThread (?P<nthread>\d+) nGpus (?P<ngpus>\d+) minBytes (?P<minbytes>\d+) "
    r"maxBytes (?P<maxbytes>\d+) step: (?P<step>\d+)\((?P<steptype>factor|bytes)\) "
    r"warmup iters: (?P<warmup>\d+) iters: (?P<iters>\d+) agg iters: (?P<agg>\d+) "
    r"validation: (?P<validation>\d+) graph: (?P<graph>\d+)(?: unalign: (?P<unalign>\d+))?$"
)
VERSION = re.compile(r"^# nccl-tests version \S+ nccl-headers=\d+ nccl-library=\d+$")
STARTING = re.compile(r"^# Collective test starting: (?P<name>\S+)$")
CONCLUDED = re.compile(r"^# Collective test concluded: (?P<name>\S+)$")
# "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s";
# before 2.19 the bus id was [0x%02x].
RANK = re.compile(
    r"^#  Rank (?P<rank>[ \d]\d|\d{3,}) Group (?P<group>[ \d]\d|\d{3,}) "
    r"Pid (?P<pid>[ \d]{5}\d|\d{7,}) on (?P<host> *\S+) device (?P<device>[ \d]\d|\d{3,}) "
    r"\[(?P<bus>0x[0-9a-f]{2,}|[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})\] (?P<name>\S.*)$"
)
# writeResultHeader's three lines, without -C, -S or -I.
COLUMNS = [
    "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
    % ("", "", "", "", ""),
    "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s "
    % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
       "algbw", "busbw", "#wrong"),
    "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s "
    % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
       "(GB/s)", ""),
]
# writeBenchmarkLinePreamble: "%12li  %12li  %8s  %6s  %6s", then per half
# writeBenchmarkLineBody: "  %7s  %6s  %6s  %6g" (or "    N/A").
PREAMBLE = [("size", 12), ("count", 12), ("type", 8), ("redop", 6), ("root", 6)]
HALF = [("time", 7), ("algbw", 6), ("busbw", 6)]
# with validation off the body ends "    N/A": one narrower than "  %6g"
NA = "    N/A"
FLOAT = re.compile(r"^-?(\d+(\.\d+)?|\d\.\de[+-]\d+|\de[+-]\d+)$")
OOB = re.compile(r"^# Out of bounds values : (?P<count>\d+) (?P<ok>OK|FAILED)$")
AVG = re.compile(r"^# Avg bus bandwidth    : (?P<bw>\S+) (?P<check>|OK|FAILED)$")


class LogError(Exception):
    """The text is not an nccl-tests log; the message names the line."""


class Log:
    """What a log says: params (the nThread line's fields, as ints), ranks
    (one dict per "# Rank" line), rows (one dict per data row: size,
    count, type, redop, root and out_of_place / in_place dicts with time,
    algbw, busbw, wrong (None for N/A)), out_of_bounds, avg_busbw,
    min_bw_check ("", "OK" or "FAILED"), program (or None)."""

    def __init__(self):
        self.params, self.ranks, self.rows, self.comments = {}, [], [], []
        self.program = None


def _fixed(line, at, fields, lineno):
    """Cuts `fields` (name, width) from `line` at `at`, each right-aligned in
    its width and the fields two spaces apart; returns (dict, end)."""
    out = {}
    for i, (name, width) in enumerate(fields):
        if i or at:
            if line[at:at + 2] != "  ":
                raise LogError("line %d: no two-space gap before %s: %r" % (lineno, name, line))
            at += 2
        cell = line[at:at + width]
        if len(cell) != width or not cell.strip() or cell[-1] == " " or " " in cell.strip():
            raise LogError("line %d: %s is not %d characters, right-aligned: %r"
                           % (lineno, name, width, cell))
        out[name] = cell.strip()
        at += width
    return out, at


def _row(line, lineno, check):
    pre, at = _fixed(line, 0, PREAMBLE, lineno)
    row = {"size": int(pre["size"]), "count": int(pre["count"]), "type": pre["type"],
           "redop": pre["redop"], "root": int(pre["root"])}
    for half in ("out_of_place", "in_place"):
        cells, at = _fixed(line, at, HALF, lineno)
        if line[at:at + len(NA)] == NA:
            cells["wrong"], at = "N/A", at + len(NA)
        else:
            wrong, at = _fixed(line, at, [("wrong", 6)], lineno)
            cells.update(wrong)
        for k in ("time", "algbw", "busbw"):
            if not FLOAT.match(cells[k]):
                raise LogError("line %d: %s %r is not a number" % (lineno, k, cells[k]))
            cells[k] = float(cells[k])
        if cells["wrong"] == "N/A":
            if check:
                raise LogError("line %d: #wrong N/A with validation on" % lineno)
            cells["wrong"] = None
        elif re.match(r"^\d+$", cells["wrong"]) and check:
            cells["wrong"] = int(cells["wrong"])
        else:
            raise LogError("line %d: bad #wrong %r" % (lineno, cells["wrong"]))
        row[half] = cells
    if at != len(line):
        raise LogError("line %d: %d characters past the last column: %r"
                       % (lineno, len(line) - at, line[at:]))
    return row


def parse(text):
    """Parses one run's stdout; raises LogError if it is not nccl-tests'."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    log, i, n = Log(), 0, len(lines)

    def want(cond, what):
        if not cond:
            got = lines[i] if i < n else "<end of output>"
            raise LogError("line %d: expected %s, got %r" % (i + 1, what, got))

    if i < n and lines[i].startswith("# Writing JSON output to "):
        i += 1
    if i < n and VERSION.match(lines[i]):
        i += 1
    if i < n and STARTING.match(lines[i]):
        log.program = STARTING.match(lines[i]).group("name")
        i += 1
    m = PARAMS.match(lines[i]) if i < n else None
    want(m, "the '# nThread ... nGpus ...' line")
    log.params = {k: (int(v) if v and v.isdigit() else v) for k, v in m.groupdict().items()}
    i += 1
    while i < n and lines[i].startswith("# ") and lines[i] != "# Using devices":
        log.comments.append(lines[i])  # "# Blocking Enabled" and the like
        i += 1
    want(i < n and lines[i] == "#", "'#'")
    i += 1
    want(i < n and lines[i] == "# Using devices", "'# Using devices'")
    i += 1
    while i < n and lines[i].startswith("#  Rank"):
        m = RANK.match(lines[i])
        want(m, "a '#  Rank' line in nccl-tests' widths")
        log.ranks.append(m.groupdict())
        i += 1
    nranks = log.params["nthread"] * log.params["ngpus"]
    if len(log.ranks) != nranks:
        raise LogError("%d rank lines for nThread %d x nGpus %d"
                       % (len(log.ranks), log.params["nthread"], log.params["ngpus"]))
    for r, rank in enumerate(log.ranks):
        if int(rank["rank"]) != r:
            raise LogError("rank line %d says rank %s" % (r, rank["rank"]))
    want(i < n and lines[i] == "#", "'#' after the devices")
    i += 1
    for col in COLUMNS:
        want(i < n and lines[i] == col, "the column header %r" % col)
        i += 1
    check = log.params["validation"] > 0
    while i < n and not lines[i].startswith("#"):
        log.rows.append(_row(lines[i], i + 1, check))
        i += 1
    want(log.rows, "a data row")
    m = OOB.match(lines[i]) if i < n else None
    want(m, "'# Out of bounds values : N OK'")
    log.out_of_bounds = int(m.group("count"))
    if (m.group("ok") == "OK") != (log.out_of_bounds == 0):
        raise LogError("line %d: %s with %d out of bounds" % (i + 1, m.group("ok"),
                                                              log.out_of_bounds))
    i += 1
    m = AVG.match(lines[i]) if i < n else None
    want(m, "'# Avg bus bandwidth    : X'")
    log.avg_busbw, log.min_bw_check = float(m.group("bw")), m.group("check")
    i += 1
    want(i < n and lines[i] == "#", "'#' after the footer")
    i += 1
    if i < n and CONCLUDED.match(lines[i]):
        name = CONCLUDED.match(lines[i]).group("name")
        if log.program and name != log.program:
            raise LogError("started %s, concluded %s" % (log.program, name))
        i += 1
        want(i < n and lines[i] == "#", "'#' after 'Collective test concluded'")
        i += 1
    while i < n and lines[i] == "":
        i += 1
    want(i == n, "the end of the output")
    # the average is over both halves of every row (the printed ones are rounded)
    bws = [row[h]["busbw"] for row in log.rows for h in ("out_of_place", "in_place")]
    mean = sum(bws) / len(bws)
    if abs(mean - log.avg_busbw) > 0.006 + 1e-3 * abs(mean):
        raise LogError("Avg bus bandwidth %g, but the rows' busbw average %g"
                       % (log.avg_busbw, mean))
    return log
