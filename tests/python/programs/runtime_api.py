"""What tools built on upstream's runtime read of a compiled program:
its parameter metadata (compiled._get_metadata(), as pypto-lib's golden
runner orders its arguments by it) and pypto.runtime.benchmark, whose
device times are the simulated ones.

    pldsim-py runtime_api.py MODE

MODE: metadata, benchmark, bench-args (each bad argument of benchmark),
newest-imports (upstream's newest import path: DistributedConfig and
DistributedCompiledProgram from pypto.ir)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.backend import BackendType
from pypto.ir import ParamDirection
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig, benchmark

MODE = sys.argv[1]
COLS = 64
ROWS = pl.dynamic("ROWS")


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]], k: pl.Scalar[pl.FP32]) -> pl.Tensor[[1, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [1, COLS])
        for _ in pl.range(4):  # some vector work, so that the device wall is more than a launch
            t = pl.mul(t, k)
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]], k: pl.Scalar[pl.FP32]) -> pl.Tensor[[1, COLS], pl.FP32]:
        return self.scale(x, y, k)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[ROWS, 1, COLS], pl.FP32],
        acc: pl.InOut[pl.Tensor[[2, 1, COLS], pl.FP32]],
        y: pl.Out[pl.Tensor[[ROWS, 1, COLS], pl.FP32]],
        k: pl.Scalar[pl.FP32],
    ) -> pl.Tensor[[ROWS, 1, COLS], pl.FP32]:
        for r in pl.range(pld.world_size()):
            self.chip(x[r], y[r], k, device=r)
        return y


compiled = ir.compile(Scale, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
x = torch.arange(2 * COLS, dtype=torch.float32).reshape(2, 1, COLS).share_memory_()
acc = torch.zeros(2, 1, COLS).share_memory_()
y = torch.zeros(2, 1, COLS).share_memory_()

if MODE == "metadata":
    params, outputs, results = compiled._get_metadata()
    for p in params:
        print(p.name, p.direction.name, p.shape, p.dtype)
    print("outputs", outputs)
    print("results", results)
    assert params[2].direction is ParamDirection.Out and params[1].direction is ParamDirection.InOut
    # the golden runner's order: by name, from the metadata
    by_name = {"k": 2.0, "y": y, "x": x, "acc": acc}
    compiled(*[by_name[p.name] for p in params], config=RunConfig(platform="a2a3sim", backend_type=BackendType.Ascend910B))
    assert torch.equal(y, 16 * x), y
elif MODE == "benchmark":
    stats = benchmark(compiled, (x, acc, y, 2.0), rounds=3, warmup=1, config=RunConfig(platform="a2a3sim"))
    assert torch.equal(y, 16 * x), y
    print("rounds", stats.rounds, "warmup", stats.warmup)
    print("device_wall_us", [round(v, 3) for v in stats.device_wall_us])
    print("host_wall_us", [round(v, 3) for v in stats.host_wall_us])
    print("union", [round(v, 3) for v in stats.per_round("union")])
    print("per_rank", {pid: [round(v, 3) for v in vs] for pid, vs in stats.per_rank("device").items()})
    print("effective", [round(v, 3) for v in stats.per_round("effective")])
    print("tasks", stats.dispatch_tasks())
    print("all_zero_device", stats.all_zero_device)
    print("last_run_time_us", round(compiled.last_run_stats["time_s"] * 1e6, 3))
    print(stats)
elif MODE == "newest-imports":
    from pypto.ir import DistributedCompiledProgram
    from pypto.ir import DistributedConfig as NewConfig

    newest = ir.compile(Scale, platform="a2a3sim", distributed_config=NewConfig(device_ids=[0, 1]))
    assert isinstance(newest, DistributedCompiledProgram), type(newest)
    assert isinstance(compiled, DistributedCompiledProgram), type(compiled)
    newest(x, acc, y, 3.0, config=RunConfig(platform="a2a3sim"))
    assert torch.equal(y, 81 * x), y
elif MODE == "bench-args":
    for kwargs in ({"rounds": 0}, {"warmup": -1}, {"platform": "a2a3sim"}, {"device_id": 0}):
        try:
            benchmark(compiled, (x, acc, y, 2.0), **kwargs)
        except ValueError as e:
            print(f"{sorted(kwargs)[0]}: ValueError: {e}")
    try:
        benchmark(Scale, (x, acc, y, 2.0))
    except TypeError as e:
        print(f"program: TypeError: {e}")
print("OK")
