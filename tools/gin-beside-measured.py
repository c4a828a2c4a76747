#!/usr/bin/env python3
"""gin-beside-measured: pldsim-gin-perf on a2a3 beside pto-isa's measured
one-sided reads between two 910B NPUs (bench/measurements/
a2a3-cube-sdma.csv, the calibration half, and a2a3-cube-sdma-heldout.csv),
as a Markdown table.

    tools/gin-beside-measured.py [BUILDDIR [SRCDIR]]

TGET (sync, through UB in 4 KiB pieces) is ginGetLatency_ping_perf with
--chunk 4K; TGET_ASYNC (an SDMA engine) is ginPutLatency_ping_perf with
--sdma (pld has no SDMA get; its put_async is priced as the same engine's
transfer).  The suite prints the time per iteration over 2; the table
gives the whole time of one transfer, to set beside pto-isa's cycles of
the 50 MHz system counter."""

import csv
import os
import subprocess
import sys
from typing import Dict, List, Tuple


def measured(src: str) -> Dict[Tuple[str, int], Tuple[float, str]]:
    """(kind, bytes) -> (us, set) for TGET and TGET_ASYNC."""
    out: Dict[Tuple[str, int], Tuple[float, str]] = {}
    for name, half in (("a2a3-cube-sdma.csv", "calibration"),
                       ("a2a3-cube-sdma-heldout.csv", "held out")):
        with open(os.path.join(src, "bench", "measurements", name), newline="") as f:
            rows = csv.reader(ln for ln in f if not ln.startswith("#"))
            for row in rows:
                if len(row) < 9 or row[0] != "oneside" or row[8] != "cycles":
                    continue
                kind = "TGET_ASYNC" if row[1].startswith("TGET_ASYNC") else "TGET"
                out[(kind, int(row[6]))] = (float(row[7]) / 50.0, half)
    return out


def simulated(build: str, kind: str, sizes: List[int]) -> Dict[int, float]:
    """One transfer's simulated time (us) for each size, on a2a3."""
    prog = os.path.join(build, "tools", "pldsim-gin-perf")
    args = (["ginGetLatency_ping_perf", "--chunk", "4K"] if kind == "TGET"
            else ["ginPutLatency_ping_perf", "--sdma"])
    times = {}
    for size in sizes:
        r = subprocess.run([prog] + args + ["-b", str(size), "-e", str(size), "--platform",
                                            "a2a3"], capture_output=True, text=True, check=True)
        times[size] = 2 * float(r.stdout.splitlines()[-1].split()[2])
    return times


def main() -> int:
    build = sys.argv[1] if len(sys.argv) > 1 else "."
    src = sys.argv[2] if len(sys.argv) > 2 else build
    rows = measured(src)
    print("| pto-isa | bytes | set | measured, us | pldsim, us | pldsim / measured |")
    print("|---|---|---|---|---|---|")
    for kind in ("TGET", "TGET_ASYNC"):
        sizes = sorted(b for k, b in rows if k == kind)
        sim = simulated(build, kind, sizes)
        for size in sizes:
            us, half = rows[(kind, size)]
            print("| %s | %d | %s | %.2f | %.2f | %.3f |" % (kind, size, half, us, sim[size],
                                                           sim[size] / us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
