"""prepare(persistent=True): windows kept from one call to the next.

Each rank adds its tag into its peer's signal cell, waits for its own, and
adds its input into a data window; both are read back.  With the windows
kept (reset_persistent_windows=False), call k sees k times the first
call's values; with the reset (the default when persistent), every call
sees fresh windows; either way the comm domain is allocated once
(worker._w._next_alloc_id, upstream's counter).  Without persistent, every
call allocates it again.

    pldsim-py persistent.py [MODE]

MODE: keep (default), reset, plain (not persistent), bad-reset
(reset_persistent_windows=True without persistent=True: upstream's
ValueError), stale (kept windows, but every call waits for the first
call's credit, which the kept cell already holds: the read of the cell
races the peer's new notify, and the race detector says so)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

MODE = sys.argv[1] if len(sys.argv) > 1 else "keep"
SIZE = 64
CALLS = 3


@pl.program
class Accumulate:
    @pl.function(type=pl.FunctionType.InCore)
    def step(
        self,
        x: pl.Tensor[[1, SIZE], pl.FP32],
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        got: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
        acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        peer: pl.Scalar[pl.INT32],
        tag: pl.Scalar[pl.INT32],
        expected: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        pld.system.notify(sig, peer=peer, offsets=[0, 0], value=tag, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=expected, cmp=pld.WaitCmp.Ge)
        pl.write(got, [0, 0], pl.read(sig, [0, 0]))
        a = pl.add(pl.load(acc, [0, 0], [1, SIZE]), pl.load(x, [0, 0], [1, SIZE]))
        pl.store(a, [0, 0], acc)
        return pl.store(a, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, SIZE], pl.FP32],
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        got: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
        acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        peer: pl.Scalar[pl.INT32],
        tag: pl.Scalar[pl.INT32],
        expected: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        return self.step(x, y, got, acc, sig, peer, tag, expected)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        xs: pl.Tensor[[2, 1, SIZE], pl.FP32],
        ys: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
        gots: pl.Out[pl.Tensor[[2, 1, 1], pl.INT32]],
        rounds: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[2, 1, SIZE], pl.FP32]:
        acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)  # a cache line of its own
        for r in pl.range(pld.world_size()):
            acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
            sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
            # the peer's tag (2 - r) times the calls whose credits the cell holds
            self.chip(xs[r], ys[r], gots[r], acc, sig, 1 - r, r + 1, rounds * (2 - r), device=r)
        return ys


compiled = ir.compile(Accumulate, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
xs = torch.stack([torch.full((1, SIZE), 1.0), torch.full((1, SIZE), 10.0)]).share_memory_()
ys = torch.zeros(2, 1, SIZE).share_memory_()
gots = torch.zeros(2, 1, 1, dtype=torch.int32).share_memory_()
if MODE == "bad-reset":
    compiled.prepare(reset_persistent_windows=True)
kept = {"persistent": True, "reset_persistent_windows": False}
options = {"plain": {}, "reset": {"persistent": True}, "keep": kept, "stale": kept}[MODE]
with compiled.prepare(**options) as worker:
    before = worker._w._next_alloc_id
    for k in range(1, CALLS + 1):
        times = k if MODE in ("keep", "stale") else 1  # the calls whose additions the windows hold
        worker(xs, ys, gots, 1 if MODE == "stale" else times)
        assert torch.equal(ys, times * xs), (k, ys[:, 0, 0].tolist())
        assert gots.flatten().tolist() == [2 * times, times], (k, gots.flatten().tolist())
    allocated = worker._w._next_alloc_id - before
    assert allocated == (CALLS if MODE == "plain" else 1), f"{allocated} comm-domain allocations"
print("OK")
