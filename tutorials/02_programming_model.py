"""Step 02: who runs what.  Host orchestrator (host CPU) -> per-device
function (the device's AICPU) -> kernel (its vector core).  The kernel does
rank-dependent floating-point math as the core must, with vector ops:
x * rank + x.  Golden: y[r] = x[r] * (r + 1).  Needs exactly 2 devices."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch

P = 2
ROWS, COLS = 8, 8


@pl.jit.incore
def scale_by_rank(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    # x * (rank + 1) as one scalar product would need FP scalar math, which
    # the core lacks: multiply the tile, then add it once more
    scaled = pl.mul(t, pl.cast(rank, target_type=pl.FP32))
    return pl.store(pl.add(scaled, t), [0, 0], y)


@pl.jit
def device_orchestration(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    return scale_by_rank(x, y, rank)


@pl.jit.host
def host_orchestration(x: pl.Tensor[[P, ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, ROWS, COLS], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        device_orchestration(x[r], y[r], r, device=r)


def main() -> int:
    args, ids = stepkit.parse("02_programming_model", exact=P)
    x = torch.randn(P, ROWS, COLS)
    y = torch.zeros(P, ROWS, COLS)
    compiled = host_orchestration.compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    factor = torch.arange(1, P + 1, dtype=torch.float32).view(P, 1, 1)
    return stepkit.finish(y, x * factor, "y[r] = x[r] * (r + 1)")


if __name__ == "__main__":
    raise SystemExit(main())
