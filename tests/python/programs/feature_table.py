"""Checks docs/python.md's table of upstream features against what the
front end has (tests/python/test_feature_table.py):

    pldsim-py feature_table.py DOCS/python.md

Each row between the markers <!-- feature-table --> and
<!-- /feature-table --> names an attribute path (`pl.sort32`,
`pld.system.defer_wait`, `ir.DistributedConfig`), or a keyword of one
(`pld.tensor.allgather(defer=)`), and a status: runs (it
is there), refused (it is there, and calling it raises pldsim's one-line
NotImplementedError) or missing (AttributeError, as an ImportError of it
would be).  Prints one line per row that disagrees, then the count."""

import inspect
import sys

import pypto.ir as ir
import pypto.language as pl
import pypto.language.distributed as pld
import pypto.runtime as runtime

ROOTS = {"pl": pl, "pld": pld, "ir": ir, "runtime": runtime}


def actual(path: str) -> str:
    keyword = None
    if path.endswith("=)"):
        path, keyword = path[:-2].split("(", 1)
    root, *names = path.split(".")
    obj = ROOTS[root]
    for name in names:
        try:
            obj = getattr(obj, name)
        except AttributeError:
            return "missing"
    if keyword is not None:
        return "runs" if keyword in inspect.signature(obj).parameters else "missing"
    return "refused" if getattr(obj, "pldsim_unsupported", False) else "runs"


def rows(doc: str) -> list[tuple[str, str]]:
    with open(doc) as f:
        text = f.read()
    body = text.split("<!-- feature-table -->", 1)[1].split("<!-- /feature-table -->", 1)[0]
    out = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`") and cells[0].endswith("`"):
            out.append((cells[0].strip("`"), cells[1]))
    return out


table = rows(sys.argv[1])
bad = [(p, want, actual(p)) for p, want in table if actual(p) != want]
for p, want, got in bad:
    print(f"MISMATCH {p}: the table says {want}, the front end has it as {got}")
print(f"{len(table)} rows, {len(bad)} wrong")
sys.exit(1 if bad or not table else 0)
