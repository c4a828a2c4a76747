"""An example for docs/python.md: a remote_load from a rank that does not exist."""

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig


@pl.jit.incore
def pull(y: pl.Out[pl.Tensor[[1, 64], pl.FP32]], data: pld.DistributedTensor[[1, 64], pl.FP32]):
    me = pld.rank(pld.get_comm_ctx(data))
    t = pld.tile.remote_load(data, peer=me + 1, offsets=[0, 0], shape=[1, 64])  # no rank 2
    return pl.store(t, [0, 0], y)


@pl.jit
def on_device(y: pl.Out[pl.Tensor[[1, 64], pl.FP32]], data: pld.DistributedTensor[[1, 64], pl.FP32]):
    return pull(y, data)


@pl.jit.host
def host(y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):
    data = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        on_device(y[r], pld.window(data, [1, 64], dtype=pl.FP32), device=r)


y = torch.zeros(2, 1, 64)
host(y, config=RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])))
print("OK")
