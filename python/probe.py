"""configure's check of a Python for the front end: prints nothing when this
interpreter can build and run pldsim-py, else one line saying why not.
With --want-torch X.Y, a torch older than X.Y is a reason too, on a line
that starts with "older" (configure falls back to such a Python only when
no other will do).  With --cflags, prints the compiler flags for its C
headers; with --version, its version, torch's and the BLAS torch multiplies
on (configure warns about the reference BLAS, which is 10x slower)."""
import os
import re
import sys
import sysconfig

if sys.version_info < (3, 9):
    print("Python %d.%d is older than 3.9" % sys.version_info[:2])
    raise SystemExit(0)
try:
    import torch
except Exception as e:  # noqa: BLE001 - any failure means "cannot use it"
    print("cannot import torch (%s: %s)" % (type(e).__name__, e))
    raise SystemExit(0)
include = sysconfig.get_paths()["include"]


def release(version: str) -> tuple:
    """(major, minor) of a version string such as 2.13.0+cpu or 1.13.0a0."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def blas() -> str:
    """The BLAS torch's products run on: MKL when torch carries it, else
    the libblas it loaded (Debian's torch: OpenBLAS or the reference one)."""
    if "BLAS_INFO=mkl" in torch.__config__.show():
        return "mkl"
    torch.ones(2, 2) @ torch.ones(2, 2)
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line}
    except OSError:
        return "unknown"
    # torch links libblas.so.3, which binds its products; a LAPACK may
    # load another BLAS beside it, so the reference one is looked for first
    if any("/blas/libblas.so" in p for p in libs):
        return "reference"
    if any("openblas" in p for p in libs):
        return "openblas"
    if any("blis" in p for p in libs):
        return "blis"
    return "unknown"


if "--cflags" in sys.argv:
    print("-I" + include)
elif "--version" in sys.argv:
    print("%d.%d.%d, torch %s, BLAS %s" % (sys.version_info[:3] + (torch.__version__, blas())))
elif not os.path.exists(os.path.join(include, "Python.h")):
    print("has no C headers (no Python.h in %s)" % include)
elif "--want-torch" in sys.argv:
    want = sys.argv[sys.argv.index("--want-torch") + 1]
    if release(torch.__version__) < release(want):
        print("older torch %s than %s" % (torch.__version__, want))
