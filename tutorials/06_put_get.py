"""Step 06: put and get, tensor-level copies staged through the UB.
--mode put (default): push x into the right neighbour's dst, notify it;
y[r] = x[(r - 1) % P].  --mode get: notify the left neighbour that src is
ready, wait for the right one's, pull it; y[r] = x[(r + 1) % P].  Needs
exactly 2 devices (step 07 runs the same kernels at any P)."""

import pypto.language as pl
import put_get_kernels as pg
import stepkit
import torch

P = 2


@pl.jit.host
def ring_put(x: pl.Tensor[[P, 1, pg.SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, pg.SIZE], pl.FP32]]):
    pg.dispatch_all(x, y, pg.put_on_device)


@pl.jit.host
def ring_get(x: pl.Tensor[[P, 1, pg.SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, pg.SIZE], pl.FP32]]):
    pg.dispatch_all(x, y, pg.get_on_device)


def main() -> int:
    args, ids = stepkit.parse("06_put_get", exact=P, modes=("put", "get"))
    get = args.mode == "get"
    x = torch.randn(P, 1, pg.SIZE)
    y = torch.zeros(P, 1, pg.SIZE)
    compiled = (ring_get if get else ring_put).compile(x, y, config=stepkit.config(args, ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, pg.golden(x, get), args.mode)


if __name__ == "__main__":
    raise SystemExit(main())
