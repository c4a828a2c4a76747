"""The cube unit's ops on one device: pl.load into Mat, pl.move, pl.matmul,
pl.matmul_acc, pl.store of an Acc tile, pl.create_tile and pl.tile.full,
AIC and AIV functions, and each misuse (a line marked # FAULT MODE).

    pldsim-py cube.py MODE [N]

MODE: matmul, int8, vec-operands, create-acc, full, aic-aiv (each prints
OK when its result is torch's); timing N (N matmuls of [16, 32] @ [32, 16],
for the test of their charge); or a FAULT mode."""

import sys

import pypto.language as pl
import torch

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 0
M, K, NN = 16, 32, 16


@pl.jit.incore
def gemm(a: pl.Tensor[[M, 2 * K], pl.FP16], b: pl.Tensor[[2 * K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
    # C = A @ B in two K steps: matmul, then matmul_acc into its accumulator
    a0 = pl.load(a, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)
    b0 = pl.load(b, [0, 0], [K, NN], target_memory=pl.Mem.Mat)
    acc = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
    a1 = pl.load(a, [0, K], [M, K], target_memory=pl.Mem.Mat)
    b1 = pl.load(b, [K, 0], [K, NN], target_memory=pl.Mem.Mat)
    acc = pl.matmul_acc(acc, a1, b1)  # Mat operands: upstream moves them to L0 itself
    return pl.store(acc, [0, 0], c)


@pl.jit.incore
def gemm_int8(a: pl.Tensor[[M, K], pl.INT8], b: pl.Tensor[[K, NN], pl.INT8], c: pl.Out[pl.Tensor[[M, NN], pl.INT32]]):
    acc = pl.tile.matmul(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), pl.load(b, [0, 0], [K, NN], target_memory=pl.Mem.Mat))
    return pl.store(acc, [0, 0], c)


@pl.jit.incore
def gemm_vec(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, NN], pl.FP32], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
    # Vec tiles: upstream's compiler would have loaded them into Mat
    return pl.store(pl.matmul(pl.load(a, [0, 0], [M, K]), pl.load(b, [0, 0], [K, NN])), [0, 0], c)


@pl.jit.incore
def gemm_create(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
    acc = pl.create_tile([M, NN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
    am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
    bm = pl.load(b, [0, 0], [K, NN], target_memory=pl.Mem.Mat)
    for k in pl.range(3):
        acc = pl.matmul_acc(acc, am, bm, init_cond=(k == 0))  # overwritten at k = 0, then added: 3 A @ B
    return pl.store(acc, [0, 0], c)


@pl.jit.incore
def filled(c: pl.Out[pl.Tensor[[2, 8], pl.INT32]], v: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    pl.store(pl.tile.full([2, 8], dtype=pl.INT32, value=7), [0, 0], c)
    zeros = pl.tile.create([4, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    pl.store(pl.add(zeros, 1.5), [0, 0], v)
    return c


@pl.jit.incore
def timed(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]], n: pl.Scalar[pl.INT32]):
    am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
    bm = pl.load(b, [0, 0], [K, NN], target_memory=pl.Mem.Mat)
    acc = pl.create_tile([M, NN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
    for _ in pl.range(n):
        acc = pl.matmul_acc(acc, am, bm)
    return pl.store(acc, [0, 0], c)


@pl.program
class Split:
    """An AIC function multiplies, an AIV function scales the product."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube_part(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
        am = pl.load(a, [0, 0], [M, K])  # no UB on a cube core: into Mat
        bm = pl.load(b, [0, 0], [K, NN])
        return pl.store(pl.matmul(am, bm), [0, 0], c)

    @pl.function(type=pl.FunctionType.AIV)
    def vector_part(self, c: pl.InOut[pl.Tensor[[M, NN], pl.FP32]]):
        return pl.store(pl.mul(pl.load(c, [0, 0], [M, NN]), 2.0), [0, 0], c)

    @pl.function(type=pl.FunctionType.AIV)
    def aiv_matmul(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
        am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)  # FAULT aiv-matmul
        return pl.store(am, [0, 0], c)

    @pl.function(type=pl.FunctionType.AIC)
    def aic_add(self, c: pl.InOut[pl.Tensor[[M, NN], pl.FP32]]):
        t = pl.create_tile([M, NN], dtype=pl.FP32, target_memory=pl.Mem.Vec)  # FAULT aic-add
        return pl.store(t, [0, 0], c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]]):
        if MODE == "aiv-matmul":
            return self.aiv_matmul(a, b, c)
        if MODE == "aic-add":
            return self.aic_add(c)
        self.cube_part(a, b, c)
        return self.vector_part(c)


@pl.jit.incore
def keeps(a: pl.Tensor[[M, K], pl.FP16]):
    return pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)


@pl.jit.incore
def uses(c: pl.Out[pl.Tensor[[M, K], pl.FP16]], old):
    pl.move(old, target_memory=pl.Mem.Left)  # FAULT dead-tile
    return c


@pl.jit.incore
def fault(a: pl.Tensor[[M, 2 * K], pl.FP16], b: pl.Tensor[[2 * K, NN], pl.FP16], c: pl.Out[pl.Tensor[[M, NN], pl.FP32]], f32: pl.Tensor[[M, NN], pl.FP32]):
    am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
    bm = pl.load(b, [0, 0], [K, NN], target_memory=pl.Mem.Mat)
    if MODE == "k-mismatch":
        pl.matmul(am, pl.load(b, [0, 0], [NN, NN], target_memory=pl.Mem.Mat))  # FAULT k-mismatch
    if MODE == "dtype-mismatch":
        pl.matmul(pl.load(f32, [0, 0], [M, NN], target_memory=pl.Mem.Mat), pl.load(b, [0, 0], [NN, NN], target_memory=pl.Mem.Mat))  # FAULT dtype-mismatch
    if MODE == "lhs-space":
        pl.matmul(pl.move(am, target_memory=pl.Mem.Right), bm)  # FAULT lhs-space
    if MODE == "acc-not-acc":
        pl.matmul_acc(am, am, bm)  # FAULT acc-not-acc
    if MODE == "acc-dtype":
        pl.matmul_acc(pl.create_tile([M, NN], dtype=pl.FP16, target_memory=pl.Mem.Acc), am, bm)  # FAULT acc-dtype
    if MODE == "acc-shape":
        pl.matmul_acc(pl.create_tile([M, 2 * NN], dtype=pl.FP32, target_memory=pl.Mem.Acc), am, bm)  # FAULT acc-shape
    if MODE == "store-mat":
        pl.store(am, [0, 0], c)  # FAULT store-mat
    if MODE == "load-left":
        pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Left)  # FAULT load-left
    if MODE == "move-acc":
        pl.move(am, target_memory=pl.Mem.Acc)  # FAULT move-acc
    if MODE == "flag":
        pl.matmul(am, bm, a_trans=True)  # FAULT flag
    if MODE == "out-dtype":
        pl.matmul(am, bm, out_dtype=pl.FP16)  # FAULT out-dtype
    if MODE == "full-value":
        pl.tile.full([2, 8], dtype=pl.INT32, value="seven")  # FAULT full-value
    if MODE == "create-shape":
        pl.create_tile([0, 8], dtype=pl.FP32, target_memory=pl.Mem.Mat)  # FAULT create-shape
    if MODE == "create-scale":
        pl.create_tile([16, 8], dtype=pl.FP32, target_memory=pl.Mem.LeftScale)  # FAULT create-scale
    if MODE == "add-mat":
        pl.add(am, am)  # FAULT add-mat
    if MODE == "acc-bounds":
        pl.store(pl.matmul(am, bm), [8, 0], c)  # FAULT acc-bounds
    return c


@pl.jit
def on_device(a, b, c, ah, bh, a32, b32, a8, b8, c8, ci, v, f32):
    if MODE == "matmul":
        gemm(a, b, c)
    elif MODE == "int8":
        gemm_int8(a8, b8, c8)
    elif MODE == "vec-operands":
        gemm_vec(a32, b32, c)
    elif MODE == "create-acc":
        gemm_create(ah, bh, c)
    elif MODE == "full":
        filled(ci, v)
    elif MODE == "timing":
        timed(ah, bh, c, N)
    elif MODE == "dead-tile":
        uses(ah, keeps(ah))
    else:
        fault(a, b, c, f32)


torch.manual_seed(0)
a = (torch.randn(M, 2 * K) * 0.1).half()
b = (torch.randn(2 * K, NN) * 0.1).half()
c = torch.zeros(M, NN)
a8 = torch.randint(-100, 100, (M, K), dtype=torch.int8)
b8 = torch.randint(-100, 100, (K, NN), dtype=torch.int8)
c8 = torch.zeros(M, NN, dtype=torch.int32)
ci = torch.zeros(2, 8, dtype=torch.int32)
v = torch.zeros(4, 8)
f32 = torch.zeros(M, NN)
ah, bh = a[:, 0:K].contiguous(), b[0:K, :].contiguous()
a32, b32 = ah.float(), bh.float()

if MODE in ("aic-aiv", "aiv-matmul", "aic-add"):
    from pypto import ir

    ir.compile(Split, platform="a2a3sim")(ah, bh, c)
    want = 2 * (ah.float() @ bh.float())
    assert torch.allclose(c, want, rtol=1e-5, atol=1e-5), (c - want).abs().max()
    print("OK")
    sys.exit(0)

on_device(a, b, c, ah, bh, a32, b32, a8, b8, c8, ci, v, f32)
if MODE == "matmul":
    want = a.float() @ b.float()
elif MODE == "int8":
    assert torch.equal(c8, a8.int() @ b8.int()), "int8"
    want = c
elif MODE == "vec-operands":
    want = a32 @ b32
elif MODE == "create-acc":
    want = 3 * (ah.float() @ bh.float())
elif MODE == "full":
    assert torch.equal(ci, torch.full((2, 8), 7, dtype=torch.int32)) and torch.equal(v, torch.full((4, 8), 1.5)), (ci, v)
    want = c
else:
    want = c
assert torch.allclose(c, want, rtol=1e-5, atol=1e-5), (c - want).abs().max()
print("OK")
