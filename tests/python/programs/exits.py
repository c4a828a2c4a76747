"""sys.exit(CODE) from each level of a program: pldsim-py exits with its
status, as python does (None: 0, an int: itself, any other value: 1).

    pldsim-py exits.py WHERE [CODE]

WHERE: top (after the run), host, device or kernel; CODE: an int (default
7), none, or any other text; or SIGINT / SIGTERM: the process sends itself
that signal from WHERE, as an interrupt from outside would arrive; or
handler: WHERE installs a signal handler; or wait: WHERE writes its
process id to the file $EXITS_READY and sleeps, for a signal from outside."""

import os
import signal
import sys
import time

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

WHERE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else "7"
CODE = None if ARG == "none" else int(ARG) if ARG.lstrip("-").isdigit() else ARG


def interrupt(code):
    if code == "handler":  # refused during a run, on every context alike
        signal.signal(signal.SIGUSR1, lambda *a: None)  # HANDLER
    if code == "wait":
        with open(os.environ["EXITS_READY"] + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(os.environ["EXITS_READY"] + ".tmp", os.environ["EXITS_READY"])
        time.sleep(60)
    if code in ("SIGINT", "SIGTERM"):
        os.kill(os.getpid(), getattr(signal, code))
        time.sleep(10)  # where the signal ends the process; else the exit says it did not


@pl.jit.incore
def kernel(x: pl.Tensor[[1, 64], pl.FP32]):
    if WHERE == "kernel":
        interrupt(CODE)
        sys.exit(CODE)  # EXIT kernel
    return x


@pl.jit
def per_rank(x):
    if WHERE == "device":
        interrupt(CODE)
        sys.exit(CODE)  # EXIT device
    kernel(x)


@pl.jit.host
def host(x: pl.Tensor[[2, 1, 64], pl.FP32]):
    if WHERE == "host":
        interrupt(CODE)
        sys.exit(CODE)  # EXIT host
    for r in pl.range(pld.world_size()):
        per_rank(x[r], device=r)


x = torch.zeros(2, 1, 64)
host.compile(x, config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1])))(x)
if WHERE == "top":
    sys.exit(CODE)  # EXIT top
print("OK")
