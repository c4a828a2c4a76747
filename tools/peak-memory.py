#!/usr/bin/env python3
"""peak-memory.py: runs a command and reports the peak memory of it and all
its descendants together, as the machine sees it.

    python3 tools/peak-memory.py [--every SECONDS] [--out FILE] [--split REGEX] [--mark REGEX] -- COMMAND...

pldsim-py runs a simulation in a child process that shares its tensors with
the parent through shared memory, so neither /usr/bin/time's maximum
resident set (one process's) nor the sum of the processes' resident sets
(the shared pages counted once per process) is the memory a run needs.  The
proportional set size (Pss, in /proc/PID/smaps_rollup) splits each shared
page among the processes that map it, so the sum over the tree counts every
page once.  It is sampled every 0.2 s (--every), so a peak shorter than that
can be missed.  Prints "peak_pss_mb=N peak_rss_mb=M wall_s=W" on stderr (or
into --out FILE), and exits with the command's status.  With --split, the
command's stdout passes through this script, and the first line matching
REGEX splits the run in two: "before_pss_mb=B after_pss_mb=A split_s=S"
are added (pypto-lib's golden runner prints "[RUN] runtime ..." once its
inputs and golden are made, before the simulated run).  With --mark (which
implies reading stdout, as --split does), "mark_s=S" is the time of the
first line matching that REGEX: pypto-lib's model files build their
tensors before the golden runner's first "[RUN]" line.  Linux only."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def _rollup(pid: int) -> tuple[int, int]:
    """(Pss, Rss) of one process in kB; zeros once it is gone."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--every", type=float, default=0.2, help="sampling period in seconds (default 0.2)")
    ap.add_argument("--out", help="write the figures to this file instead of stderr")
    ap.add_argument("--split", help="a regular expression: the first stdout line it matches splits the peaks in two")
    ap.add_argument("--mark", help="a regular expression: report when the first stdout line it matches came")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command given (put it after --)")
    if not 0.01 <= a.every <= 60:
        ap.error(f"--every must be between 0.01 and 60 seconds, got {a.every}")
    try:
        split = re.compile(a.split) if a.split else None
        mark = re.compile(a.mark) if a.mark else None
    except re.error as e:
        ap.error(f"--split or --mark: not a regular expression: {e}")
    relayed = split or mark
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if relayed else None)
    except OSError as e:
        print(f"peak-memory.py: cannot run {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 127
    split_at: list[float] = []
    mark_at: list[float] = []

    def relay() -> None:
        """Copies the command's stdout to ours, noting when the REGEXes match."""
        for raw in proc.stdout:
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            text = raw.decode("utf-8", "replace")
            for regex, seen in ((split, split_at), (mark, mark_at)):
                if regex and not seen and regex.search(text):
                    seen.append(time.monotonic() - start)

    reader = threading.Thread(target=relay, daemon=True) if relayed else None
    if reader:
        reader.start()
    peak_pss = peak_rss = 0
    before = after = 0
    while proc.poll() is None:
        sums = [_rollup(p) for p in _tree(proc.pid)]
        pss = sum(s[0] for s in sums)
        peak_pss = max(peak_pss, pss)
        peak_rss = max(peak_rss, sum(s[1] for s in sums))
        if split_at:
            after = max(after, pss)
        else:
            before = max(before, pss)
        time.sleep(a.every)
    if reader:
        reader.join()
    text = f"peak_pss_mb={peak_pss / 1024:.0f} peak_rss_mb={peak_rss / 1024:.0f} wall_s={time.monotonic() - start:.1f}"
    if split:
        text += f" before_pss_mb={before / 1024:.0f} after_pss_mb={after / 1024:.0f}"
        text += f" split_s={split_at[0]:.1f}" if split_at else " split_s=none"
    if mark:
        text += f" mark_s={mark_at[0]:.1f}" if mark_at else " mark_s=none"
    text += "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode


if __name__ == "__main__":
    sys.exit(main())
