"""Step 05: remote load and remote store.  --mode load (default): every
rank stores x into its own window, a barrier, then pulls its right
neighbour's copy: y[r] = x[(r + 1) % P].  --mode store: every rank pushes
x into its right neighbour's window, a barrier, then reads its own:
y[r] = x[(r - 1) % P].  Either way: write, barrier, read; the remote ops
carry no signal of their own.  Needs exactly 2 devices."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch

P = 2
SIZE = 64


@pl.jit.incore
def pull(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(data)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
    signal = pld.tensor.barrier(signal)  # the neighbour's store is done and visible
    t = pld.tile.remote_load(data, peer=(me + 1) % nr, offsets=[0, 0], shape=[1, SIZE])
    return pl.store(t, [0, 0], y)


@pl.jit.incore
def push(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(data)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    t = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(t, data, peer=(me + 1) % nr, offsets=[0, 0])
    # before the barrier our own window may still be zeros
    signal = pld.tensor.barrier(signal)
    return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)


@pl.jit
def on_device_load(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return pull(x, y, data, signal)


@pl.jit
def on_device_store(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return push(x, y, data, signal)


def make_host(on_device):
    @pl.jit.host
    def ring_shift(x: pl.Tensor[[P, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, SIZE], pl.FP32]]):
        data = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
        signal = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            view = pld.window(data, [1, SIZE], dtype=pl.FP32)
            sig = pld.window(signal, [P, 1], dtype=pl.INT32)
            on_device(x[r], y[r], view, sig, device=r)

    return ring_shift


def main() -> int:
    args, ids = stepkit.parse("05_remote_load_store", exact=P, modes=("load", "store"))
    store = args.mode == "store"
    x = torch.randn(P, 1, SIZE)
    y = torch.zeros(P, 1, SIZE)
    program = make_host(on_device_store if store else on_device_load)
    compiled = program.compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    step = -1 if store else 1
    return stepkit.finish(y, torch.stack([x[(r + step) % P] for r in range(P)]), f"{args.mode} shift")


if __name__ == "__main__":
    raise SystemExit(main())
