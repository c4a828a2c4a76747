"""The communication patterns of pypto-lib's DeepSeek-V4.1 layers, written
here as small programs of our own, one per mode, for the tests:

    pldsim-py v41_patterns.py MODE [ROUNDS]

self-put-load: each rank puts its row into its own window (a put whose
peer is itself, as the dispatch's self-peer lane), tells its peer, then
pulls the peer's row with pld.tile.remote_load and adds its own: every
rank ends with x0 + x1.
credit-rounds: one window and one credit signal serve ROUNDS (default 2)
rounds: each round, every rank puts a fresh row into its peer's window and
adds a credit to the peer's signal; the receiver waits for its credit,
reads the row, and retires the credit with a negative atomic add to its
own signal (the cell is back to 0 for the next round); then a barrier
round, so that no rank overwrites a window its peer has not read.
lanes-defer: a 3-D signal [P, LANES, 128] INT32, one 512-byte lane per
sender and lane (no two lanes share a cache line); each rank notifies
every lane of its row at the peer, then defers its waits on the peer's
row (pld.system.defer_wait) in a task whose successor reads the data.
dummy-fanin: pl.system.task_dummy as the V4.1 files use it: a source
dummy with deps=[] seeding a chain, a fan-in over a pl.array of task ids,
and one over a list of the array's elements; a last task reads what
every producer wrote.
Each mode prints OK when its results match torch."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
P, COLS, LANES = 2, 64, 4


# ---- self-put-load ------------------------------------------------------------------


@pl.jit
def self_put_then_load(
    x: pl.Tensor[[1, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[1, COLS], pl.FP32]],
    win: pld.DistributedTensor[[1, COLS], pl.FP32],
    sig: pld.DistributedTensor[[P, 16], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="self_put_load"):
        pld.tensor.put(dst=win, peer=me, src=x, dst_offsets=[0, 0], src_offsets=[0, 0], shape=[1, COLS])
        pld.system.notify(target=sig, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=sig, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        theirs = pld.tile.remote_load(win, peer=peer, offsets=[0, 0], shape=[1, COLS])
        mine = pl.load(win, [0, 0], [1, COLS])
        pl.store(pl.add(theirs, mine), [0, 0], y)
    return y


@pl.jit.host
def self_put_host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, 1, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    sig = pld.alloc_window_buffer([P, 16], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        self_put_then_load(
            x[rank], y[rank], pld.window(win, [1, COLS], dtype=pl.FP32), pld.window(sig, [P, 16], dtype=pl.INT32), rank, device=rank
        )


# ---- credit-rounds ------------------------------------------------------------------


@pl.jit
def credit_rounds(
    x: pl.Tensor[[ROUNDS, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[ROUNDS, COLS], pl.FP32]],
    win: pld.DistributedTensor[[1, COLS], pl.FP32],
    credit: pld.DistributedTensor[[1, 16], pl.INT32],
    done: pld.DistributedTensor[[1, 16], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rounds"):
        for r in pl.range(ROUNDS):
            pld.tensor.put(dst=win, peer=peer, src=x, dst_offsets=[0, 0], src_offsets=[r, 0], shape=[1, COLS])
            pld.system.notify(target=credit, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(signal=credit, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
            row = pl.load(win, [0, 0], [1, COLS])
            pl.store(row, [r, 0], y)
            # retire the credit: the cell is 0 again before the next round's
            pld.system.notify(target=credit, peer=me, offsets=[0, 0], value=-1, op=pld.NotifyOp.AtomicAdd)
            # the window is read: the peer may overwrite it
            pld.system.notify(target=done, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(signal=done, offsets=[0, 0], expected=r + 1, cmp=pld.WaitCmp.Ge)
    return y


@pl.jit.host
def credit_host(x: pl.Tensor[[P, ROUNDS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, ROUNDS, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    # a 64-byte row each: two signals in one cache line corrupt on hardware
    credit = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    done = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        credit_rounds(
            x[rank], y[rank], pld.window(win, [1, COLS], dtype=pl.FP32), pld.window(credit, [1, 16], dtype=pl.INT32),
            pld.window(done, [1, 16], dtype=pl.INT32), rank, device=rank,
        )


# ---- lanes-defer --------------------------------------------------------------------


@pl.jit
def lanes_on_device(
    x: pl.Tensor[[LANES, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[LANES, COLS], pl.FP32]],
    win: pld.DistributedTensor[[LANES, COLS], pl.FP32],
    lanes: pld.DistributedTensor[[P, LANES, 128], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="push") as push_tid:
        for lane in pl.range(LANES):
            pld.tensor.put(dst=win, peer=peer, src=x, dst_offsets=[lane, 0], src_offsets=[lane, 0], shape=[1, COLS])
            pld.system.notify(target=lanes, peer=peer, offsets=[me, lane, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="arrive", deps=[push_tid]) as wait_tid:
        for lane in pl.range(LANES):
            pld.system.defer_wait(signal=lanes, offsets=[peer, lane, 0], expected=1, cmp=pld.WaitCmp.Ge)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="read", deps=[wait_tid]):
        for lane in pl.range(LANES):
            pl.store(pl.load(win, [lane, 0], [1, COLS]), [lane, 0], y)
    return y


@pl.jit.host
def lanes_host(x: pl.Tensor[[P, LANES, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, LANES, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([LANES, COLS], dtype=pl.FP32)
    sig = pld.alloc_window_buffer([P, LANES, 128], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        lanes_on_device(
            x[rank], y[rank], pld.window(win, [LANES, COLS], dtype=pl.FP32), pld.window(sig, [P, LANES, 128], dtype=pl.INT32),
            rank, device=rank,
        )


# ---- dummy-fanin --------------------------------------------------------------------

PARTS = 3


@pl.jit
def fanin_on_device(x: pl.Tensor[[PARTS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[PARTS + 1, COLS], pl.FP32]]):
    with pl.manual_scope():
        seed = pl.system.task_dummy(deps=[])
        tids = pl.array.create(PARTS, pl.TASK_ID)
        for i in pl.range(PARTS):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="part", deps=[seed]) as tid:
                pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 3.0), [i, 0], y)
            tids[i] = tid
        all_parts = pl.system.task_dummy(deps=[tids])
        each_part = pl.system.task_dummy(deps=[tids[i] for i in range(PARTS)])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sum", deps=[all_parts, each_part]):
            acc = pl.load(y, [0, 0], [1, COLS])
            for i in pl.range(1, PARTS):
                acc = pl.add(acc, pl.load(y, [i, 0], [1, COLS]))
            pl.store(acc, [PARTS, 0], y)
    return y


config = RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P))))
if MODE == "self-put-load":
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 1, COLS)
    self_put_host.compile(x, y, config=config)(x, y)
    for r in range(P):
        assert torch.allclose(y[r], x[0] + x[1]), (r, y[r], x)
elif MODE in ("credit-rounds", "lanes-defer"):
    # each rank ends with its peer's rows
    host, rows = (credit_host, ROUNDS) if MODE == "credit-rounds" else (lanes_host, LANES)
    x = torch.randn(P, rows, COLS)
    y = torch.zeros(P, rows, COLS)
    host.compile(x, y, config=config)(x, y)
    for r in range(P):
        assert torch.equal(y[r], x[1 - r]), (r, y[r], x[1 - r])
elif MODE == "dummy-fanin":
    x = torch.randn(PARTS, COLS)
    y = torch.zeros(PARTS + 1, COLS)
    fanin_on_device.compile(x, y, config=RunConfig())(x, y)
    assert torch.allclose(y[:PARTS], 3 * x) and torch.allclose(y[PARTS], 3 * x.sum(0), atol=1e-5), y
else:
    raise SystemExit(f"unknown mode {MODE}")
print("OK")
