"""The kernels and per-device functions of steps 06 and 07 (07 is 06 with
the rank count bound at run time), shared so that both run the same code,
as put_get.h does for the C steps."""

import pypto.language as pl
import pypto.language.distributed as pld
import torch

SIZE = 64


@pl.jit.incore
def put_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    """Stage x in src, push it into the right neighbour's dst, tell it so;
    our own dst is filled by the left neighbour: y[r] = x[(r - 1) % P]."""
    ctx = pld.get_comm_ctx(src)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    right = (me + 1) % nr
    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)
    pld.tensor.put(dst, peer=right, src=src, atomic=pld.AtomicType.None_)
    # the put has completed; the notify releases it to the neighbour
    pld.system.notify(signal, peer=right, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    return pl.store(pl.load(dst, [0, 0], [1, SIZE]), [0, 0], y)


@pl.jit.incore
def get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    """Stage x in src and tell the left neighbour (who reads it); once the
    right neighbour says the same, pull its src: y[r] = x[(r + 1) % P]."""
    ctx = pld.get_comm_ctx(src)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)
    # + nr before - 1: Python's % would not need it, the device's does
    pld.system.notify(signal, peer=(me + nr - 1) % nr, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(dst, peer=(me + 1) % nr, src=src)
    return pl.store(pl.load(dst, [0, 0], [1, SIZE]), [0, 0], y)


@pl.jit
def put_on_device(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return put_kernel(x, y, src, dst, signal)


@pl.jit
def get_on_device(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return get_kernel(x, y, src, dst, signal)


def dispatch_all(x, y, on_device) -> None:
    """The host orchestrators' body: three windows, one dispatch per rank."""
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        on_device(x[r], y[r], src, dst, signal, device=r)


def golden(x, get: bool):
    n = x.shape[0]
    step = 1 if get else -1
    return torch.stack([x[(r + step) % n] for r in range(n)])
