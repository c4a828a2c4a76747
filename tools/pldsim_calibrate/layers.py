"""Whole pypto-lib layers as held-out points (issue 53, item 3): a layer
row of the runtime's held-out figures whose program this build runs
unmodified, at the commit the row names and at the one before it, each
against its measured time.

The programs are pypto-lib's own files, never copied here: validate takes
a clone of hw-native-sys/pypto-lib (--pypto-lib DIR) and extracts each
commit's tree into a scratch directory with `git archive`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from .points import Point
from .readers import Refused


@dataclass(frozen=True)
class Layer:
    """A pypto-lib program that a layer row measured, and how it ran."""

    name: str  # the point's name: layer/<name>, layer/<name>-before
    commit: str  # the row's pypto-lib commit: `value` is at it, `before` at its parent
    path: str  # the program, from the repository's root
    args: tuple[str, ...]  # its command line on a2a3sim, as the row's conditions give
    P: int
    # a text of the row's quantity, where one commit's rows measured several shapes
    quantity: str = ""
    # the measured window, where the row is one and not the device wall: the
    # program's first and last source line whose ops it spans, at the commit
    # and at its parent (a pair each)
    window: tuple[tuple[int, int], tuple[int, int]] | None = None


# The layer rows this build runs, every rank started at once
# (dispatch_lat=0), as the cards' processes start on the machine.
# lm_head (PR 840): the fast card's end to end span at TP 4 on 4 cards;
# pldsim's clock for it is the smallest device wall over the ranks.
# The MTP lm_head (PR 958): the projection-plus-push window at TP 2, 4 and
# 8 (DP as TP, one group); pldsim's clock for it is the smallest span over
# the ranks from the first op of the projection to the last of the push:
# the fused scope lm_head_matmul_push (lines 228-334) at the commit, and
# lm_head_matmul through lm_head_combine_push (192-270) before it.
_MTP = "models/deepseek_v4_flash_mtp/lm_head.py"
_MTP_WINDOW = ((228, 334), (192, 270))
LAYERS = (
    Layer("lm_head-tp4", "d28a3fb9", "models/deepseek/v4-flash/lm_head.py",
          ("-p", "a2a3sim", "--tp", "4", "-d", "0,1,2,3"), 4),
    *(Layer(f"mtp-lm_head-tp{tp}", "39d18e3e", _MTP,
            ("-p", "a2a3sim", "--tp", str(tp), "-d", ",".join(map(str, range(tp)))), tp,
            quantity=f"tp={tp}", window=_MTP_WINDOW) for tp in (2, 4, 8)),
)


def layer_points(rows: list[tuple[int, dict[str, str]]]) -> list[Point]:
    """Two points for each held-out layer row that LAYERS runs: its value
    (layer/<name>) and its `before` (layer/<name>-before), in us.  `rows`
    are the runtime held-out file's, by line, already checked."""
    points = []
    for line, c in rows:
        if c["kind"] != "layer":
            continue
        for layer in LAYERS:
            if f"pypto-lib commit {layer.commit}" not in c["source"] or \
                    layer.quantity not in c["quantity"]:
                continue
            points.append(Point(f"layer/{layer.name}", layer.P, 0, 1, [float(c["value"])],
                                {c["source"]}))
            if c["before"]:
                points.append(Point(f"layer/{layer.name}-before", layer.P, 0, 1,
                                    [float(c["before"])], {c["source"]}))
    return points


def layer_of(p: Point) -> tuple[Layer, str]:
    """The layer a point runs, and the commit: the row's, or its parent."""
    name = p.program.split("/", 1)[1]
    for layer in LAYERS:
        if name == layer.name:
            return layer, layer.commit
        if name == f"{layer.name}-before":
            return layer, f"{layer.commit}^"
    raise ValueError(p.program)


