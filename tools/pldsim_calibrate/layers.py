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


# The layer rows this build runs.  lm_head (PR 840): the fast card's end to
# end span at TP 4 on 4 cards; pldsim's clock for it is the smallest device
# wall over the ranks, every rank started at once (dispatch_lat=0), as the
# cards' processes start on the machine.
LAYERS = (
    Layer("lm_head-tp4", "d28a3fb9", "models/deepseek/v4-flash/lm_head.py",
          ("-p", "a2a3sim", "--tp", "4", "-d", "0,1,2,3"), 4),
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
            if f"pypto-lib commit {layer.commit}" not in c["source"]:
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


def fast_card_us(py: str, tree: str, layer: Layer, out: str) -> float:
    """The smallest device wall over the ranks (us) of `layer`'s program
    in the pypto-lib tree `tree`, run as pypto-lib runs it (from its
    directory, the tree on PYTHONPATH), without values (--shape-only: the
    layer's time, not its data, is the point)."""
    prog = os.path.join(tree, layer.path)
    cmd = [py, "--shape-only", "--no-summary", "--topology", "hccs,dispatch_lat=0",
           "--summary-json", out, os.path.basename(prog), *layer.args]
    r = subprocess.run(cmd, cwd=os.path.dirname(prog), capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=tree))
    if r.returncode != 0:
        sys.exit(f"pldsim-calibrate: {' '.join(cmd)} (in {os.path.dirname(prog)}) failed "
                 f"({r.returncode}):\n{r.stderr.strip()[-2000:]}")
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
                                                           os.path.join(d, f"summary{i}.json"))
            out.append(times[(layer.name, commit)])
    return out
