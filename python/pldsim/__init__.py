"""pldsim's Python front end: upstream PyPTO's ``pypto.language`` and
``pypto.language.distributed`` executed eagerly over libpld, so that their
programs run unmodified on the simulator (``pldsim-py PROGRAM.py``).

This package holds the machinery; the ``pypto`` package next to it is the
surface that programs import.  Both are on the module path only inside
``pldsim-py``."""

import os

__version__ = "0.1.0"

#: The directories of the front end's own code: frames in them are skipped
#: when an error or a trace names the user's file and line.
PACKAGE_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), d) + os.sep
    for d in ("pldsim", "pypto")
)
