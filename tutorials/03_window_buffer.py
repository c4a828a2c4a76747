"""Step 03: a window buffer.  The host reserves one slot in every rank's
window (the shape form: [1, SIZE] FP32) and gives each rank a view of it;
each rank stores its x there and loads it back.  Golden: y == x.  Needs
exactly 2 devices."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch

P = 2
SIZE = 256


@pl.jit.incore
def roundtrip(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
):
    # inside a kernel a window view is this rank's own copy
    data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
    return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)


@pl.jit
def on_device(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
):
    return roundtrip(x, y, data)


@pl.jit.host
def window_step(x: pl.Tensor[[P, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, SIZE], pl.FP32]]):
    data = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        on_device(x[r], y[r], pld.window(data, [1, SIZE], dtype=pl.FP32), device=r)


def main() -> int:
    args, ids = stepkit.parse("03_window_buffer", exact=P)
    x = torch.randn(P, 1, SIZE)
    y = torch.zeros(P, 1, SIZE)
    compiled = window_step.compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, x, "y == x")


if __name__ == "__main__":
    raise SystemExit(main())
