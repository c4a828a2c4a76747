"""Reads from HBM (tests/python/test_gm_share.py, docs/models.md "HBM"):
which array a load reads, and so whether the L2 can hold it.

    pldsim-py hbm_reads.py MODE V L

`src` is a host tensor [2, 64, 256] FP32: two slabs of 64 KiB, 128 KiB in
all, as a tensor [P, ...] holds each rank's part.  V blocks of an AIV
function each load L [32, 256] FP32 tiles (32 KiB) of slab 1, one after
another, then store one tile to `w2` (slice) or `w3` (the others):

slice: from ``src[1][0:32, :]``, a slice of a slice, whose own view holds
    only its 32 rows (the array is still the 64 KiB slab);
region: with ``pl.load(src, [1, 0, 0], [1, 32, 256])``, a region inside
    slab 1 of the whole tensor (the array is that slab);
whole: with ``pl.load(src, [0, 0, 0], [2, 16, 256])``, a region across
    both slabs (the array is the whole 128 KiB);
row: with ``pl.load(src, [1, 0, 0], [1, 1, 256])``, one row of 1 KiB (a
    row is not a slab: the array is the whole 128 KiB, as a GEMV's row of a
    weight reads the weight).

Each prints OK."""

import sys

import pypto.language as pl
import torch
from pypto import ir

MODE, V, L = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
SLABS, ROWS, COLS, HALF = 2, 64, 256, 32


@pl.program
class Reads:
    @pl.function(type=pl.FunctionType.AIV)
    def by_slice(self, src: pl.Tensor[[SLABS, ROWS, COLS], pl.FP32], w2: pl.Out[pl.Tensor[[V * HALF, COLS], pl.FP32]]):
        part = src[1][0:HALF, :]
        t = pl.load(part, [0, 0], [HALF, COLS])
        for _ in pl.range(L - 1):
            t = pl.load(part, [0, 0], [HALF, COLS])
        return pl.store(t, [pl.tile.get_block_idx() * HALF, 0], w2)

    @pl.function(type=pl.FunctionType.AIV)
    def by_region(self, src: pl.Tensor[[SLABS, ROWS, COLS], pl.FP32], w3: pl.Out[pl.Tensor[[2 * V, HALF, COLS], pl.FP32]]):
        t = pl.load(src, [1, 0, 0], [1, HALF, COLS])
        for _ in pl.range(L - 1):
            t = pl.load(src, [1, 0, 0], [1, HALF, COLS])
        return pl.store(t, [pl.tile.get_block_idx(), 0, 0], w3)

    @pl.function(type=pl.FunctionType.AIV)
    def by_whole(self, src: pl.Tensor[[SLABS, ROWS, COLS], pl.FP32], w3: pl.Out[pl.Tensor[[2 * V, HALF, COLS], pl.FP32]]):
        t = pl.load(src, [0, 0, 0], [SLABS, HALF // 2, COLS])
        for _ in pl.range(L - 1):
            t = pl.load(src, [0, 0, 0], [SLABS, HALF // 2, COLS])
        return pl.store(t, [2 * pl.tile.get_block_idx(), 0, 0], w3)

    @pl.function(type=pl.FunctionType.AIV)
    def by_row(self, src: pl.Tensor[[SLABS, ROWS, COLS], pl.FP32], w3: pl.Out[pl.Tensor[[2 * V, HALF, COLS], pl.FP32]]):
        t = pl.load(src, [1, 0, 0], [1, 1, COLS])
        for _ in pl.range(L - 1):
            t = pl.load(src, [1, 0, 0], [1, 1, COLS])
        return pl.store(t, [pl.tile.get_block_idx(), 0, 0], w3)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        src: pl.Tensor[[SLABS, ROWS, COLS], pl.FP32],
        w2: pl.Out[pl.Tensor[[V * HALF, COLS], pl.FP32]],
        w3: pl.Out[pl.Tensor[[2 * V, HALF, COLS], pl.FP32]],
    ):
        with pl.manual_scope():
            if MODE == "slice":
                pl.spmd_submit(self.by_slice, src, w2, core_num=V)
            elif MODE == "region":
                pl.spmd_submit(self.by_region, src, w3, core_num=V)
            elif MODE == "row":
                pl.spmd_submit(self.by_row, src, w3, core_num=V)
            else:
                pl.spmd_submit(self.by_whole, src, w3, core_num=V)
        return w3


src = torch.arange(SLABS * ROWS * COLS, dtype=torch.float32).reshape(SLABS, ROWS, COLS)
w2, w3 = torch.zeros(V * HALF, COLS), torch.zeros(2 * V, HALF, COLS)
ir.compile(Reads, platform="a2a3sim")(src, w2, w3)
if w2.any() or w3.any():  # --timing-only computes no values
    if MODE == "slice":
        assert torch.equal(w2, src[1, :HALF].repeat(V, 1))
    elif MODE == "region":
        assert torch.equal(w3[:V], src[1:2, :HALF].repeat(V, 1, 1))
    elif MODE == "row":
        assert torch.equal(w3[:V, 0], src[1, 0].repeat(V, 1)) and not w3[:, 1:].any()
    else:
        assert torch.equal(w3[0:2, : HALF // 2], src[:, : HALF // 2]) and not w3[0:2, HALF // 2 :].any()
print("OK")
