"""Step 01: the three levels and the rank.  The host orchestrator hands
each rank its slice of x and its own number; the per-device function calls
one kernel; the kernel adds the rank to every element.  Golden:
y[r] = x[r] + r.  Needs exactly 2 devices.  The C version is
01_hello_rank.c; run this one with pldsim-py."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch

P = 2
ROWS, COLS = 8, 8


@pl.jit.incore
def add_rank(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(x, [0, 0], [ROWS, COLS])
    # the rank is an INT32 scalar: cast it, and let the vector unit add it
    tile = pl.add(tile, pl.cast(rank, target_type=pl.FP32))
    return pl.store(tile, [0, 0], y)


@pl.jit
def on_device(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    return add_rank(x, y, rank)


@pl.jit.host
def hello(x: pl.Tensor[[P, ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, ROWS, COLS], pl.FP32]]):
    # tensors before scalars: the rank comes last
    for r in pl.range(pld.world_size()):
        on_device(x[r], y[r], r, device=r)


def main() -> int:
    args, ids = stepkit.parse("01_hello_rank", exact=P)
    x = torch.randn(P, ROWS, COLS)
    y = torch.zeros(P, ROWS, COLS)
    compiled = hello.compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, x + torch.arange(P, dtype=torch.float32).view(P, 1, 1), "y[r] = x[r] + r")


if __name__ == "__main__":
    raise SystemExit(main())
