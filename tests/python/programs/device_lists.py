"""A DistributedConfig of 10 001 device ids with one at fault, which
upstream refuses with a ValueError quoting the list.

    pldsim-py device_lists.py MODE

MODE: repeat (id 5 twice) or negative (an id -1 at the end)."""

import sys

from pypto.ir.distributed_compiled_program import DistributedConfig

ids = list(range(10000)) + [5 if sys.argv[1] == "repeat" else -1]
DistributedConfig(device_ids=ids)
