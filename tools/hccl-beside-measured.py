#!/usr/bin/env python3
"""hccl-beside-measured: pldsim-all_reduce_test on a2a3 beside the measured
910B times of the same builtin (bench/measurements/a2a3-calibration.csv,
the mesh allreduce's device wall of one dispatch), as a Markdown table.

    tools/hccl-beside-measured.py [BUILDDIR [SRCDIR]]

For each P and size of the measured set: the median of the campaign's
rows (their p50 where given, else their mean), pldsim's aveg_time (rank 0,
20 calls back to back after 10 warm-up calls, as hccl_test times them), and
the difference.  docs/hccl-test.md says what the difference is."""

import csv
import os
import statistics
import subprocess
import sys
from typing import Dict, List, Tuple


def measured(path: str) -> Dict[Tuple[int, int], List[float]]:
    """Device-wall times (us) of the mesh allreduce, by (P, bytes per rank)."""
    out: Dict[Tuple[int, int], List[float]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["variant"] != "mesh" or not row["metric"].startswith("device_wall"):
                continue
            us = row["p50_us"] or row["mean_us"]
            if us:
                key = (int(row["P"]), int(row["bytes_per_rank"]))
                out.setdefault(key, []).append(float(us))
    return out


def simulated(build: str, P: int, sizes: List[int]) -> Dict[int, float]:
    """pldsim-all_reduce_test's aveg_time (us) for each size, on a2a3sim."""
    prog = os.path.join(build, "tools", "pldsim-hccl-test")
    times = {}
    for size in sizes:
        r = subprocess.run([prog, "all_reduce_test", "-p", str(P), "-b", str(size), "-e",
                            str(size), "-c", "1"], capture_output=True, text=True, check=True)
        row = r.stdout.splitlines()[-1].split(" | ")
        assert row[3].strip() == "success", r.stdout
        times[size] = float(row[1])
    return times


def main() -> int:
    build = sys.argv[1] if len(sys.argv) > 1 else "."
    src = sys.argv[2] if len(sys.argv) > 2 else build
    rows = measured(os.path.join(src, "bench", "measurements", "a2a3-calibration.csv"))
    print("| P | bytes per rank | measured device wall, us (median of n) | "
          "pldsim aveg_time, us | measured - pldsim, us |")
    print("|---|---|---|---|---|")
    for P in sorted({p for p, _ in rows}):
        sizes = sorted(b for p, b in rows if p == P)
        sim = simulated(build, P, sizes)
        for size in sizes:
            m = statistics.median(rows[(P, size)])
            print("| %d | %d | %.0f (%d) | %.2f | %.0f |" % (P, size, m, len(rows[(P, size)]),
                                                             sim[size], m - sim[size]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
