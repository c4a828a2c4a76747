"""A program built by a factory, with string annotations (from __future__
import annotations) that name the factory's locals: names no closure
captures, as upstream's pypto-lib examples write them (l3_allgather_gemm).

    pldsim-py factory.py"""

from __future__ import annotations

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

COLS = 64


def make_program(world: int):
    ROWS = world * 2  # used only in annotations: not a closure variable

    @pl.program
    class Factory:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
            return pl.store(pl.add(pl.load(out, [0, 0], [ROWS, COLS]), 1.0), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
            return self.fill(out)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, out: pl.Out[pl.Tensor[[world, ROWS, COLS], pl.FP32]]) -> pl.Tensor[[world, ROWS, COLS], pl.FP32]:
            for r in pl.range(pld.world_size()):
                self.chip(out[r], device=r)
            return out

    return Factory


out = torch.zeros(2, 4, COLS)
ir.compile(make_program(2), platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))(out)
assert torch.equal(out, torch.ones(2, 4, COLS)), out
print("OK")
