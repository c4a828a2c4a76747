"""A small layer of a model, for --timing-only (tests/python/test_timing_only.py):

    pldsim-py [--timing-only] timing_only.py MODE

layer: on each of 2 ranks, scores = softmax(x @ w^T) over [M, N] (a
tensor matmul with b_trans, row_max, row_expand_expdif, row_sum,
row_expand_div), cast to BF16 and back, pushed into the right
neighbour's window (pld.tile.remote_store), a barrier, then y = the
neighbour's scores + 1.  y starts as -7 everywhere.  With data the
program checks y against torch and prints OK; under --timing-only it
prints whether y still holds its -7s (UNTOUCHED) and exits 0.
read: pl.read of an element of the scores, which --timing-only has none of.
read-route: that read, then a route cast from the scores (an INT32 that
holds no value either, as an argsort of scores would), read twice.
route: a MoE-like dispatch on 4 ranks: each rank copies its routing ids
(INT32, from the host) into a scratch tensor, as pypto-lib's gate does,
reads each row's destination from it, pushes the row there, publishes
per-destination counts into an INT32 window, and after a barrier loads
as many rows as each source says it sent.  The ids send every row to
another rank than 0, so a run that read them as 0 would take another
path.  Prints the rows each rank received.
weights: route, with its rows taken from a [4, 512, 384] normal draw
quantized per row (as pypto-lib's weight generators): under --shape-only
none of it is made, and the program prints where the weights are (meta).
weights-read: weights, reading the largest weight on the host first.
golden: the layer through golden.run (a stand-in for pypto-lib's golden
runner, golden/runner.py here) with a golden_fn that prints when it runs."""

import os
import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
P, M, K, N = 2, 16, 64, 32
TIMING_ONLY = os.environ.get("PLD_TIMING_ONLY") == "1"