def window_us(trace: str, source: str, lines: tuple[int, int]) -> float:
    """The smallest span over the ranks (us) of the ops of a text trace
    whose source is `source`:N, N within `lines`: a measured window, such
    as a projection and its push, on the card that ran it fastest."""
    spans: dict[str, list[float]] = {}
    with open(trace) as f:
        for row in f:
            if row.startswith("#"):
                continue
            c = row.split()
            file, _, line = c[-1].rpartition(":")
            if c[2] == "host" or file != source or not line.isdigit() or \
                    not lines[0] <= int(line) <= lines[1]:
                continue
            s = spans.setdefault(c[2], [float("inf"), float("-inf")])
            s[0], s[1] = min(s[0], float(c[0])), max(s[1], float(c[1]))
    if not spans:
        sys.exit(f"pldsim-calibrate: {trace}: no op of {source}:{lines[0]}-{lines[1]}; the "
                 "window's lines in tools/pldsim_calibrate/layers.py do not match the program")
    return min(end - start for start, end in spans.values()) / 1e3


def check_repo(repo: str, pts: list[Point]) -> None:
    """Refused, before any point runs, unless `repo` is a git repository
    holding every commit the points need."""
    if not os.path.isdir(repo):
        raise Refused(f"--pypto-lib {repo}: not a directory; expected a clone of "
                      "hw-native-sys/pypto-lib")
    if shutil.which("git") is None:
        raise Refused(f"--pypto-lib {repo}: no git on PATH; the layers are read out of the "
                      "clone's history with git, so install git (Debian's package git)")
    for p in pts:
        _, commit = layer_of(p)
        r = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet",
                            f"{commit}^{{commit}}"], capture_output=True, text=True)
        if r.returncode != 0:
            raise Refused(f"--pypto-lib {repo}: no commit {commit} (the layer {p.program}); "
                          "expected a clone of hw-native-sys/pypto-lib that holds it")


def fast_card_us(py: str, tree: str, layer: Layer, out: str, before: bool) -> float:
    """The smallest device wall over the ranks (us) of `layer`'s program
    in the pypto-lib tree `tree`, or its smallest window where the layer
    measured one (at the commit's parent when `before`), run as pypto-lib
    runs it (from its directory, the tree on PYTHONPATH), without values
    (--shape-only: the layer's time, not its data, is the point)."""
    prog = os.path.join(tree, layer.path)
    trace = ["--trace", out + ".trace.txt"] if layer.window else []
    cmd = [py, "--shape-only", "--no-summary", "--topology", "hccs,dispatch_lat=0",
           "--summary-json", out, *trace, os.path.basename(prog), *layer.args]
    r = subprocess.run(cmd, cwd=os.path.dirname(prog), capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=tree))
    if r.returncode != 0:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)} (in {os.path.dirname(prog)}) failed "
                 f"({r.returncode}):\n{r.stderr.strip()[-2000:]}")
    if layer.window:
        return window_us(out + ".trace.txt", os.path.basename(prog), layer.window[before])
    with open(out) as f:
        return min(float(rank["device_wall_us"]) for rank in json.load(f)["ranks"])


def layers_simulate(build: str, repo: str, pts: list[Point]) -> list[float]:
    """Each layer point's simulated fast-card time, one run per commit."""
    # absolute: the program runs from its own directory
    py = os.path.abspath(os.path.join(build, "tools", "pldsim-py"))
    if not os.access(py, os.X_OK):
        raise Refused(f"{py} is not built (run make first, or give --build the build directory)")
    times: dict[tuple[str, str], float] = {}
    out = []
    with tempfile.TemporaryDirectory(prefix="pldsim-calibrate-layers-") as d:
        for i, p in enumerate(pts):
            layer, commit = layer_of(p)
            if (layer.name, commit) not in times:
                tree = os.path.join(d, f"tree{i}")
                os.mkdir(tree)
                # the commit's files only (no .git): what a checkout of it holds
                archive = subprocess.run(["git", "-C", repo, "archive", commit],
                                         capture_output=True, check=True).stdout
                subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
                times[(layer.name, commit)] = fast_card_us(py, tree, layer,
                                                           os.path.join(d, f"summary{i}.json"),
                                                           commit != layer.commit)
            out.append(times[(layer.name, commit)])
    return out
