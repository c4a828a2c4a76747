"""Collectives called by the host orchestrator (host builtins): an
allreduce with no signal (pldsim makes the private one upstream's compiler
synthesizes), a barrier and an allgather, each between the host's own
dispatches.

    pldsim-py host_builtins.py [MODE]

MODE: ok (default), ring (the allreduce is the host ring, with its
[2(P-1)+1, P] signal), ring-mesh-signal (a host ring given a mesh signal),
ring-max (a host ring with ReduceOp.Max), cores (the allreduce on 3 cores
per rank, with no signal: pldsim makes the [P, 3] one), cores-too-many
(core_num 49, more than a2a3's 48 AIV cores), cores-huge (core_num 10**20,
more than libpld's int64 takes), kernel-no-signal (an
allreduce without a signal inside a kernel)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
P, COLS = 4, 64


@pl.jit.incore
def publish(x: pl.Tensor[[1, COLS], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]]):
    if MODE == "kernel-no-signal":
        pld.tensor.allreduce(data)
    return pl.store(pl.load(x, [0, 0], [1, COLS]), [0, 0], data)


@pl.jit.incore
def collect(
    data: pld.DistributedTensor[[1, COLS], pl.FP32],
    rows: pld.DistributedTensor[[P, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    g: pl.Out[pl.Tensor[[P, COLS], pl.FP32]],
):
    pl.store(pl.load(rows, [0, 0], [P, COLS]), [0, 0], g)
    return pl.store(pl.load(data, [0, 0], [1, COLS]), [0, 0], y)


@pl.jit
def publish_on(x: pl.Tensor[[1, COLS], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]]):
    return publish(x, data)


@pl.jit
def collect_on(
    data: pld.DistributedTensor[[1, COLS], pl.FP32],
    rows: pld.DistributedTensor[[P, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    g: pl.Out[pl.Tensor[[P, COLS], pl.FP32]],
):
    return collect(data, rows, y, g)


@pl.jit.host
def host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, COLS], pl.FP32]], g: pl.Out[pl.Tensor[[P, P, COLS], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    rows_buf = pld.alloc_window_buffer([P, COLS], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer(64)  # a whole cache line: the private signal comes next
    ring_buf = pld.alloc_window_buffer(128)  # [2(P-1)+1, P] INT32 = 112 bytes, in whole lines
    data = pld.window(data_buf, [1, COLS], dtype=pl.FP32)
    rows = pld.window(rows_buf, [P, COLS], dtype=pl.FP32)
    sig = pld.window(sig_buf, [P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        publish_on(x[r], data, device=r)
    pld.tensor.allgather(data, rows, sig)  # every rank's row, before the sum
    ring_sig = pld.window(ring_buf, [2 * (P - 1) + 1, P], dtype=pl.INT32)
    if MODE == "ring":
        data = pld.tensor.allreduce(data, ring_sig, mode="ring")
    elif MODE == "ring-mesh-signal":
        data = pld.tensor.allreduce(data, sig, mode="ring")
    elif MODE == "ring-max":
        data = pld.tensor.allreduce(data, ring_sig, op=pld.ReduceOp.Max, mode="ring")
    elif MODE == "cores":
        data = pld.tensor.allreduce(data, core_num=3)
    elif MODE == "cores-too-many":
        data = pld.tensor.allreduce(data, core_num=49)
    elif MODE == "cores-huge":
        data = pld.tensor.allreduce(data, core_num=10**20)
    else:
        data = pld.tensor.allreduce(data)  # the host form: no signal
    sig = pld.tensor.barrier(sig)
    for r in pl.range(pld.world_size()):
        collect_on(data, rows, y[r], g[r], device=r)


x = torch.randn(P, 1, COLS)
y = torch.zeros(P, 1, COLS)
g = torch.zeros(P, P, COLS)
host(x, y, g, config=RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P)))))
for r in range(P):
    assert torch.allclose(y[r], x.sum(dim=0), rtol=1e-5, atol=1e-5), (r, y[r], x.sum(dim=0))
    assert torch.equal(g[r], x[:, 0, :]), r
print("OK")
