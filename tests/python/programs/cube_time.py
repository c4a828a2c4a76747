"""The cube model's times on one device, for their closed forms
(tests/python/test_cube.py, docs/models.md "The cube unit").

    pldsim-py cube_time.py MODE [ARGS]

gemm DTYPE M N K: one AIC function loads an [M, K] and a [K, N] tile into
L1, moves them into L0A and L0B, multiplies them, and stores the
accumulator (the test holds the run to launch + two GM loads + the moves +
the matmul + a drain of L0C).
overlap W: in one manual scope, an AIC function (W matmuls) beside an AIV
function (W vector ops): cube and vector cores are separate resources.
scale W: the AIV function alone, in its scope.
cubes N W: N blocks of the AIC function (W matmuls each) in one launch.
Each prints OK (and the result is torch's)."""

import sys

import pypto.language as pl
import torch
from pypto import ir

MODE = sys.argv[1]
DT = {"FP16": pl.FP16, "BF16": pl.BF16, "FP32": pl.FP32, "INT8": pl.INT8}
TORCH = {"FP16": torch.float16, "BF16": torch.bfloat16, "FP32": torch.float32, "INT8": torch.int8}
BLOCKS = 1
if MODE == "gemm":
    NAME, M, N, K = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    W = 1
else:
    NAME, M, N, K = "FP16", 64, 64, 64
    W = int(sys.argv[3]) if MODE == "cubes" else int(sys.argv[2])
    BLOCKS = int(sys.argv[2]) if MODE == "cubes" else 1
IN = DT[NAME]
ACC = pl.INT32 if NAME == "INT8" else pl.FP32


@pl.program
class Cube:
    @pl.function(type=pl.FunctionType.AIC)
    def gemm(self, a: pl.Tensor[[M, K], IN], b: pl.Tensor[[K, N], IN], c: pl.Out[pl.Tensor[[M, N], ACC]]):
        am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat)
        al = pl.move(am, target_memory=pl.Mem.Left)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        acc = pl.matmul(al, br)
        for _ in pl.range(W - 1):
            acc = pl.matmul_acc(acc, al, br)
        return pl.store(acc, [0, 0], c)

    @pl.function(type=pl.FunctionType.AIV)
    def scale(self, v: pl.InOut[pl.Tensor[[M, N], pl.FP32]]):
        t = pl.load(v, [0, 0], [M, N])
        for _ in pl.range(W):
            t = pl.mul(t, 1.0)
        return pl.store(t, [0, 0], v)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pl.Tensor[[M, K], IN], b: pl.Tensor[[K, N], IN], c: pl.Out[pl.Tensor[[M, N], ACC]], v: pl.InOut[pl.Tensor[[M, N], pl.FP32]]):
        if MODE == "gemm":
            return self.gemm(a, b, c)
        with pl.manual_scope():
            if MODE in ("overlap", "scale"):
                if MODE == "overlap":
                    pl.submit(self.gemm, a, b, c)
                pl.submit(self.scale, v)
            else:
                pl.spmd_submit(self.gemm, a, b, c, core_num=BLOCKS)
        return c


torch.manual_seed(0)
if NAME == "INT8":
    a = torch.randint(-8, 8, (M, K), dtype=torch.int8)
    b = torch.randint(-8, 8, (K, N), dtype=torch.int8)
    c = torch.zeros(M, N, dtype=torch.int32)
    want = W * (a.int() @ b.int())
else:
    a = (torch.randn(M, K) * 0.1).to(TORCH[NAME])
    b = (torch.randn(K, N) * 0.1).to(TORCH[NAME])
    c = torch.zeros(M, N)
    want = W * (a.float() @ b.float())
v = torch.ones(M, N)
ir.compile(Cube, platform="a2a3sim")(a, b, c, v)
if MODE == "scale":
    want = c  # no matmul ran
if NAME == "INT8":
    assert torch.equal(c, want), (c - want).abs().max()
else:
    assert torch.allclose(c, want, rtol=1e-3, atol=1e-3), (c - want).abs().max()
print("OK")
