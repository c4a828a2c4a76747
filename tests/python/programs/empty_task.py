"""One task with no work on each of two ranks: what a task costs when it
does nothing but start.  pldsim-calibrate's validate runs it to set the
launch the model prices beside upstream's measured empty and builtin tasks
(bench/measurements/a2a3-runtime-heldout.csv, held out).

    pldsim-py empty_task.py

The run's device wall is the task's submission and its launch (with
dispatch_lat=0)."""

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

P = 2
N = 16


@pl.jit
def chip(x: pl.Tensor[[1, N], pl.FP32], out: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
    with pl.manual_scope():
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="empty"):
            pass
    return out


@pl.jit.host
def host(x: pl.Tensor[[P, 1, N], pl.FP32], out: pl.Out[pl.Tensor[[P, 1, N], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        chip(x[r], out[r], device=r)


def main() -> None:
    x = torch.zeros((P, 1, N))
    out = torch.full((P, 1, N), 3.0)
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(P))))
    host.compile(x, out, config=cfg)(x, out)
    # the task wrote nothing: the output is as the host left it
    print("OK" if bool((out == 3.0).all()) else "WRITTEN")


if __name__ == "__main__":
    main()
