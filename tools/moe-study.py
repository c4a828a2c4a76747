#!/usr/bin/env python3
"""moe-study.py: pypto-lib's DeepSeek-V4 MoE layers as a what-if study.

    tools/moe-study.py PYPTO_LIB [--out DIR] [--files F,...] [--placements P,...]
                       [--balanced-routing] [--views] [--timeout S] [--pldsim-py PATH]

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
peak memory.  For dispatch and combine it names the link that bounds each:
of the phase's transfers on the critical path, each is credited to the
slowest link of its route, and the link with the most time on the path is
the bound.  With --views it also draws pldsim-timeline's links view of
each phase's window (DIR/views/) and reports the time the bounding link
ran at full rate there: a bound that is rarely full is one of latency,
not of bandwidth.  Writes DIR/study.tsv, DIR/study.md (the table of
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


PULLS = ("remote_load", "get")  # ops whose data flows from the peer to the rank
BOUND_PHASES = ("dispatch", "combine")


def bounding_links(s: dict, segs: list[tuple[dict, str, float, float]]) -> dict[str, dict]:
    """For dispatch and combine, the link that bounds each on the critical
    path: every transfer segment of the phase on the path (a put, a store,
    a notify or a pull between two ranks) is credited, for its time on the
    path, to the slowest link of its route (the one a lone transfer runs
    at; of equal ones, the most loaded); the link with the most time is
    the phase's bound.  Also the phase's time on the path and its three
    costliest ops.  Returns {phase: {"phase_us", "ops", and where a transfer
    is on the path "link", "GBps", "share", "path_us"}}."""
    links = {l["name"]: l for l in s.get("links") or []}
    routes = {(r["from"], r["to"]): r.get("links") or [] for r in s.get("routes") or []}

    def slowest(names: list[str]) -> str | None:
        known = [links[n] for n in names if n in links]
        if not known:
            return None
        return min(known, key=lambda l: (l["bandwidth_GBps"], -l["bytes"] / l["bandwidth_GBps"]))["name"]

    out: dict[str, dict] = {}
    for phase in BOUND_PHASES:
        credit: dict[str, float] = {}
        ops: dict[str, float] = {}
        total = 0.0
        for seg, ph, lo, hi in segs:
            t = hi - lo
            if ph == phase:
                op = seg.get("op") or seg.get("kind") or "?"
                ops[op] = ops.get(op, 0.0) + t
            if ph != phase or seg.get("kind") not in ("data", "signal"):
                continue
            a, b = seg.get("rank"), seg.get("peer")
            if a is None or b is None or a < 0 or a == b:
                continue
            if seg.get("op") in PULLS:
                a, b = b, a
            name = slowest(routes.get((a, b), []))
            if name is None:
                continue
            credit[name] = credit.get(name, 0.0) + t
            total += t
        if credit:
            name = max(sorted(credit), key=lambda n: credit[n])
            out[phase] = {"link": name, "GBps": links[name]["bandwidth_GBps"],
                          "share": credit[name] / total, "path_us": total}
        if ops:  # what the phase spends its time on the path in: its ops, most first
            out.setdefault(phase, {})["phase_us"] = sum(ops.values())
            out[phase]["ops"] = sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    return out


def bound_text(b: dict | None) -> str:
    """A phase's time on the path, its ops and its bound as the table
    prints them."""
    if not b:
        return ""
    text = f"{b['phase_us']:.0f} us: " + ", ".join(f"{op} {t:.0f}" for op, t in b["ops"])
    if "link" in b:
        text += (f"; transfers {b['path_us']:.0f} us, {100 * b['share']:.0f} % over {b['link']} "
                 f"({b['GBps']:g} GB/s)")
    return text


def on_path_of(s: dict, phases: "Phases") -> list[tuple[dict, str, float, float]]:
    """The critical path's segments inside the slowest rank's dispatch (the
    device wall), each with its phase and its span there (us).  The path
    from the run's start includes the host's launches; only its part
    inside that dispatch's span is shared out."""
    slowest = max((d for r in s["ranks"] for d in r.get("dispatches", [])),
                  key=lambda d: d["device_wall_us"], default=None)
    lo, hi = (slowest["start_us"], slowest["end_us"]) if slowest else (0.0, float("inf"))
    out = []
    for seg in (s.get("critical_path") or {}).get("segments", []):
        a, b = max(seg["on_path_from_us"], lo), min(seg["end_us"], hi)
        if b > a:
            out.append((seg, phases.of(seg), a, b))
    return out


