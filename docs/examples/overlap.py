"""Overlap: each rank sends a block to the next rank on a DMA engine while it
computes another, then the host orchestrator sums the results across ranks
with a host builtin.

    pldsim-py [--trace FILE.svg] overlap.py [-d DEVICES] [--sync]

Rank r squares its input a = x_r * x_r and puts it, asynchronously, into
rank r+1's `recv` window; while the bytes move it computes b = 2 x_r with a
few more vector ops.  It waits for its event, publishes the block with a
notify, waits for its own left neighbour's, and stores
total_r = recv + b = x_{r-1}^2 + 2 x_r.  The host then calls
pld.tensor.allreduce(total) without a signal: a host builtin that pldsim
dispatches to every rank, as upstream's compiler does.  Every rank's output
is sum_r (x_{r-1}^2 + 2 x_r).  --sync uses pld.tensor.put instead, to
compare the times."""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N = 8192  # FP32 elements per rank: 32 KiB
parser = argparse.ArgumentParser()
parser.add_argument("-d", "--devices", default="0,1,2,3")
parser.add_argument("--sync", action="store_true", help="use the synchronous pld.tensor.put")
ARGS = parser.parse_args()


@pl.jit.incore
def stage(
    x: pl.Tensor[[1, N], pl.FP32],
    send: pld.DistributedTensor[[1, N], pl.FP32],
    recv: pld.DistributedTensor[[1, N], pl.FP32],
    total: pld.DistributedTensor[[1, N], pl.FP32],
    sig: pld.DistributedTensor[[1, 16], pl.INT32],
):
    ctx = pld.get_comm_ctx(send)
    nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    a = pl.load(x, [0, 0], [1, N])
    send = pl.store(pl.mul(a, a), [0, 0], send)
    if ARGS.sync:
        pld.tensor.put(recv, peer=nxt, src=send)
    else:
        sess = pld.system.async_session()
        evt = pld.tensor.put_async(recv, nxt, send, sess)
    # the work the transfer hides: 2x, as 2^24 x / 2^23 in 25 vector ops
    b = pl.load(x, [0, 0], [1, N])
    for _ in range(24):
        b = pl.add(b, b)
    b = pl.mul(b, 2.0**-23)
    if not ARGS.sync:
        pld.system.wait_async_event(evt, sess)  # the bytes have landed at nxt
    pld.system.notify(sig, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    r = pl.load(recv, [0, 0], [1, N])
    return pl.store(pl.add(r, b), [0, 0], total)


@pl.jit.incore
def collect(total: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
    return pl.store(pl.load(total, [0, 0], [1, N]), [0, 0], y)


@pl.jit
def stage_on(x, send, recv, total, sig):
    return stage(x, send, recv, total, sig)


@pl.jit
def collect_on(total, y):
    return collect(total, y)


@pl.jit.host
def overlap(x: pl.Tensor[[8, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[8, 1, N], pl.FP32]]):
    send_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    recv_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    total_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    send = pld.window(send_buf, [1, N], dtype=pl.FP32)
    recv = pld.window(recv_buf, [1, N], dtype=pl.FP32)
    total = pld.window(total_buf, [1, N], dtype=pl.FP32)
    sig = pld.window(sig_buf, [1, 16], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage_on(x[r], send, recv, total, sig, device=r)
    total = pld.tensor.allreduce(total)  # a host builtin: no signal, every rank
    for r in pl.range(pld.world_size()):
        collect_on(total, y[r], device=r)


devices = [int(d) for d in ARGS.devices.split(",")]
P = len(devices)
x = torch.randn(8, 1, N)
y = torch.zeros(8, 1, N)
overlap(x, y, config=RunConfig(distributed_config=DistributedConfig(device_ids=devices)))
want = sum(x[(r - 1) % P] ** 2 + 2 * x[r] for r in range(P))
for r in range(P):
    assert torch.allclose(y[r], want, rtol=1e-4, atol=1e-4), f"rank {r} differs from the reference"
print("OK")
