"""gemm.py: the GEMMs measured on a 910B2 (bench/measurements/a2a3-cube-sdma.csv),
written in pl as a 910B user writes them, for `make validate` and the fit
of the cube (tools/pldsim-calibrate).

    pldsim-py [--timing-only] bench/gemm.py [--dtype fp16|fp32] [-m M] [-k K] [-n N]
        [--cores C] [--tile-m TM] [--tile-n TN] [--tile-k TK] [--step-k S]

C = A @ B on one device: A [M, K] and B [K, N] in fp16 (or fp32), C in
fp32.  C blocks of an AIC function (pl.spmd_submit, core_num=C; the 910B2
has 24 AIC) share C's [TM, TN] output tiles round-robin.  For each of its
tiles a block loads an [TM, S*TK] panel of A and an [S*TK, TN] panel of B
into L1 (Mat), multiplies their S slices of TK into one accumulator
(pl.matmul_acc: each slice moves into L0A and L0B), and stores the
accumulator into C.  The defaults are the base tile of PTO's 24-core GEMM
(hw-native-sys/pto-isa kernels/manual/a2a3/gemm_performance): 128 x 256
x 64 with panels of 4 K steps; for fp32 the K step is 32, the same bytes.

Prints one line, `device_wall_us=T tflops=F` (the device wall of the
dispatch, from pypto.runtime.benchmark), then checks C against torch
unless the run has no data (--timing-only) and prints OK.  The sizes must
be multiples of the tiles."""

from __future__ import annotations

import argparse

import pypto.language as pl
import torch
from pypto import ir
from pypto.runtime import RunConfig, benchmark


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="a GEMM on one device's AIC cores, as measured on a 910B2")
    ap.add_argument("--dtype", choices=("fp16", "fp32"), default="fp16", help="A and B's dtype (C is fp32; default fp16)")
    ap.add_argument("-m", type=int, default=2048, help="rows of A and C (default 2048)")
    ap.add_argument("-k", type=int, default=2048, help="columns of A, rows of B (default 2048)")
    ap.add_argument("-n", type=int, default=2048, help="columns of B and C (default 2048)")
    ap.add_argument("--cores", type=int, default=24, help="AIC blocks (default 24, the 910B2's cube cores)")
    ap.add_argument("--tile-m", type=int, default=128, help="rows of an output tile (default 128)")
    ap.add_argument("--tile-n", type=int, default=256, help="columns of an output tile (default 256)")
    ap.add_argument("--tile-k", type=int, default=0, help="the K of one matmul (default 64 for fp16, 32 for fp32)")
    ap.add_argument("--step-k", type=int, default=4, help="K steps per L1 panel load (default 4)")
    a = ap.parse_args()
    if a.tile_k == 0:
        a.tile_k = 64 if a.dtype == "fp16" else 32
    for name in ("m", "k", "n", "cores", "tile_m", "tile_n", "tile_k", "step_k"):
        if getattr(a, name) <= 0:
            flag = f"-{name}" if len(name) == 1 else f"--{name.replace('_', '-')}"  # -m, -k, -n
            ap.error(f"{flag} must be positive")
    for size, tile in (("m", a.tile_m), ("n", a.tile_n), ("k", a.tile_k * a.step_k)):
        if getattr(a, size) % tile:
            ap.error(f"-{size} {getattr(a, size)} is not a multiple of its tile ({tile})")
    return a


ARGS = arguments()
M, K, N = ARGS.m, ARGS.k, ARGS.n
TM, TN, TK, S = ARGS.tile_m, ARGS.tile_n, ARGS.tile_k, ARGS.step_k
PANEL = TK * S  # the K of one L1 panel
IN = pl.FP16 if ARGS.dtype == "fp16" else pl.FP32
N_TILES = N // TN
TILES = (M // TM) * N_TILES


@pl.program
class Gemm:
    @pl.function(type=pl.FunctionType.AIC)
    def multiply(self, a: pl.Tensor[[M, K], IN], b: pl.Tensor[[K, N], IN], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        block, blocks = pl.tile.get_block_idx(), pl.tile.get_block_num()
        for tile in pl.range(block, TILES, blocks):
            row, col = tile // N_TILES * TM, tile % N_TILES * TN
            acc = pl.create_tile([TM, TN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for p in pl.range(K // PANEL):
                a_panel = pl.load(a, [row, p * PANEL], [TM, PANEL], target_memory=pl.Mem.Mat)
                b_panel = pl.load(b, [p * PANEL, col], [PANEL, TN], target_memory=pl.Mem.Mat)
                for s in pl.range(S):
                    lhs, rhs = a_panel[:, s * TK : (s + 1) * TK], b_panel[s * TK : (s + 1) * TK, :]
                    acc = pl.matmul(lhs, rhs) if p == 0 and s == 0 else pl.matmul_acc(acc, lhs, rhs)
            c = pl.store(acc, [row, col], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pl.Tensor[[M, K], IN], b: pl.Tensor[[K, N], IN], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        with pl.manual_scope():
            c, _ = pl.spmd_submit(self.multiply, a, b, c, core_num=ARGS.cores)
        return c


def main() -> int:
    compiled = ir.compile(Gemm, platform="a2a3sim")
    dt = torch.float16 if ARGS.dtype == "fp16" else torch.float32
    torch.manual_seed(0)
    a = (torch.randn(M, K) * 0.1).to(dt)
    b = (torch.randn(K, N) * 0.1).to(dt)
    c = torch.zeros(M, N)
    stats = benchmark(compiled, (a, b, c), rounds=1, warmup=0, config=RunConfig(platform="a2a3sim"))
    us = stats.device_us_median
    print(f"device_wall_us={us!r} tflops={2 * M * N * K / us / 1e6:.6g}", flush=True)
    if not c.any():  # --timing-only: no values were computed
        return 0
    want = a.float() @ b.float()
    if not torch.allclose(c, want, rtol=1e-2, atol=1e-2):
        print(f"C differs from torch's A @ B by up to {(c - want).abs().max().item():g}")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
