"""An example for docs/python.md: rank 1's kernel divides by zero."""

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig


@pl.jit.incore
def scale(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]], rank: pl.Scalar[pl.INT32]):
    factor = 1.0 / rank  # rank 0 divides by zero
    return pl.store(pl.mul(pl.load(x, [0, 0], [1, 64]), factor), [0, 0], y)


@pl.jit
def on_device(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]], rank: pl.Scalar[pl.INT32]):
    return scale(x, y, rank)


@pl.jit.host
def host(x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        on_device(x[r], y[r], r, device=r)


x, y = torch.randn(2, 1, 64), torch.zeros(2, 1, 64)
host(x, y, config=RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])))
print("OK")
