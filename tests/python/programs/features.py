"""Constructs of the front end that the tutorial steps do not exercise,
one per mode, for the tests:

    pldsim-py features.py MODE

put / put-chunks / put-pipeline / get-chunks: a [4, 64] region moved to
the right neighbour with put (or pulled with get), whole or staged in
[1, 16] chunks, with or without double buffering; prints the simulated
time.  tile-put / tile-put-pipeline / tile-get: the same through
pld.tile.put/get with [1, 16] stage tiles (two when pipelined).  reduce-ops: allreduce with Max, Min and Prod, mesh and ring; reduce-scatter-ops: reduce_scatter with the same in a kernel.  a2av-int8: an INT8 all_to_all_v with counts clamped to 0 .. MAX_RECV.
pipeline-alone: pipeline=True without chunks.  dynamic-mismatch: two
tensors that bind pl.dynamic("NR") differently.  unsupported: pl.gemv.
direct: a host orchestrator called directly with config=.  kernel-alone:
a kernel called from plain Python.  seed: prints a checksum of
torch.randn.  twice: calls the compiled program three times.  ragged: a
[1, 40] row in [1, 16] tiles whose last holds 8 (valid_shape), a running
sum carried by pl.range(init_values=) and pl.yield_, and a clamp=True load.
yield-count: a pl.yield_ of two values in a loop that carries one.
composite: a kernel annotated [M * 2, COLS], called with 4 rows, that
loads M * 2 rows in its body.  composite-mismatch: the same with 3 rows."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
P, ROWS, COLS = 2, 4, 64
CHUNKS = {
    "put": (0, 0, False), "put-chunks": (1, 16, False), "put-pipeline": (1, 16, True), "get-chunks": (1, 16, False),
    "tile-put": (1, 16, False), "tile-put-pipeline": (1, 16, True), "tile-get": (1, 16, False),
}
NR = pl.dynamic("NR")


@pl.jit.incore
def move(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    src: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    dst: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(src)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    rows, cols, pipeline = CHUNKS.get(MODE, (0, 0, True))
    src = pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], src)
    # the staging tiles of the tile-level forms, loaded in every mode so that
    # the modes' times differ only by their transfers
    stage, stage2 = pl.load(x, [0, 0], [1, 16]), pl.load(x, [0, 16], [1, 16])
    if MODE in ("get-chunks", "tile-get"):
        pld.system.notify(sig, peer=(me + nr - 1) % nr, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        if MODE == "tile-get":
            pld.tile.get(dst, (me + 1) % nr, src, stage, None, [0, 0], [0, 0], [ROWS, COLS])
        else:
            pld.tensor.get(dst, (me + 1) % nr, src, [0, 0], [0, 0], [ROWS, COLS], chunk_rows=rows, chunk_cols=cols)
    else:
        if MODE.startswith("tile-put"):
            pld.tile.put(dst, (me + 1) % nr, src, stage, stage2 if pipeline else None)
        else:
            pld.tensor.put(dst, (me + 1) % nr, src, chunk_rows=rows, chunk_cols=cols, pipeline=pipeline)
        pld.system.notify(sig, peer=(me + 1) % nr, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    return pl.store(pl.load(dst, [0, 0], [ROWS, COLS]), [0, 0], y)


@pl.jit
def move_on_device(x, y, src, dst, sig):
    return move(x, y, src, dst, sig)


@pl.jit.host
def move_host(x: pl.Tensor[[NR, ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([ROWS, COLS], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([ROWS, COLS], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        views = [pld.window(b, [ROWS, COLS], dtype=pl.FP32) for b in (src_buf, dst_buf)]
        move_on_device(x[r], y[r], *views, pld.window(sig_buf, [1, 1], dtype=pl.INT32), device=r)


@pl.jit.incore
def reduce_all(
    x: pl.Tensor[[1, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[3, COLS], pl.FP32]],
    data: pld.DistributedTensor[[1, COLS], pl.FP32],
    mesh_sig: pld.DistributedTensor[[P, 1], pl.INT32],
    ring_sig: pld.DistributedTensor[[2 * (P - 1), P], pl.INT32],
):
    for row, op in enumerate((pld.ReduceOp.Max, pld.ReduceOp.Min, pld.ReduceOp.Prod)):
        for mode, sig in (("mesh", mesh_sig), ("ring", ring_sig)):
            data = pl.store(pl.load(x, [0, 0], [1, COLS]), [0, 0], data)
            # the builtins leave their signals at zero: the same ones serve again
            data = pld.tensor.allreduce(data, sig, op=op, mode=mode)
            y = pl.store(pl.load(data, [0, 0], [1, COLS]), [row, 0], y)
            pld.tensor.barrier(mesh_sig)  # everyone has read data before it is staged again
    return y


@pl.jit
def reduce_on_device(x, y, data, mesh_sig, ring_sig):
    return reduce_all(x, y, data, mesh_sig, ring_sig)


@pl.jit.host
def reduce_host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, 3, COLS], pl.FP32]]):
    data = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    mesh_sig = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    ring_sig = pld.alloc_window_buffer([2 * (P - 1), P], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        reduce_on_device(
            x[r], y[r], pld.window(data, [1, COLS], dtype=pl.FP32),
            pld.window(mesh_sig, [P, 1], dtype=pl.INT32),
            pld.window(ring_sig, [2 * (P - 1), P], dtype=pl.INT32), device=r,
        )


@pl.jit.incore
def scatter_all(
    x: pl.Tensor[[P, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[3, COLS], pl.FP32]],
    data: pld.DistributedTensor[[P, COLS], pl.FP32],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(data))
    for row, op in enumerate((pld.ReduceOp.Max, pld.ReduceOp.Min, pld.ReduceOp.Prod)):
        data = pl.store(pl.load(x, [0, 0], [P, COLS]), [0, 0], data)
        data = pld.tensor.reduce_scatter(data, sig, op=op)
        y = pl.store(pl.load(data, [me, 0], [1, COLS]), [row, 0], y)
        pld.tensor.barrier(sig)  # everyone has read data before it is staged again
    return y


@pl.jit
def scatter_on_device(x, y, data, sig):
    return scatter_all(x, y, data, sig)


@pl.jit.host
def scatter_host(x: pl.Tensor[[P, P, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, 3, COLS], pl.FP32]]):
    data = pld.alloc_window_buffer([P, COLS], dtype=pl.FP32)
    sig = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        scatter_on_device(x[r], y[r], pld.window(data, [P, COLS], dtype=pl.FP32),
                          pld.window(sig, [P, 1], dtype=pl.INT32), device=r)


MAXR = 4  # all_to_all_v: MAX_RECV rows a block


@pl.jit.incore
def a2av(
    x: pl.Tensor[[P * MAXR, COLS], pl.INT8],
    counts: pl.Tensor[[P, 1], pl.INT32],
    y: pl.Out[pl.Tensor[[P * MAXR, COLS], pl.INT8]],
    got: pl.Out[pl.Tensor[[P, 1], pl.INT32]],
    target: pld.DistributedTensor[[P * MAXR, COLS], pl.INT8],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
    recv: pld.DistributedTensor[[P, 1], pl.INT32],
):
    target = pld.tensor.all_to_all_v(x, target, sig, counts, recv)
    y = pl.store(pl.load(target, [0, 0], [P * MAXR, COLS]), [0, 0], y)
    for d in pl.range(P):
        pl.write(got, [d, 0], pl.read(recv, [d, 0]))
    return y


@pl.jit
def a2av_on_device(x, counts, y, got, target, sig, recv):
    return a2av(x, counts, y, got, target, sig, recv)


@pl.jit.host
def a2av_host(x: pl.Tensor[[P, P * MAXR, COLS], pl.INT8], counts: pl.Tensor[[P, P, 1], pl.INT32],
              y: pl.Out[pl.Tensor[[P, P * MAXR, COLS], pl.INT8]], got: pl.Out[pl.Tensor[[P, P, 1], pl.INT32]]):
    t = pld.alloc_window_buffer([P * MAXR, COLS], dtype=pl.INT8)
    s = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    r = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for k in pl.range(pld.world_size()):
        a2av_on_device(x[k], counts[k], y[k], got[k], pld.window(t, [P * MAXR, COLS], dtype=pl.INT8),
                       pld.window(s, [P, 1], dtype=pl.INT32), pld.window(r, [P, 1], dtype=pl.INT32), device=k)


@pl.jit.incore
def double(x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]):
    t = pl.load(x, [0, 0], [1, COLS])
    if MODE == "unsupported":
        t = pl.gemv(t, t)
    return pl.store(pl.add(t, t), [0, 0], y)


@pl.jit
def double_on_device(x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]):
    return double(x, y)


@pl.jit.host
def double_host(x: pl.Tensor[[NR, 1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, COLS], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        double_on_device(x[r], y[r], device=r)


RAGGED = 40


@pl.jit.incore
def ragged(x: pl.Tensor[[1, RAGGED], pl.FP32], y: pl.Out[pl.Tensor[[1, RAGGED], pl.FP32]], s: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
    acc = pl.mul(pl.load(x, [0, 0], [1, 16]), 0)
    for col, (y_iter, acc_iter) in pl.range(0, RAGGED, 16, init_values=(y, acc)):
        valid = pl.min(16, RAGGED - col)
        t = pl.load(x, [0, col], [1, 16], valid_shape=[1, valid])
        y_iter = pl.store(pl.add(t, t), [0, col], y_iter)
        if MODE == "yield-count":
            y_out, acc_out = pl.yield_(y_iter)
        else:
            y_out, acc_out = pl.yield_(y_iter, pl.add(acc_iter, t))
    tail = pl.load(x, [0, 32], [1, 16], clamp=True)  # 8 real elements, 8 zeros
    pl.store(pl.add(acc_out, tail), [0, 0], s)
    return y_out


@pl.jit
def ragged_on_device(x: pl.Tensor[[1, RAGGED], pl.FP32], y: pl.Out[pl.Tensor[[1, RAGGED], pl.FP32]], s: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
    return ragged(x, y, s)


M = pl.dynamic("M")


@pl.jit.incore
def composite(x: pl.Tensor[[M * 2, COLS], pl.FP32], y: pl.Out[pl.Tensor[[M * 2, COLS], pl.FP32]]):
    t = pl.load(x, [0, 0], [M * 2, COLS])  # M is bound by the arguments: 2
    return pl.store(pl.add(pl.sub(pl.add(t, t), t), t), [0, 0], y)  # (2x - x) + x, exact


def config() -> RunConfig:
    return RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P))))


if MODE in CHUNKS or MODE == "pipeline-alone":
    x = torch.randn(P, ROWS, COLS)
    y = torch.zeros(P, ROWS, COLS)
    move_host.compile(x, y, config=config())(x, y)
    step = 1 if MODE in ("get-chunks", "tile-get") else -1
    assert torch.equal(y, torch.stack([x[(r + step) % P] for r in range(P)]))
elif MODE == "reduce-ops":
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 3, COLS)
    reduce_host.compile(x, y, config=config())(x, y)
    want = torch.cat([x.max(dim=0).values, x.min(dim=0).values, x.prod(dim=0)])
    for r in range(P):
        assert torch.allclose(y[r], want, rtol=1e-5, atol=1e-5), (r, y[r], want)
elif MODE == "reduce-scatter-ops":
    x = torch.randn(P, P, COLS)
    y = torch.zeros(P, 3, COLS)
    scatter_host.compile(x, y, config=config())(x, y)
    for r in range(P):  # rank r holds row r reduced over the ranks
        rows = x[:, r]
        want = torch.stack([rows.max(dim=0).values, rows.min(dim=0).values, rows.prod(dim=0)])
        assert torch.allclose(y[r], want, rtol=1e-5, atol=1e-5), (r, y[r], want)
elif MODE == "a2av-int8":
    x = torch.randint(-100, 100, (P, P * MAXR, COLS), dtype=torch.int8)
    counts = torch.tensor([[[-3], [MAXR + 5]], [[2], [0]]], dtype=torch.int32)  # clamped to 0 .. MAXR
    y = torch.zeros(P, P * MAXR, COLS, dtype=torch.int8)
    got = torch.zeros(P, P, 1, dtype=torch.int32)
    a2av_host.compile(x, counts, y, got, config=config())(x, counts, y, got)
    for d in range(P):
        for src in range(P):
            n = int(got[d, src, 0])
            assert n == max(0, min(MAXR, int(counts[src, d, 0]))), (d, src, n)
            block = y[d, src * MAXR:(src + 1) * MAXR]
            assert torch.equal(block[:n], x[src, d * MAXR:d * MAXR + n]), (d, src)
            assert not block[n:].any(), ("unsent rows read 0", d, src)
elif MODE == "dynamic-mismatch":
    x = torch.randn(P, 1, COLS)
    double_host.compile(x, torch.zeros(P + 1, 1, COLS), config=config())
elif MODE in ("unsupported", "twice"):
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 1, COLS)
    compiled = double_host.compile(x, y, config=config())
    compiled(x, y)
    if MODE == "twice":  # each run writes its results into the caller's tensors
        assert torch.equal(y, 2 * x)
        for _ in range(2):
            y.zero_()
            x.add_(1)
            compiled(x, y)
            assert torch.equal(y, 2 * x), "a later run's results did not reach the caller"
elif MODE == "direct":
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 1, COLS)
    double_host(x, y, config=config())  # compile and run in one call, as upstream allows
    assert torch.equal(y, 2 * x)
elif MODE == "kernel-alone":
    x = torch.randn(1, COLS)
    y = torch.zeros(1, COLS)
    double(x, y)  # one device by default: DistributedConfig() is device 0
    assert torch.equal(y, 2 * x)
elif MODE in ("ragged", "yield-count"):
    x = torch.arange(1.0, RAGGED + 1).reshape(1, RAGGED)
    y = torch.zeros(1, RAGGED)
    s = torch.zeros(1, 16)
    ragged_on_device(x, y, s)  # one device
    assert torch.equal(y, 2 * x), y
    # columns 0..7 summed over the three tiles, plus the clamped tail's x[32 + k] again;
    # a sum is valid where both operands are, so past the last tile's 8 columns: zeros
    want = torch.tensor([x[0, k] + x[0, 16 + k] + 2 * x[0, 32 + k] if k < 8 else 0 for k in range(16)]).reshape(1, 16)
    assert torch.equal(s, want), (s, want)
elif MODE in ("composite", "composite-mismatch"):
    rows = 4 if MODE == "composite" else 3
    x = torch.randn(rows, COLS)
    y = torch.zeros(rows, COLS)
    composite(x, y)
    assert torch.equal(y, 2 * x)
elif MODE == "seed":
    print(f"checksum {float(torch.randn(1000).sum()):.6f}")
else:
    raise SystemExit(f"unknown mode {MODE}")
print("OK")
