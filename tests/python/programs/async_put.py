"""A ring of asynchronous puts, for the put_async tests: each rank sends
its row to the next rank on a DMA engine, computes while the bytes move,
drains the event, then publishes the row with a notify.

    pldsim-py async_put.py MODE [-d DEVICES]

MODE: async (pld.tensor.put_async), sync (pld.tensor.put, the same
compute), region (put_async of the row's second half by region),
early-notify (the notify comes before the wait: a race), never-waited (the
kernel ends with the put in flight), not-flat (a [2, 32] region),
wait-twice, not-a-session (a window where the session goes),
wait-bad-session (42 where the wait's session goes), raise-in-flight (a
Python exception while the put is in flight)."""

import argparse
import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
SIZE = 1024


@pl.jit.incore
def step(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    grid: pld.DistributedTensor[[2, 32], pl.FP32],
    sig: pld.DistributedTensor[[1, 16], pl.INT32],
):
    ctx = pld.get_comm_ctx(src)
    me = pld.rank(ctx)
    peer = (me + 1) % pld.nranks(ctx)
    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)
    sess = pld.system.async_session()
    if MODE == "sync":
        pld.tensor.put(dst, peer=peer, src=src)
    elif MODE == "region":
        evt = pld.tensor.put_async(dst, peer, src, sess, dst_offsets=[0, SIZE // 2], src_offsets=[0, SIZE // 2], shape=[1, SIZE // 2])
    elif MODE == "not-flat":
        evt = pld.tensor.put_async(grid, peer, grid, sess)  # FAULT not-flat
    elif MODE == "not-a-session":
        evt = pld.tensor.put_async(dst, peer, src, sig)  # FAULT not-a-session
    elif MODE == "never-waited":
        evt = pld.tensor.put_async(dst, peer, src, sess)  # FAULT never-waited
    else:
        evt = pld.tensor.put_async(dst, peer, src, sess)  # FAULT early-put
    scratch = pl.load(x, [0, 0], [1, SIZE])
    scratch = pl.add(scratch, scratch)
    scratch = pl.mul(scratch, scratch)
    if MODE == "early-notify":
        pld.system.notify(sig, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    if MODE == "wait-bad-session":
        pld.system.wait_async_event(evt, 42)  # FAULT wait-bad-session
    if MODE == "raise-in-flight":
        me = me // 0  # FAULT raise-in-flight
    if MODE not in ("sync", "never-waited"):
        done = pld.system.wait_async_event(evt, sess)
        assert done is True
    if MODE == "wait-twice":
        pld.system.wait_async_event(evt, sess)  # FAULT wait-twice
    if MODE != "early-notify":
        pld.system.notify(sig, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    # never waited, the peer's put is still in flight into dst: loading it
    # would race too (the detector says so), and that mode is about the wait
    recv = pl.load(src if MODE == "never-waited" else dst, [0, 0], [1, SIZE])  # FAULT early-load
    return pl.store(recv, [0, 0], y)


@pl.jit
def per_rank(x, y, src, dst, grid, sig):
    return step(x, y, src, dst, grid, sig)


@pl.jit.host
def ring(x: pl.Tensor[[8, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[8, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    grid_buf = pld.alloc_window_buffer([2, 32], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        grid = pld.window(grid_buf, [2, 32], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 16], dtype=pl.INT32)
        per_rank(x[r], y[r], src, dst, grid, sig, device=r)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("-d", "--devices", default="0,1")
    args = ap.parse_args()
    devices = [int(d) for d in args.devices.split(",")]
    P = len(devices)
    x = torch.stack([torch.arange(1000.0 * r, 1000.0 * r + SIZE).reshape(1, SIZE) for r in range(8)])
    y = torch.zeros(8, 1, SIZE)
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=devices))
    ring.compile(x, y, config=cfg)(x, y)
    for r in range(P):
        want = x[(r - 1) % P].clone()
        if MODE == "region":
            want[0, : SIZE // 2] = 0
        assert torch.equal(y[r], want), f"rank {r}: got {y[r][0, :4].tolist()}..., expected {want[0, :4].tolist()}..."
    print("OK")


if __name__ == "__main__":
    main()
