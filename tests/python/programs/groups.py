"""Communication sub-groups: a host that dispatches to pl.range(1, 4) of 4
devices makes its buffers a comm domain of devices 1, 2, 3.  Inside it,
pld.rank/pld.nranks are the group's, peers are group ranks, and an
allreduce sums the three members only; device 0 keeps its zeros.

    pldsim-py groups.py [MODE] [-d DEVICES]

MODE: ok (default); too-big (pl.range(5) on 4 devices: a group larger
than the world); peer (a notify to group rank 3 of a 3-rank group)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
SIZE = 64
FIRST, END = 1, 5 if MODE == "too-big" else 4
N = 3  # ranks of the group in the ok case


@pl.program
class GroupAllreduce:
    @pl.function(type=pl.FunctionType.InCore)
    def step(
        self,
        x: pl.Tensor[[1, SIZE], pl.FP32],
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        who: pl.Out[pl.Tensor[[1, 2], pl.INT32]],
        data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[N, 1], pl.INT32]],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        pl.write(who, [0, 0], pld.rank(ctx))
        pl.write(who, [0, 1], pld.nranks(ctx))
        if MODE == "peer":
            pld.system.notify(sig, peer=3, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)  # FAULT peer
        pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
        data = pld.tensor.allreduce(data, sig, op=pld.ReduceOp.Sum)
        return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, SIZE], pl.FP32],
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        who: pl.Out[pl.Tensor[[1, 2], pl.INT32]],
        data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[N, 1], pl.INT32]],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        return self.step(x, y, who, data, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        xs: pl.Tensor[[4, 1, SIZE], pl.FP32],
        ys: pl.Out[pl.Tensor[[4, 1, SIZE], pl.FP32]],
        whos: pl.Out[pl.Tensor[[4, 1, 2], pl.INT32]],
        world: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
    ) -> pl.Tensor[[4, 1, SIZE], pl.FP32]:
        data_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())  # FAULT too-big
        sig_buf = pld.alloc_window_buffer([N, 1], dtype=pl.INT32)
        world[0, 0] = pld.world_size()
        for r in pl.range(FIRST, END):
            data = pld.window(data_buf, [SIZE], dtype=pl.FP32)  # [SIZE] for [1, SIZE], as upstream allows
            sig = pld.window(sig_buf, [N, 1], dtype=pl.INT32)
            self.chip(xs[r], ys[r], whos[r], data, sig, device=r)
        return ys


compiled = ir.compile(GroupAllreduce, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1, 2, 3]))
xs = torch.stack([torch.full((1, SIZE), 10.0 ** r) for r in range(4)])
ys = torch.zeros(4, 1, SIZE)
whos = torch.full((4, 1, 2), -7, dtype=torch.int32)
world = torch.zeros(1, 1, dtype=torch.int32)
compiled(xs, ys, whos, world)
assert world[0, 0] == 4, f"pld.world_size() is the world's: {world}"
assert torch.equal(ys[0], torch.zeros(1, SIZE)), f"device 0 is outside the group: {ys[0]}"
for r in range(1, 4):
    assert torch.equal(ys[r], torch.full((1, SIZE), 1110.0)), f"rank {r}: {ys[r]}"
    assert whos[r].flatten().tolist() == [r - 1, 3], f"rank {r} saw rank, nranks = {whos[r].flatten().tolist()}"
assert whos[0].flatten().tolist() == [-7, -7]
print("OK")
