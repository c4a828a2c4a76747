#!/usr/bin/env python3
"""moe-study.py: pypto-lib's DeepSeek-V4 MoE layers as a what-if study.

    tools/moe-study.py PYPTO_LIB [--out DIR] [--files F,...] [--placements P,...]
                       [--balanced-routing] [--timeout S] [--pldsim-py PATH]

Runs each MoE file (dspark, mtp and pro moe.py) at every --ep it offers,
under ``pldsim-py --shape-only`` (no values but the routes; the weights
carry only their shapes), on the a2a3 platform: nodes of 8 cards over
HCCS, joined by RoCE NICs.  Each EP runs in two placements:

  box        the EP ranks on one node (EP <= 8): devices 0..EP-1
  two-boxes  half on each of two nodes: devices 0..EP/2-1 and 8..8+EP/2-1

For each point it records the simulated device wall (upstream's device
wall: the slowest rank's dispatch), where the critical path spends it
(its part inside that dispatch) by phase (the function of moe.py, or the module, each critical-path segment's
call lies in: dispatch, combine, gate, expert_routed, ...), the bytes moved,
the route that carried the most bytes, and the run's own wall time and
peak memory.  Writes DIR/study.tsv, DIR/study.md (the table of
docs/what-if.md) and DIR/moe-ep.svg (device wall against EP, one line per
file and placement).  A point that fails is kept in the table with its
reason; the others still run.  Needs torch >= 2.1 (--shape-only)."""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("deepseek_v4_flash_dspark/moe.py", "deepseek_v4_flash_mtp/moe.py", "deepseek_v4_pro/moe.py")
NODE = 8  # cards per a2a3 node (models/a2a3.model)
PEAK = re.compile(r"peak_pss_mb=(\d+) peak_rss_mb=(\d+) wall_s=([0-9.]+)")


def ep_choices(path: str) -> list[int]:
    """The --ep values a file offers (its _EP_CHOICES tuple)."""
    with open(path) as f:
        m = re.search(r"^_EP_CHOICES\s*=\s*\(([^)]*)\)", f.read(), re.M)
    if not m:
        raise SystemExit(f"moe-study: {path}: no _EP_CHOICES tuple; expected pypto-lib's moe.py")
    return [int(x) for x in m.group(1).split(",") if x.strip()]


def devices(ep: int, placement: str) -> str | None:
    """The device list of a placement, or None where it does not exist."""
    if placement == "box":
        return ",".join(str(d) for d in range(ep)) if ep <= NODE else None
    if ep % 2 or ep // 2 > NODE:
        return None
    half = ep // 2
    return ",".join(str(d) for d in [*range(half), *range(NODE, NODE + half)])


