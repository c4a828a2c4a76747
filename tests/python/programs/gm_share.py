"""Cores of one device sharing its GM bandwidth (tests/python/test_gm_share.py,
docs/models.md "Shared GM bandwidth").

    pldsim-py gm_share.py MODE V L

stream: V blocks of an AIV function, each loading L [64, 256] FP32 tiles
(64 KiB each) from GM one after another, then storing one tile to `w`.
gemm: the same V streaming blocks, in one manual scope with one block of an
AIC function: a [128, 256] output tile of a GEMM with K = 1024, in L1
panels of 4 K steps of 64 (bench/gemm.py's loop), stored to `c`.
Each prints OK."""

import sys

import pypto.language as pl
import torch
from pypto import ir

MODE, V, L = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TM, TN, TK, S, K = 128, 256, 64, 4, 1024
PANEL = TK * S
ROWS, COLS = 64, 256


@pl.program
class Share:
    @pl.function(type=pl.FunctionType.AIV)
    def stream(self, src: pl.Tensor[[ROWS, COLS], pl.FP32], w: pl.Out[pl.Tensor[[ROWS * V, COLS], pl.FP32]]):
        t = pl.load(src, [0, 0], [ROWS, COLS])
        for _ in pl.range(L - 1):
            t = pl.load(src, [0, 0], [ROWS, COLS])
        return pl.store(t, [pl.tile.get_block_idx() * ROWS, 0], w)

    @pl.function(type=pl.FunctionType.AIC)
    def gemm(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, TN], pl.FP16], c: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
        acc = pl.create_tile([TM, TN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for p in pl.range(K // PANEL):
            a_panel = pl.load(a, [0, p * PANEL], [TM, PANEL], target_memory=pl.Mem.Mat)
            b_panel = pl.load(b, [p * PANEL, 0], [PANEL, TN], target_memory=pl.Mem.Mat)
            for s in pl.range(S):
                lhs, rhs = a_panel[:, s * TK : (s + 1) * TK], b_panel[s * TK : (s + 1) * TK, :]
                acc = pl.matmul(lhs, rhs) if p == 0 and s == 0 else pl.matmul_acc(acc, lhs, rhs)
        return pl.store(acc, [0, 0], c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, src: pl.Tensor[[ROWS, COLS], pl.FP32], w: pl.Out[pl.Tensor[[ROWS * V, COLS], pl.FP32]], a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, TN], pl.FP16], c: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
        with pl.manual_scope():
            if MODE == "gemm":
                pl.submit(self.gemm, a, b, c)
            pl.spmd_submit(self.stream, src, w, core_num=V)
        return c


torch.manual_seed(0)
src = torch.randn(ROWS, COLS)
w = torch.zeros(ROWS * V, COLS)
a = (torch.randn(TM, K) * 0.1).to(torch.float16)
b = (torch.randn(K, TN) * 0.1).to(torch.float16)
c = torch.zeros(TM, TN)
ir.compile(Share, platform="a2a3sim")(src, w, a, b, c)
if w.any():  # --timing-only computes no values
    assert torch.equal(w, src.repeat(V, 1))
    if MODE == "gemm":
        assert torch.allclose(c, a.float() @ b.float(), rtol=1e-2, atol=1e-2), (c - a.float() @ b.float()).abs().max()
print("OK")
