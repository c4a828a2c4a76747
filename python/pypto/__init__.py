"""pypto as pldsim provides it: the modules that upstream PyPTO programs
import (``pypto.language``, ``pypto.language.distributed``,
``pypto.runtime``, ``pypto.ir``), executed eagerly on the pldsim
simulator instead of compiled for Ascend NPUs.

This package is on the module path only inside ``pldsim-py``, so it never
shadows a real pypto installation elsewhere.  See docs/python.md."""

import pldsim

#: Marks this pypto as pldsim's (a program can test ``getattr(pypto, "__pldsim__", False)``).
__pldsim__ = True
__version__ = f"pldsim-{pldsim.__version__}"