class Phases:
    """Maps a (file, line) of a critical-path segment to its phase: the
    top-level function of the MoE file it lies in, or its module's name;
    the host's launches of the ranks' dispatches are "host launch"."""

    def __init__(self, moe_path: str):
        self.moe = os.path.realpath(moe_path)
        with open(moe_path) as f:
            tree = ast.parse(f.read())
        self.ranges = [(n.lineno, n.end_lineno or n.lineno, n.name) for n in tree.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def of(self, seg: dict) -> str:
        path, line = seg.get("file"), seg.get("line")
        if seg.get("rank") == -1:  # the host, launching a rank's dispatch
            return "host launch"
        if not path:
            return seg.get("kind") or "other"
        if not os.path.isabs(path):  # as the program named itself: from its directory, the run's cwd
            path = os.path.join(os.path.dirname(self.moe), path)
        if os.path.realpath(path) == self.moe and line:
            for lo, hi, name in self.ranges:
                if lo <= line <= hi:
                    return name
            return "moe"
        return os.path.splitext(os.path.basename(path))[0]


def run_point(args: argparse.Namespace, rel: str, ep: int, devs: str) -> dict:
    path = os.path.join(args.pypto_lib, "models", rel)
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        cmd = [sys.executable, os.path.join(HERE, "peak-memory.py"), "--", args.pldsim_py, "--shape-only",
               "--summary-json", summary, os.path.basename(path), "-p", "a2a3sim", "--ep", str(ep), "-d", devs]
        if args.balanced_routing:
            cmd.append("--balanced-routing")
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.pypto_lib))
        started = time.monotonic()
        try:
            r = subprocess.run(cmd, cwd=os.path.dirname(path), env=env, capture_output=True, text=True,
                               timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"past {args.timeout:.0f} s"}
        out = r.stdout + r.stderr
        peak = PEAK.search(out)
        point = {"wall_s": float(peak.group(3)) if peak else time.monotonic() - started,
                 "peak_mb": int(peak.group(1)) if peak else None}
        if r.returncode in (-9, 137) or "signal 9 (SIGKILL)" in out:
            return {**point, "error": f"killed by SIGKILL (the OOM killer?) at {point['peak_mb']} MB"}
        if r.returncode != 0 or not os.path.exists(summary):
            lines = [l for l in out.splitlines() if l.strip() and not PEAK.search(l)]
            return {**point, "error": lines[-1][:200] if lines else f"exit status {r.returncode}"}
        with open(summary) as f:
            s = json.load(f)
    phases = Phases(path)
    spent: dict[str, float] = {}
    # the critical path from the run's start includes the host's launches;
    # the device wall is the slowest dispatch, so only the path's part
    # inside that dispatch's span is shared out
    slowest = max((d for r in s["ranks"] for d in r.get("dispatches", [])),
                  key=lambda d: d["device_wall_us"], default=None)
    lo, hi = (slowest["start_us"], slowest["end_us"]) if slowest else (0.0, float("inf"))
    for seg in (s.get("critical_path") or {}).get("segments", []):
        t = min(seg["end_us"], hi) - max(seg["on_path_from_us"], lo)
        if t > 0:
            spent[phases.of(seg)] = spent.get(phases.of(seg), 0.0) + t
    routes = s.get("routes") or []
    # by bytes: the summary's peak_util sums overlapping transfers' mean
    # rates, which can pass 100 % (noted in docs/what-if.md), so it is not
    # what names the route here
    busiest = max(routes, key=lambda x: x.get("bytes") or 0, default=None)
    return {**point,
            "device_wall_us": s["run"]["device_wall_us"],
            "end_us": s["run"]["end_time_us"],
            "moved_bytes": s["totals"]["bytes_moved"],
            "phases": spent,
            "busiest": (f"{busiest['from']}->{busiest['to']} {busiest['bytes'] / 2**20:.1f} MiB"
                        if busiest else "")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pypto_lib", help="a pypto-lib checkout (its models/ and golden/)")
    ap.add_argument("--out", default="moe-study", help="where the TSV, table and plot go (default moe-study)")
    ap.add_argument("--files", default=",".join(FILES), help="MoE files under models/ (default the three)")
    ap.add_argument("--placements", default="box,two-boxes", help="box, two-boxes or both (default)")
    ap.add_argument("--balanced-routing", action="store_true", help="the files' balanced routing, not their random one")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds a point may take (default 900)")
    ap.add_argument("--pldsim-py", default=os.path.join(HERE, "pldsim-py"), help="the runner (default this build's)")
    args = ap.parse_args()
    if args.timeout <= 0:
        ap.error(f"--timeout {args.timeout}: expected a positive number of seconds")
    places = [p for p in args.placements.split(",") if p]
    for p in places:
        if p not in ("box", "two-boxes"):
            ap.error(f"--placements: '{p}': expected box or two-boxes")
    files = [f for f in args.files.split(",") if f]
    for f in files:
        if not os.path.isfile(os.path.join(args.pypto_lib, "models", f)):
            ap.error(f"--files: {os.path.join(args.pypto_lib, 'models', f)}: no such file")
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for rel in files:
        for ep in ep_choices(os.path.join(args.pypto_lib, "models", rel)):
            for place in places:
                devs = devices(ep, place)
                if devs is None:
                    continue
                print(f"moe-study: {rel} --ep {ep} ({place}: -d {devs}) ...", flush=True)
                p = run_point(args, rel, ep, devs)
                rows.append((rel, ep, place, p))
                print("moe-study:   " + (p["error"] if "error" in p else
                      f"{p['device_wall_us']:.3f} us, {p['wall_s']:.1f} s, {p['peak_mb']} MB"), flush=True)

    names = sorted({k for *_, p in rows for k in p.get("phases", {})})
    with open(os.path.join(args.out, "study.tsv"), "w") as f:
        f.write("\t".join(["file", "ep", "placement", "device_wall_us", "moved_bytes", "heaviest_route",
                           "wall_s", "peak_mb", *[f"path_{n}_us" for n in names], "error"]) + "\n")
        for rel, ep, place, p in rows:
            f.write("\t".join(str(x) for x in [
                rel, ep, place, p.get("device_wall_us", ""), p.get("moved_bytes", ""), p.get("busiest", ""),
                f"{p['wall_s']:.1f}" if "wall_s" in p else "", p.get("peak_mb") or "",
                *[f"{p.get('phases', {}).get(n, 0.0):.3f}" for n in names], p.get("error", "")]) + "\n")
    with open(os.path.join(args.out, "study.md"), "w") as f:
        f.write("| file | EP | placement | device wall (us) | critical path by phase (us) | heaviest route | moved | wall, peak |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        for rel, ep, place, p in rows:
            if "error" in p:
                f.write(f"| `{rel}` | {ep} | {place} | fails: {p['error']} | | | | |\n")
                continue
            top = sorted(p["phases"].items(), key=lambda kv: -kv[1])[:4]
            path = ", ".join(f"{n} {t:.0f}" for n, t in top)
            f.write(f"| `{rel}` | {ep} | {place} | {p['device_wall_us']:.3f} | {path} | {p['busiest']} | "
                    f"{p['moved_bytes'] / 2**20:.1f} MiB | {p['wall_s']:.0f} s, {p['peak_mb']} MB |\n")
    series = []
    for rel in files:
        for place in places:
            pts = [(ep, p["device_wall_us"]) for r, ep, pl_, p in rows if r == rel and pl_ == place and "error" not in p]
            if len(pts) < 1:
                continue
            name = os.path.join(args.out, f"{rel.split('/')[0].replace('deepseek_v4_', '')}-{place}.txt")
            with open(name, "w") as f:
                f.write("".join(f"{x} {y}\n" for x, y in pts))
            series.append(f"{name}={rel.split('/')[0].replace('deepseek_v4_', '')} {place}")
    plot = os.path.join(os.path.dirname(os.path.abspath(args.pldsim_py)), "pldsim-plot")  # the same build's
    if series and os.access(plot, os.X_OK):
        subprocess.run([plot, "--xy", "--xlabel", "EP (ranks)", "--ylabel", "device wall (us)",
                        "-t", "DeepSeek-V4 MoE layer on a2a3, --shape-only", "-o",
                        os.path.join(args.out, "moe-ep.svg"), *series], check=False)
    print(f"moe-study: {len(rows)} points, {sum('error' in p for *_, p in rows)} failed; "
          f"{args.out}/study.tsv, study.md, moe-ep.svg")
    return 1 if any("error" in p for *_, p in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
