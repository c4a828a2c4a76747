"""Step 04: a barrier from notify and wait.  By hand (the default): every
rank adds 1 to its own row of each peer's signal, then waits until each
peer's row of its own signal holds at least 1; the signal cells are the
output, so y[r][i] is 1 for every peer i and 0 for r itself (exact).
--use-builtin: pld.tensor.barrier does the same in one call, and a
remote_load of the right neighbour's staged data proves it ordered the
ranks: y[r] = x[(r + 1) % P].  Needs exactly 2 devices."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch

P = 2
SIZE = 64


@pl.jit.incore
def hand_barrier(
    y: pl.Out[pl.Tensor[[P, 1], pl.INT32]],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(signal))
    for peer in pl.range(P):
        if peer != me:
            pld.system.notify(signal, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(P):
        if src != me:
            pld.system.wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
    # the cells, one element at a time: a [2, 1] INT32 tile would have
    # 4-byte rows, and a multi-row tile's rows must be 32-byte multiples
    for i in pl.range(P):
        pl.write(y, [i, 0], pl.read(signal, [i, 0]))
    return y


@pl.jit.incore
def builtin_barrier(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(data)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
    # without it, the load below could read the neighbour's window first
    signal = pld.tensor.barrier(signal)
    neighbour = pld.tile.remote_load(data, peer=(me + 1) % nr, offsets=[0, 0], shape=[1, SIZE])
    return pl.store(neighbour, [0, 0], y)


@pl.jit
def per_rank_hand(y: pl.Out[pl.Tensor[[P, 1], pl.INT32]], signal: pld.DistributedTensor[[P, 1], pl.INT32]):
    return hand_barrier(y, signal)


@pl.jit
def per_rank_builtin(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return builtin_barrier(x, y, data, signal)


@pl.jit.host
def hand_program(y: pl.Out[pl.Tensor[[P, P, 1], pl.INT32]]):
    signal_buf = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        per_rank_hand(y[r], pld.window(signal_buf, [P, 1], dtype=pl.INT32), device=r)


@pl.jit.host
def builtin_program(x: pl.Tensor[[P, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, SIZE], pl.FP32]]):
    # the data first: the small signal then starts a fresh cache line
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [P, 1], dtype=pl.INT32)
        per_rank_builtin(x[r], y[r], data, signal, device=r)


def main() -> int:
    args, ids = stepkit.parse("04_barrier", exact=P, use_builtin=True)
    cfg = stepkit.config(args, ids)
    if args.use_builtin:
        x = torch.randn(P, 1, SIZE)
        y = torch.zeros(P, 1, SIZE)
        compiled = builtin_program.compile(x, y, config=cfg)
        if stepkit.compile_only(args, compiled):
            return 0
        compiled(x, y)
        return stepkit.finish(y, torch.stack([x[(r + 1) % P] for r in range(P)]), "y[r] = x[(r + 1) % P]")
    y = torch.zeros(P, P, 1, dtype=torch.int32)
    compiled = hand_program.compile(y, config=cfg)
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(y)
    want = 1 - torch.eye(P, dtype=torch.int32).view(P, P, 1)
    return stepkit.finish(y, want, "y[r][i] = (i != r)", exact=True)


if __name__ == "__main__":
    raise SystemExit(main())
