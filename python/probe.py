"""configure's check of a Python for the front end: prints nothing when this
interpreter can build and run pldsim-py, else one line saying why not.
With --cflags, prints the compiler flags for its C headers; with --version,
its version and torch's."""
import os
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
if "--cflags" in sys.argv:
    print("-I" + include)
elif "--version" in sys.argv:
    print("%d.%d.%d, torch %s" % (sys.version_info[:3] + (torch.__version__,)))
elif not os.path.exists(os.path.join(include, "Python.h")):
    print("has no C headers (no Python.h in %s)" % include)