def phase_window(on_path: list[tuple[dict, str, float, float]], phase: str) -> tuple[float, float] | None:
    """The span (us) of a phase's segments on the critical path, inside
    the slowest rank's dispatch: where its view is drawn."""
    spans = [(a, b) for _, ph, a, b in on_path if ph == phase]
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None


def link_rows(report: str) -> list[tuple[str, float]]:
    """The links' rows of a pldsim-timeline report: (name, full_us), most
    loaded first."""
    rows, on = [], False
    for line in report.splitlines():
        if line.startswith("link "):
            on = True
        elif line.startswith("idle gaps"):
            break
        elif on and line.split():
            cols = line.split()
            rows.append((cols[0], float(cols[4])))
    return rows


def draw_views(args: argparse.Namespace, on_path: list[tuple[dict, str, float, float]], trace: str, tag: str,
               bounds: dict[str, dict]) -> dict[str, dict]:
    """pldsim-timeline's links view of dispatch and of combine, each over
    its window (phase_window): DIR/views/TAG-PHASE.svg, the link the view
    puts first (the most loaded in the window), and the time at full rate
    in the window of the link that bounds the phase on the critical path
    (bounding_links): a bound that is rarely full is one of latency, not
    of bandwidth.  Returns {phase: {"top", "full_us", "svg", "window_us"}}
    or, where it failed, {"error"}."""
    timeline = os.path.join(os.path.dirname(os.path.abspath(args.pldsim_py)), "pldsim-timeline")
    os.makedirs(os.path.join(args.out, "views"), exist_ok=True)
    out: dict[str, dict] = {}
    for phase in BOUND_PHASES:
        w = phase_window(on_path, phase)
        if w is None:
            continue
        svg = os.path.join(args.out, "views", f"{tag}-{phase}.svg")
        window = ["--from", f"{w[0]:.3f}", "--to", f"{w[1]:.3f}"]
        # the picture with the 8 most loaded links; then every link's row
        r = subprocess.run([timeline, *window, trace, svg], capture_output=True, text=True)
        if r.returncode == 0:
            r = subprocess.run([timeline, *window, "--links", "10000", trace, os.devnull],
                               capture_output=True, text=True)
        rows = link_rows(r.stdout)
        if r.returncode != 0 or not rows:
            out[phase] = {"error": (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]}
            continue
        bound = (bounds.get(phase) or {}).get("link", "")
        out[phase] = {"top": rows[0][0], "full_us": dict(rows).get(bound, 0.0),
                      "svg": os.path.relpath(svg, args.out), "window_us": w}
    return out


def bound_columns(p: dict) -> list[str]:
    """The TSV's columns for the phases' bounds: link, GB/s, share, each phase."""
    cols: list[str] = []
    for ph in BOUND_PHASES:
        b = p.get("bounds", {}).get(ph)
        cols += [b["link"], f"{b['GBps']:g}", f"{b['share']:.3f}"] if b and "link" in b else ["", "", ""]
        v = (p.get("views") or {}).get(ph) or {}
        cols += [f"{v['full_us']:.3f}" if "full_us" in v else "", v.get("top", "")]
    return cols


def view_text(v: dict | None) -> str:
    """What a phase's view says, after its bound in the table."""
    if not v:
        return ""
    if "error" in v:
        return f"; view failed: {v['error']}"
    return f", full {v['full_us']:.1f} us in the window ([view]({v['svg']}); most loaded there: {v['top']})"


