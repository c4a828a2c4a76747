"""Worker-resident tensors (upstream's DistributedWorker API): a weight
uploaded once and reused across submits, run() and register() handles,
two programs sharing a resident tensor, a stacked weight placed by
worker_ids, and close() reclaiming what is still owned.

    pldsim-py resident.py [MODE]

MODE: ok (default), after-close (register after close), freed (a freed
tensor passed to a run), bad-init (an init of another shape), bad-stack
(worker_ids not a permutation), ambiguous (calling a two-program worker),
not-prepared (run() of a program the worker does not hold),
free-plain-as-stacked and copy-plain-as-stacked (a stacked call on a
tensor from alloc_tensor), bad-card (alloc_tensor on a card the worker
does not have), wrong-card (free_tensor naming another card than the
tensor's).

The ok run also builds a stack as pypto-lib's golden runner does for a
resident output: one alloc_tensor shard per card (worker_id=), then
StackedDeviceTensor(shards, full_shape, worker_ids); the program writes it,
each shard sees its row, copy_from reads a shard back by its address, and
free_stacked_tensor frees the shards."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import DistributedWorker, StackedDeviceTensor

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
N = 64


@pl.program
class Add:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[1, N], pl.FP32], b: pl.Tensor[[1, N], pl.FP32], f: pl.Out[pl.Tensor[[1, N], pl.FP32]]) -> pl.Tensor[[1, N], pl.FP32]:
        return pl.store(pl.add(pl.load(a, [0, 0], [1, N]), pl.load(b, [0, 0], [1, N])), [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pl.Tensor[[1, N], pl.FP32], b: pl.Tensor[[1, N], pl.FP32], f: pl.Out[pl.Tensor[[1, N], pl.FP32]]) -> pl.Tensor[[1, N], pl.FP32]:
        return self.add(a, b, f)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, a: pl.Tensor[[2, 1, N], pl.FP32], b: pl.Tensor[[2, 1, N], pl.FP32], f: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            self.chip(a[r], b[r], f[r], device=r)


@pl.program
class Double:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, b: pl.Tensor[[2, 1, N], pl.FP32], f: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]) -> pl.Tensor[[2, 1, N], pl.FP32]:
        for r in pl.range(2):
            t = pl.load(b, [r, 0, 0], [1, 1, N])
            f = pl.store(pl.add(t, t), [r, 0, 0], f)
        return f

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, b: pl.Tensor[[2, 1, N], pl.FP32], f: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]) -> pl.Tensor[[2, 1, N], pl.FP32]:
        return self.double(b, f)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, b: pl.Tensor[[2, 1, N], pl.FP32], f: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
        self.chip(b, f, device=0)


dc = DistributedConfig(device_ids=[0, 1])
add = ir.compile(Add, platform="a2a3sim", distributed_config=dc)
double = ir.compile(Double, platform="a2a3sim", distributed_config=dc)
a = torch.zeros(2, 1, N).share_memory_()
f = torch.zeros(2, 1, N).share_memory_()
source = torch.stack([torch.full((1, N), 10.0 + r) for r in range(2)])

if MODE == "ambiguous":
    DistributedWorker([add, double])(a, source, f)  # FAULT ambiguous
rt = add.prepare(extra_compiled=[double])
if MODE == "bad-init":
    rt.alloc_tensor((2, 1, N), torch.float32, init=torch.zeros(3))  # FAULT bad-init
if MODE == "bad-stack":
    rt.alloc_stacked_tensor(source, worker_ids=[0, 0])  # FAULT bad-stack
if MODE == "not-prepared":
    other = ir.compile(Add, platform="a2a3sim", distributed_config=dc)
    rt.run(other, a, source, f)  # FAULT not-prepared
weight = rt.alloc_stacked_tensor(source, worker_ids=[1, 0])
assert isinstance(weight, StackedDeviceTensor)
source.zero_()  # the worker holds its own copy
for k, av in enumerate((2.0, 7.0, 11.0)):
    a.fill_(av)
    f.zero_()
    if k == 0:
        rt.submit(add, a, weight, f).result()
    elif k == 1:
        rt.run(add, a, weight, f)
    else:
        h = rt.register(add)
        assert h.compiled is add
        h(a, weight, f)
    for r in range(2):
        assert torch.equal(f[r], torch.full((1, N), av + 10.0 + r)), (k, r, f[r, 0, :2])
doubled = rt.alloc_tensor((2, 1, N), torch.float32)
rt.run(double, weight, doubled)  # the second program reads the same resident weight
for r in range(2):
    assert torch.equal(doubled.tensor("check")[r], torch.full((1, N), 2 * (10.0 + r))), doubled.tensor("check")[r, 0, :2]
back = torch.zeros(2, 1, N)
rt.copy_stacked_from(weight, back)
assert torch.equal(back[1], torch.full((1, N), 11.0)), back[1, 0, :2]
# a stack of per-card shards, as the golden runner allocates a resident output
shards = [rt.alloc_tensor((1, N), torch.float32, init=None, worker_id=w) for w in (0, 1)]
stack = StackedDeviceTensor(shards, (2, 1, N), (0, 1))
rt.run(add, a, weight, stack)  # the last a was 11.0
for r in range(2):
    want = torch.full((1, N), 11.0 + 10.0 + r)
    assert torch.equal(shards[r].tensor("check"), want), (r, shards[r].tensor("check")[0, :2])
    got = torch.zeros(1, N)
    rt.copy_from(got.data_ptr(), shards[r].data_ptr, shards[r].nbytes, worker_id=r)
    assert torch.equal(got, want), (r, got[0, :2])
if MODE == "bad-card":
    rt.alloc_tensor((1, N), torch.float32, worker_id=2)  # FAULT bad-card
if MODE == "wrong-card":
    rt.free_tensor(shards[1], worker_id=0)  # FAULT wrong-card
rt.free_stacked_tensor(stack)
assert shards[0].freed and shards[1].freed
if MODE == "free-plain-as-stacked":
    rt.free_stacked_tensor(doubled)  # FAULT free-plain-as-stacked
if MODE == "copy-plain-as-stacked":
    rt.copy_stacked_from(doubled, back)  # FAULT copy-plain-as-stacked
if MODE == "freed":
    rt.free_stacked_tensor(weight)
    rt.run(add, a, weight, f)  # FAULT freed
assert len(rt._owned_tensors) == 2
rt.close()
assert len(rt._owned_tensors) == 0 and h.closed and weight.freed
if MODE == "after-close":
    rt.register(add)  # FAULT after-close
print("OK")
