"""A toy MoE layer laid out as pypto-lib's models/*/moe.py, for
tools/moe-study.py's test (tests/python/test_moe_study.py):

    pldsim-py --shape-only moe.py -p a2a3sim --ep N -d LIST [--balanced-routing]

Each of EP ranks routes ROWS tokens of COLS FP32 to experts on other
ranks (ids from torch.randint, or round robin with --balanced-routing),
pushes each token there (dispatch), and after a barrier every rank sends
what it received back to its source (combine).  The tokens are rows of
a large normal draw, so --shape-only makes none of them."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

_EP_CHOICES = (2, 4)
ARGS = sys.argv[1:]
EP = int(ARGS[ARGS.index("--ep") + 1]) if "--ep" in ARGS else 2
DEVICES = [int(d) for d in ARGS[ARGS.index("-d") + 1].split(",")] if "-d" in ARGS else list(range(EP))
BALANCED = "--balanced-routing" in ARGS
assert EP in _EP_CHOICES and len(DEVICES) == EP, (EP, DEVICES)
ROWS, COLS = 8, 2048


@pl.jit.incore
def dispatch(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[1, ROWS], pl.INT32],
    inbox: pld.DistributedTensor[[EP * ROWS, COLS], pl.FP32],
    counts: pld.DistributedTensor[[EP, 8], pl.INT32],
    signal: pld.DistributedTensor[[EP, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(inbox)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    sent = [0] * nr
    for r in pl.range(ROWS):
        d = pl.cast(pl.read(ids, [0, r]), pl.INDEX)
        pld.tile.remote_store(pl.load(x, [r, 0], [1, COLS]), inbox, peer=d, offsets=[me * ROWS + sent[d], 0])
        sent[d] += 1
    for d in pl.range(nr):
        pld.tile.remote_store(pl.tile.full([1, 8], dtype=pl.INT32, value=sent[d]), counts, peer=d, offsets=[me, 0])
    signal = pld.tensor.barrier(signal)


@pl.jit.incore
def combine(
    out: pl.InOut[pl.Tensor[[EP * ROWS, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[EP * ROWS, COLS], pl.FP32],
    counts: pld.DistributedTensor[[EP, 8], pl.INT32],
    back: pld.DistributedTensor[[EP * ROWS, COLS], pl.FP32],
    signal: pld.DistributedTensor[[EP, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(inbox)
    me, nr = pld.rank(ctx), pld.nranks(ctx)
    for s in pl.range(nr):
        n = pl.cast(pl.read(counts, [s, 0]), pl.INDEX)
        for i in pl.range(n):
            row = pl.mul(pl.load(inbox, [s * ROWS + i, 0], [1, COLS]), 2.0)
            pld.tile.remote_store(row, back, peer=s, offsets=[me * ROWS + i, 0])
    signal = pld.tensor.barrier(signal)
    for s in pl.range(nr):
        pl.store(pl.load(back, [s * ROWS, 0], [ROWS, COLS]), [s * ROWS, 0], out)


@pl.jit
def layer(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[1, ROWS], pl.INT32],
    out: pl.InOut[pl.Tensor[[EP * ROWS, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[EP * ROWS, COLS], pl.FP32],
    counts: pld.DistributedTensor[[EP, 8], pl.INT32],
    back: pld.DistributedTensor[[EP * ROWS, COLS], pl.FP32],
    signal: pld.DistributedTensor[[EP, 1], pl.INT32],
):
    dispatch(x, ids, inbox, counts, signal)
    return combine(out, inbox, counts, back, signal)


@pl.jit.host
def host(x: pl.Tensor[[EP, ROWS, COLS], pl.FP32], ids: pl.Tensor[[EP, 1, ROWS], pl.INT32],
         out: pl.InOut[pl.Tensor[[EP, EP * ROWS, COLS], pl.FP32]]):
    inbox = pld.alloc_window_buffer([EP * ROWS, COLS], dtype=pl.FP32)
    counts = pld.alloc_window_buffer([EP, 8], dtype=pl.INT32)
    back = pld.alloc_window_buffer([EP * ROWS, COLS], dtype=pl.FP32)
    signal = pld.alloc_window_buffer([EP, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        layer(x[r], ids[r], out[r], pld.window(inbox, [EP * ROWS, COLS], dtype=pl.FP32),
              pld.window(counts, [EP, 8], dtype=pl.INT32), pld.window(back, [EP * ROWS, COLS], dtype=pl.FP32),
              pld.window(signal, [EP, 1], dtype=pl.INT32), device=r)


if BALANCED:
    ids = torch.tensor([[[(r + 1 + i % (EP - 1)) % EP for i in range(ROWS)]] for r in range(EP)], dtype=torch.int32)
else:
    ids = torch.randint(0, EP, (EP, 1, ROWS), dtype=torch.int32)
weights = torch.randn(EP, 64, ROWS * COLS)  # a draw --shape-only never makes
x = weights[:, 0, :].reshape(EP, ROWS, COLS).contiguous()
out = torch.zeros(EP, EP * ROWS, COLS)
cfg = RunConfig(distributed_config=DistributedConfig(device_ids=DEVICES))
host.compile(x, ids, out, config=cfg)(x, ids, out)
print("OK")