def run_point(args: argparse.Namespace, rel: str, ep: int, devs: str) -> dict:
    path = os.path.join(args.pypto_lib, "models", rel)
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        trace = os.path.join(tmp, "trace.json")
        cmd = [sys.executable, os.path.join(HERE, "peak-memory.py"), "--", args.pldsim_py, "--shape-only",
               "--summary-json", summary, *(["--trace", trace] if args.views else []),
               os.path.basename(path), "-p", "a2a3sim", "--ep", str(ep), "-d", devs]
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
        on_path = on_path_of(s, phases)
        bounds = bounding_links(s, on_path)
        tag = (f"{rel.split('/')[0].replace('deepseek_v4_', '')}-ep{ep}-"
               f"{'box' if len({int(d) // NODE for d in devs.split(',')}) == 1 else 'two-boxes'}")
        views = draw_views(args, on_path, trace, tag, bounds) if args.views else {}
    spent: dict[str, float] = {}
    for _, phase, a, b in on_path:
        spent[phase] = spent.get(phase, 0.0) + b - a
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
            "bounds": bounds,
            "views": views,
            "busiest": (f"{busiest['from']}->{busiest['to']} {busiest['bytes'] / 2**20:.1f} MiB"
                        if busiest else "")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pypto_lib", help="a pypto-lib checkout (its models/ and golden/)")
    ap.add_argument("--out", default="moe-study", help="where the TSV, table and plot go (default moe-study)")
    ap.add_argument("--files", default=",".join(FILES), help="MoE files under models/ (default the three)")
    ap.add_argument("--placements", default="box,two-boxes", help="box, two-boxes or both (default)")
    ap.add_argument("--balanced-routing", action="store_true", help="the files' balanced routing, not their random one")
    ap.add_argument("--views", action="store_true",
                    help="also draw pldsim-timeline's links view of dispatch and combine (DIR/views/)")
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
                for ph, v in (p.get("views") or {}).items():
                    b = p["bounds"].get(ph) or {}
                    print(f"moe-study:   {ph}: " + (v["error"] if "error" in v else
                          f"bound by {b.get('link', 'no link')} on the path, {v['full_us']:.3f} us at full rate "
                          f"in the window; most loaded there {v['top']}; {args.out}/{v['svg']}"), flush=True)

    names = sorted({k for *_, p in rows for k in p.get("phases", {})})
    with open(os.path.join(args.out, "study.tsv"), "w") as f:
        f.write("\t".join(["file", "ep", "placement", "device_wall_us", "moved_bytes", "heaviest_route",
                           "wall_s", "peak_mb", *[f"path_{n}_us" for n in names],
                           *[f"{ph}_{k}" for ph in BOUND_PHASES
                             for k in ("bound_link", "bound_GBps", "bound_share", "bound_full_us",
                                       "view_top_link")],
                           "error"]) + "\n")
        for rel, ep, place, p in rows:
            f.write("\t".join(str(x) for x in [
                rel, ep, place, p.get("device_wall_us", ""), p.get("moved_bytes", ""), p.get("busiest", ""),
                f"{p['wall_s']:.1f}" if "wall_s" in p else "", p.get("peak_mb") or "",
                *[f"{p.get('phases', {}).get(n, 0.0):.3f}" for n in names],
                *bound_columns(p),
                p.get("error", "")]) + "\n")
    with open(os.path.join(args.out, "study.md"), "w") as f:
        f.write("| file | EP | placement | device wall (us) | critical path by phase (us) | dispatch on the path | "
                "combine on the path | heaviest route | moved | wall, peak |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|\n")
        for rel, ep, place, p in rows:
            if "error" in p:
                f.write(f"| `{rel}` | {ep} | {place} | fails: {p['error']} | | | | | | |\n")
                continue
            top = sorted(p["phases"].items(), key=lambda kv: -kv[1])[:4]
            path = ", ".join(f"{n} {t:.0f}" for n, t in top)
            bounds = " | ".join(bound_text(p["bounds"].get(ph)) + view_text((p.get("views") or {}).get(ph))
                                for ph in BOUND_PHASES)
            f.write(f"| `{rel}` | {ep} | {place} | {p['device_wall_us']:.3f} | {path} | {bounds} | {p['busiest']} | "
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
