"""``pypto.runtime`` on pldsim: ``RunConfig``, ``run`` (compile and
call in one step), ``DistributedWorker`` with its resident tensors
(pldsim/resident.py), and ``benchmark``, whose statistics are the runs'
simulated times (pldsim/bench.py).

RunConfig takes upstream's fields.  pldsim reads ``platform`` (which
pldsim model the run uses: a2a3sim and a2a3 are the a2a3 model, a5sim and
a5 the a5 model), ``distributed_config`` (the devices), ``save_kernels``
and ``save_kernels_dir`` (where the compile's output directory goes); the
others are accepted and have no effect on the simulator.

Each name is pldsim's, re-exported: RunConfig from pldsim/config.py, run
and DistributedWorker from pldsim/program.py.  ``pto_isa_include_dir`` and
``ensure_pto_isa_root`` (pldsim/pto_isa.py) exist so that a program that
imports them (for external CCE kernels) stops at its call, in one line,
not at its import."""

from pldsim.bench import BenchmarkStats, benchmark
from pldsim.config import RunConfig
from pldsim.program import DistributedWorker, run
from pldsim.pto_isa import ensure_pto_isa_root, pto_isa_include_dir
from pldsim.resident import DeviceTensor, StackedDeviceTensor


__all__ = [
    "BenchmarkStats", "DeviceTensor", "DistributedWorker", "RunConfig", "StackedDeviceTensor", "benchmark", "ensure_pto_isa_root",
    "pto_isa_include_dir", "run",
]
