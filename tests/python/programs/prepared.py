"""prepare(): a handle that runs the compiled program at every call, and a
one-device program whose host calls its per-device function without
device= (the only device) and gets back the tensors it writes.

    pldsim-py prepared.py [MODE]

MODE: ok (default), closed (a call after the handle is closed),
keep-windows (reset_persistent_windows=False),
two-devices (no device= with two devices)."""

import sys

import pypto.language as pl
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
COLS = 64


@pl.program
class Doubler:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]) -> pl.Tensor[[1, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [1, COLS])
        return pl.store(pl.add(t, t), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]) -> pl.Tensor[[1, COLS], pl.FP32]:
        return self.double(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]) -> pl.Tensor[[1, COLS], pl.FP32]:
        out = self.chip(x, y)  # no device=: the only device
        assert out is y, "the host gets back the tensor the function writes"
        return out


devices = [0, 1] if MODE == "two-devices" else [0]
compiled = ir.compile(Doubler, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=devices))
x, y = torch.zeros(1, COLS).share_memory_(), torch.zeros(1, COLS).share_memory_()
with compiled.prepare(persistent=True, reset_persistent_windows=MODE != "keep-windows") as worker:
    for k in range(3):
        x.fill_(k + 1.5)
        worker(x, y)
        assert torch.equal(y, 2 * x), (k, y)
if MODE == "closed":
    worker(x, y)
print("OK")
