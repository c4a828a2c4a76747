"""A compiled program called directly with what its host orchestrator
cannot take: the error names this file's line, not <unknown>:0 (the
host's arguments are checked inside the run, where no frame of this file
is on the stack).

    pldsim-py after_close.py MODE

MODE: freed (a resident tensor the worker's close() freed), resident (a
live resident tensor, which only its worker passes), wrong-shape (a
torch tensor of another shape)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

MODE = sys.argv[1]
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


add = ir.compile(Add, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
a = torch.ones(2, 1, N).share_memory_()
f = torch.zeros(2, 1, N).share_memory_()
rt = add.prepare()
weight = rt.alloc_stacked_tensor(torch.ones(2, 1, N))
rt.run(add, a, weight, f)
if MODE == "resident":
    add(a, weight, f)  # FAULT resident
rt.close()
if MODE == "freed":
    add(a, weight, f)  # FAULT freed
if MODE == "wrong-shape":
    add(a, torch.zeros(3), f)  # FAULT wrong-shape
print("OK")
