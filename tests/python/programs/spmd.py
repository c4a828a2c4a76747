"""SPMD launches on two devices: pl.spmd_submit(..., core_num=N) with
pl.tile.get_block_idx / get_block_num, in a manual scope (with deps=) and
outside one, pl.submit, pl.pipeline and pl.unroll, and each misuse (a
line marked # FAULT MODE).

    pldsim-py spmd.py MODE [N]

MODE: blocks (every block writes its index and count), deps (a consumer
after every block of its producer), loops (pl.pipeline, pl.unroll),
timing N (N blocks of the same vector work, for the test that they run at
once), or a FAULT mode."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 4
BLOCKS = 4
COLS = 8


@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.AIV)
    def where_am_i(self, out: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.INT32]], base: pl.Scalar[pl.INT32]):
        i = pl.tile.get_block_idx()
        pl.write(out, [i, 0], base + i)
        pl.write(out, [i, 1], pl.tile.get_block_num())
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, data: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]]):
        i = pl.get_block_idx()
        row = pl.load(data, [i, 0], [1, COLS])
        for _ in pl.range(20):  # take a while, so that a consumer that did not wait would see zeros
            row = pl.add(row, 1.0)
        return pl.store(row, [i, 0], data)

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, data: pl.Tensor[[BLOCKS, COLS], pl.FP32], total: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]):
        acc = pl.load(data, [0, 0], [1, COLS])
        for r in pl.range(1, BLOCKS):
            acc = pl.add(acc, pl.load(data, [r, 0], [1, COLS]))
        return pl.store(acc, [0, 0], total)

    @pl.function(type=pl.FunctionType.InCore)
    def work(self, data: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]]):
        t = pl.load(data, [0, 0], [1, COLS])
        for _ in pl.range(200):
            t = pl.mul(t, 1.0)
        return data

    @pl.function(type=pl.FunctionType.InCore)
    def loops(self, out: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.INT32]]):
        s = pl.const(0, pl.INT32)
        for k in pl.pipeline(10, stage=2):
            s = s + k
        for k in pl.unroll(0, 6, 2):
            s = s + 100 * k
        pl.write(out, [0, 0], s)
        if MODE == "pipeline-stage":
            for k in pl.pipeline(4, stage=0):  # FAULT pipeline-stage
                pass
        if MODE == "pipeline-no-stage":
            for k in pl.pipeline(4):  # FAULT pipeline-no-stage
                pass
        if MODE == "unroll-carried":
            for k, (x,) in pl.unroll(4, init_values=(s,)):  # FAULT unroll-carried
                pass
        if MODE == "block-in-device":
            pass
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        out: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.INT32]],
        data: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]],
        total: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
        sig: pld.DistributedTensor[[2, 1], pl.INT32],
        base: pl.Scalar[pl.INT32],
    ):
        if MODE == "blocks":
            with pl.manual_scope():
                got, tid = pl.spmd_submit(self.where_am_i, out, base, core_num=BLOCKS)
            assert got is out, "the result is the tensor the kernel writes"
            assert tid.blocks, "one task id for every block"
            got, _ = pl.spmd_submit(self.where_am_i, out, base, core_num=2)  # outside a scope: runs now
        elif MODE == "deps":
            with pl.manual_scope():
                _, made = pl.spmd_submit(self.produce, data, core_num=BLOCKS)
                pl.submit(self.consume, data, total, deps=[made])
        elif MODE == "loops":
            self.loops(out)
        elif MODE == "timing":
            with pl.manual_scope():
                pl.spmd_submit(self.work, data, core_num=N)
        elif MODE == "no-core-num":
            pl.spmd_submit(self.where_am_i, out, base)  # FAULT no-core-num
        elif MODE == "zero-core-num":
            pl.spmd_submit(self.where_am_i, out, base, core_num=0)  # FAULT zero-core-num
        elif MODE == "huge-core-num":
            pl.spmd_submit(self.where_am_i, out, base, core_num=10**7)  # FAULT huge-core-num
        elif MODE == "huge-spmd":
            with pl.spmd(10**7):  # FAULT huge-spmd
                pass
        elif MODE == "huge-array":
            pl.array.create(10**9, pl.INT32)  # FAULT huge-array
        elif MODE == "not-a-kernel":
            pl.spmd_submit(self.where_am_i(out, base), core_num=2)  # FAULT not-a-kernel
        elif MODE == "bad-dep":
            pl.submit(self.consume, data, total, deps=[3])  # FAULT bad-dep
        elif MODE == "predicate":
            pl.spmd_submit(self.where_am_i, out, base, core_num=2, predicate=True)  # FAULT predicate
        elif MODE == "block-in-device":
            pl.tile.get_block_idx()  # FAULT block-in-device
        elif MODE == "bad-arg":
            pl.spmd_submit(self.where_am_i, data, base, core_num=2)  # FAULT bad-arg
        else:
            self.loops(out)
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        out: pl.InOut[pl.Tensor[[2, BLOCKS, COLS], pl.INT32]],
        data: pl.InOut[pl.Tensor[[2, BLOCKS, COLS], pl.FP32]],
        total: pl.Out[pl.Tensor[[2, 1, COLS], pl.FP32]],
    ):
        sig_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            sig = pld.window(sig_buf, [2, 1], dtype=pl.INT32)
            self.chip(out[r], data[r], total[r], sig, 10 * (r + 1), device=r)
        return out


compiled = ir.compile(Blocks, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
out = torch.zeros(2, BLOCKS, COLS, dtype=torch.int32)
data = torch.zeros(2, BLOCKS, COLS)
total = torch.zeros(2, 1, COLS)
compiled(out, data, total)
if MODE == "blocks":
    for r in range(2):
        base = 10 * (r + 1)
        # blocks 0 and 1 ran twice (the second launch had 2 blocks), 2 and 3 once
        assert out[r, :, 0].tolist() == [base, base + 1, base + 2, base + 3], out[r]
        assert out[r, :, 1].tolist() == [2, 2, BLOCKS, BLOCKS], out[r]
elif MODE == "deps":
    assert torch.equal(total, torch.full((2, 1, COLS), 20.0 * BLOCKS)), total
elif MODE == "loops":
    assert out[:, 0, 0].tolist() == [45 + 600] * 2, out[:, 0, 0]
print("OK")