@pl.jit.incore
def layer(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.InOut[pl.Tensor[[M, N], pl.FP32]],
    data: pld.DistributedTensor[[M, N], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(data)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    acc = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)
    e = pl.row_expand_expdif(acc, pl.row_max(acc))
    soft = pl.row_expand_div(e, pl.row_sum(e))
    soft = pl.cast(pl.cast(soft, target_type=pl.BF16), target_type=pl.FP32)
    if MODE in ("read", "read-route"):
        print("first score", pl.read(soft, [0, 0]))  # FAULT read
    if MODE == "read-route":
        route = pl.cast(soft, target_type=pl.INT32)
        for _ in range(2):
            print("route", pl.read(route, [0, 1]))  # FAULT route
    stage = pl.create_tensor([M, N], dtype=pl.FP32)
    stage[0:M, 0:N] = soft
    pld.tile.remote_store(pl.load(stage, [0, 0], [M, N]), data, peer=(me + 1) % nr, offsets=[0, 0])
    signal = pld.tensor.barrier(signal)
    return pl.store(pl.add(pl.load(data, [0, 0], [M, N]), 1.0), [0, 0], y)


@pl.jit
def on_device(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.InOut[pl.Tensor[[M, N], pl.FP32]],
    data: pld.DistributedTensor[[M, N], pl.FP32],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return layer(x, w, y, data, signal)


@pl.jit.host
def host(x: pl.Tensor[[P, M, K], pl.BF16], w: pl.Tensor[[N, K], pl.BF16], y: pl.InOut[pl.Tensor[[P, M, N], pl.FP32]]):
    data = pld.alloc_window_buffer([M, N], dtype=pl.FP32)
    signal = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        on_device(x[r], w, y[r], pld.window(data, [M, N], dtype=pl.FP32), pld.window(signal, [P, 1], dtype=pl.INT32), device=r)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    scores = torch.softmax(x.float() @ w.float().t(), dim=-1).to(torch.bfloat16).float()
    return scores.roll(1, dims=0) + 1.0  # rank r holds rank r-1's scores


x = torch.randn(P, M, K).to(torch.bfloat16)
w = torch.randn(N, K).to(torch.bfloat16)
y = torch.full((P, M, N), -7.0)
RP, ROWS, COLS = 4, 6, 64


@pl.jit.incore
def dispatch(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[1, 8], pl.INT32],
    got: pl.InOut[pl.Tensor[[1, 8], pl.INT32]],
    inbox: pld.DistributedTensor[[RP * ROWS, COLS], pl.FP32],
    counts: pld.DistributedTensor[[RP, 8], pl.INT32],
    signal: pld.DistributedTensor[[RP, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(inbox)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    route = pl.create_tensor([1, 8], dtype=pl.INT32)
    route[:, :] = ids[:, :]
    sent = [0] * nr
    for r in pl.range(ROWS):
        d = pl.cast(pl.read(route, [0, r]), pl.INDEX)
        pld.tile.remote_store(pl.load(x, [r, 0], [1, COLS]), inbox, peer=d, offsets=[me * ROWS + sent[d], 0])
        sent[d] += 1
    for d in pl.range(nr):
        pld.tile.remote_store(pl.tile.full([1, 8], dtype=pl.INT32, value=sent[d]), counts, peer=d, offsets=[me, 0])
    signal = pld.tensor.barrier(signal)
    total = 0
    for s in pl.range(nr):
        n = pl.cast(pl.read(counts, [s, 0]), pl.INDEX)
        for i in pl.range(n):
            pl.add(pl.load(inbox, [s * ROWS + i, 0], [1, COLS]), 1.0)
        total += n
    pl.write(got, [0, 0], pl.cast(total, pl.INT32))


@pl.jit
def dispatch_on_device(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[1, 8], pl.INT32],
    got: pl.InOut[pl.Tensor[[1, 8], pl.INT32]],
    inbox: pld.DistributedTensor[[RP * ROWS, COLS], pl.FP32],
    counts: pld.DistributedTensor[[RP, 8], pl.INT32],
    signal: pld.DistributedTensor[[RP, 1], pl.INT32],
):
    return dispatch(x, ids, got, inbox, counts, signal)


@pl.jit.host
def dispatch_host(x: pl.Tensor[[RP, ROWS, COLS], pl.FP32], ids: pl.Tensor[[RP, 1, 8], pl.INT32],
                  got: pl.InOut[pl.Tensor[[RP, 1, 8], pl.INT32]]):
    inbox = pld.alloc_window_buffer([RP * ROWS, COLS], dtype=pl.FP32)
    counts = pld.alloc_window_buffer([RP, 8], dtype=pl.INT32)
    signal = pld.alloc_window_buffer([RP, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        dispatch_on_device(x[r], ids[r], got[r], pld.window(inbox, [RP * ROWS, COLS], dtype=pl.FP32),
                           pld.window(counts, [RP, 8], dtype=pl.INT32), pld.window(signal, [RP, 1], dtype=pl.INT32),
                           device=r)


if MODE in ("route", "weights", "weights-read"):
    # rows go to ranks 1 to 3, never to rank 0: ids read as 0 would send them all there
    ids = torch.zeros(RP, 1, 8, dtype=torch.int32)
    for r in range(RP):
        for i in range(ROWS):
            ids[r, 0, i] = 1 + (r + i) % (RP - 1)
    got = torch.zeros(RP, 1, 8, dtype=torch.int32)
    run = dispatch_host.compile(torch.zeros(RP, ROWS, COLS), ids, got,
                                config=RunConfig(distributed_config=DistributedConfig(device_ids=list(range(RP)))))
    if MODE == "route":
        x = torch.randn(RP, ROWS, COLS)
    else:
        # as pypto-lib's weight generators: a large normal draw, quantized
        # per row; --shape-only makes none of it, only the shapes
        w = torch.randn(RP, 512, ROWS * COLS)
        scale = w.abs().amax(dim=-1, keepdim=True) / 127.0
        q = torch.round(w / scale).clamp(-127, 127)
        if MODE == "weights-read":
            print("largest", float(q.abs().max()))  # FAULT shape-read
        x = (q[:, 0, :] * scale[:, 0, :]).reshape(RP, ROWS, COLS).contiguous()
        print("weights on", q.device.type)
    run(x, ids, got)
    print("received", got[:, 0, 0].tolist())
    sys.exit(0)

compiled = host.compile(x, w, y, config=RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P)))))

if MODE == "golden":
    import golden

    def golden_fn(values: dict) -> None:
        print("golden_fn ran")
        values["y"][:] = reference(values["x"], values["w"])

    golden.run(compiled, {"x": x, "w": w, "y": y}, golden_fn=golden_fn)
    sys.exit(0)

compiled(x, w, y)
if TIMING_ONLY:
    print("UNTOUCHED" if bool((y == -7.0).all()) else "WRITTEN")
else:
    assert torch.allclose(y, reference(x, w), atol=1e-6), (y, reference(x, w))
    print("OK")
