"""The runtime figures of bench/measurements/ (issue 53) are well-formed and
split: every row has its file's columns, a number for its value, a unit, a
clock and a source; and no figure is in both halves (a held-out row must
never be fitted on).  Exit 1, naming file:line, on the first bad row."""

from __future__ import annotations

import csv
import os
import sys

DATA = os.path.join(os.environ.get("PLDSIM_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                    "bench", "measurements")
FILES = {"a2a3-runtime.csv": "calibration", "a2a3-runtime-heldout.csv": "held out"}


def rows(name: str) -> list[tuple[int, dict[str, str]]]:
    """The file's rows by line, under the columns its last comment line names."""
    path = os.path.join(DATA, name)
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    header = [l for l in lines if l.startswith("# kind,")]
    if len(header) != 1:
        sys.exit(f"{path}:1: expected one '# kind,...' line naming the columns")
    cols = header[0][2:].split(",")
    out = []
    for n, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        fields = next(csv.reader([line]))
        if len(fields) != len(cols):
            sys.exit(f"{path}:{n}: {len(fields)} fields; expected {len(cols)} ({', '.join(cols)})")
        row = dict(zip(cols, fields))
        try:
            float(row["value"])
        except ValueError:
            sys.exit(f"{path}:{n}: value '{row['value']}'; expected a number")
        for key in ("unit", "clock", "source", "keys"):
            if not row[key].strip():
                sys.exit(f"{path}:{n}: no {key}")
        out.append((n, row))
    return out


def main() -> int:
    seen: dict[tuple[str, str], str] = {}
    for name, half in FILES.items():
        got = rows(name)
        if not got:
            sys.exit(f"{os.path.join(DATA, name)}: no rows")
        for n, row in got:
            key = (row["quantity"], row["source"])
            if key in seen and seen[key] != half:
                sys.exit(f"{os.path.join(DATA, name)}:{n}: '{row['quantity']}' is in both halves")
            seen[key] = half
        print(f"ok {name}: {len(got)} rows ({half})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
