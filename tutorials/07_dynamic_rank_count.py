"""Step 07: a dynamic rank count.  Step 06's kernels, unchanged, with the
host tensors declared [NR, 1, SIZE] where NR = pl.dynamic("NR") is bound
from the tensors passed, so one program runs at any P >= 2 (-d 0,1,2).
No window shape depends on NR: every rank has one src, one dst and one
signal cell, whatever the count."""

import pypto.language as pl
import put_get_kernels as pg
import stepkit
import torch

NR = pl.dynamic("NR")


@pl.jit.host
def ring_put(x: pl.Tensor[[NR, 1, pg.SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, pg.SIZE], pl.FP32]]):
    pg.dispatch_all(x, y, pg.put_on_device)


@pl.jit.host
def ring_get(x: pl.Tensor[[NR, 1, pg.SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, pg.SIZE], pl.FP32]]):
    pg.dispatch_all(x, y, pg.get_on_device)


def main() -> int:
    args, ids = stepkit.parse("07_dynamic_rank_count", modes=("put", "get"))
    get = args.mode == "get"
    x = torch.randn(len(ids), 1, pg.SIZE)
    y = torch.zeros(len(ids), 1, pg.SIZE)
    compiled = (ring_get if get else ring_put).compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, pg.golden(x, get), f"{args.mode} at P={len(ids)}")


if __name__ == "__main__":
    raise SystemExit(main())
