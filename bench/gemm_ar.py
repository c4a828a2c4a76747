"""GEMM + allreduce with the communication beside the GEMM, as pto-isa's
kernels/manual/a2a3/gemm_ar runs it on 8 910Bs: the held-out figure of
docs/validation.md, "Shared GM bandwidth".

    pldsim-py --timing-only [--trace FILE.txt] gemm_ar.py [-d DEVICES]
        [--comm-cores C] [--gemm-cores G] [-m M] [-k K] [-n N]

Every rank computes C_i = A_i @ B ([M, K] by [K, N], FP16 in, FP32 out) on
G AIC blocks (a manual scope), each taking a contiguous range of the
[128, 256] output tiles, K in L1 panels of 4 steps of 64 (bench/gemm.py's
loop), and notifying the tile's `ready` cell once it is stored.  Beside it,
C AIV blocks allreduce the C_i: in the reduce-scatter each block takes the
tiles of its AIC block (of every G/C-th of them when C > G... see
rs_tiles) as they are ready, loads each into UB and adds it, with an
atomic remote store, into `reduced` on the tile's owner (tile index mod
P); after a barrier across the ranks, the allgather spreads the rows of
each rank's own reduced tiles to every other rank, in equal row ranges
per block.  --comm-cores 0 runs the GEMM alone.

The machine's C is FP16 (its fixpipe casts the accumulator); pl stores an
FP32 accumulator only into FP32, so the communication moves the first 128
columns of each FP32 tile: 64 KiB, the machine's FP16 tile.  The values of
`reduced` are therefore not the allreduce's, and nothing is checked: run
it with --timing-only.  Prints the device wall (the slowest rank's
dispatch); the GEMM's own span on each rank is in a --trace (its stores
to `c`), which tools/pldsim-calibrate validate reads."""

from __future__ import annotations

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig, benchmark


def devices(text: str) -> list[int]:
    """0,1,2 or 0-7."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi) + 1) if hi else [int(lo)]
    return out


#: the a2a3 (910B) vector cores: the most comm blocks that can all run at once
AIV_CORES = 48


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="GEMM + allreduce, the allreduce beside the GEMM (pto-isa's gemm_ar)")
    ap.add_argument("-d", "--devices", default="0-7", help="device ids: 0,1,2,3 or 0-7 (default 0-7)")
    ap.add_argument("--gemm-cores", type=int, default=24, help="AIC blocks of the GEMM (default 24)")
    ap.add_argument("--comm-cores", type=int, default=24, help="AIV blocks of the allreduce; 0: the GEMM alone (default 24)")
    ap.add_argument("-m", type=int, default=5504, help="rows of A and C (default 5504: 5416 padded to 128)")
    ap.add_argument("-k", type=int, default=6144, help="columns of A, rows of B (default 6144)")
    ap.add_argument("-n", type=int, default=1536, help="columns of B and C (default 1536: 1408 padded to 256)")
    a = ap.parse_args()
    try:
        a.device_ids = devices(a.devices)
    except ValueError:
        a.device_ids = []
    if not a.device_ids or min(a.device_ids) < 0 or len(set(a.device_ids)) != len(a.device_ids):
        ap.error(f"-d {a.devices!r}: expected distinct device ids, such as 0,1,2,3 or 0-7")
    if a.gemm_cores <= 0 or a.comm_cores < 0:
        ap.error("--gemm-cores must be positive and --comm-cores at least 0")
    if a.comm_cores > AIV_CORES:
        # the comm blocks wait on each other: those without a core would
        # never start, and the run would end in a deadlock report
        ap.error(f"--comm-cores {a.comm_cores}: expected at most {AIV_CORES}, the AIV cores of the 910B this "
                 "kernel runs on (every comm block must be resident at once)")
    if a.comm_cores and a.comm_cores % a.gemm_cores and a.gemm_cores % a.comm_cores:
        ap.error(f"--comm-cores {a.comm_cores} and --gemm-cores {a.gemm_cores}: one must divide the other")
    for size, tile in (("m", 128), ("n", 256), ("k", 256)):
        if getattr(a, size) <= 0 or getattr(a, size) % tile:
            ap.error(f"-{size} {getattr(a, size)} is not a positive multiple of {tile}")
    return a


ARGS = arguments()
P, G, C = len(ARGS.device_ids), ARGS.gemm_cores, ARGS.comm_cores
M, K, N = ARGS.m, ARGS.k, ARGS.n
TM, TN, TK, S = 128, 256, 64, 4
PANEL = TK * S
CW = 128  # FP32 columns the communication moves of each tile: 64 KiB
N_TILES = N // TN
TILES = (M // TM) * N_TILES
LINE = 16  # INT32 cells in a 64-byte line: window buffers that share none
READY, FLAGS = -(-TILES // LINE) * LINE, -(-(P + 2) // LINE) * LINE
PER = -(-TILES // G)  # tiles per AIC block


def gemm_tiles(g: int) -> range:
    """AIC block g's tiles, in the order it computes them."""
    return range(min(g * PER, TILES), min((g + 1) * PER, TILES))


def rs_tiles(v: int) -> list[int]:
    """The tiles AIV block v reduces, in the order it takes them.  With
    C >= G, C/G blocks share each AIC block's tiles in turn (pto-isa's
    1 AIC : 2 AIV queues with 48); with C < G, block v takes the AIC
    blocks v, v + C, ... a tile of each in turn."""
    if C >= G:
        lanes = C // G
        return list(gemm_tiles(v % G))[v // G :: lanes]
    ranges = [gemm_tiles(g) for g in range(v, G, C)]
    return [r[k] for k in range(PER) for r in ranges if k < len(r)]


@pl.program
class GemmAllreduce:
    @pl.function(type=pl.FunctionType.AIC)
    def gemm(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        ready: pl.InOut[pld.DistributedTensor[[READY], pl.INT32]],
    ):
        me = pld.rank(pld.get_comm_ctx(ready))
        for t in gemm_tiles(pl.tile.get_block_idx()):
            row, col = t // N_TILES * TM, t % N_TILES * TN
            acc = pl.create_tile([TM, TN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for p in pl.range(K // PANEL):
                a_panel = pl.load(a, [row, p * PANEL], [TM, PANEL], target_memory=pl.Mem.Mat)
                b_panel = pl.load(b, [p * PANEL, col], [PANEL, TN], target_memory=pl.Mem.Mat)
                for s in pl.range(S):
                    lhs, rhs = a_panel[:, s * TK : (s + 1) * TK], b_panel[s * TK : (s + 1) * TK, :]
                    acc = pl.matmul(lhs, rhs) if p == 0 and s == 0 else pl.matmul_acc(acc, lhs, rhs)
            c = pl.store(acc, [row, col], c)
            pld.system.notify(target=ready, peer=me, offsets=[t], value=1, op=pld.NotifyOp.Set)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def allreduce(
        self,
        c: pl.Tensor[[M, N], pl.FP32],
        reduced: pl.InOut[pld.DistributedTensor[[M, N], pl.FP32]],
        ready: pld.DistributedTensor[[READY], pl.INT32],
        flags: pl.InOut[pld.DistributedTensor[[FLAGS], pl.INT32]],
    ):
        ctx = pld.get_comm_ctx(reduced)
        me, nranks = pld.rank(ctx), pld.nranks(ctx)
        v = pl.tile.get_block_idx()
        # reduce-scatter: each ready tile into its owner's `reduced`
        for t in rs_tiles(v):
            row, col = t // N_TILES * TM, t % N_TILES * TN
            pld.system.wait(signal=ready, offsets=[t], expected=1, cmp=pld.WaitCmp.Ge)
            x = pl.load(c, [row, col], [TM, CW])
            pld.tile.remote_store(x, reduced, peer=t % nranks, offsets=[row, col], atomic=pld.AtomicType.Add)
        # the barrier: every block of every rank is past its reduce-scatter
        # (flags[0..P-1]: ranks done; P: this rank's blocks done; P+1: go)
        pld.system.notify(target=flags, peer=me, offsets=[nranks], value=1, op=pld.NotifyOp.AtomicAdd)
        if v == 0:
            pld.system.wait(signal=flags, offsets=[nranks], expected=C, cmp=pld.WaitCmp.Ge)
            for j in range(1, nranks):
                pld.system.notify(target=flags, peer=(me + j) % nranks, offsets=[me], value=1, op=pld.NotifyOp.AtomicAdd)
            for j in range(1, nranks):
                pld.system.wait(signal=flags, offsets=[(me + j) % nranks], expected=1, cmp=pld.WaitCmp.Ge)
            pld.system.notify(target=flags, peer=me, offsets=[nranks + 1], value=1, op=pld.NotifyOp.Set)
        else:
            pld.system.wait(signal=flags, offsets=[nranks + 1], expected=1, cmp=pld.WaitCmp.Ge)
        # allgather: the rows of this rank's tiles to every other rank, an
        # equal range of (tile, peer, row) rows per block
        mine = list(range(me, TILES, nranks))
        total = len(mine) * (nranks - 1) * TM
        per = -(-total // C)
        r, end = min(v * per, total), min((v + 1) * per, total)
        while r < end:
            unit, within = divmod(r, TM)
            rows = min(TM - within, end - r)
            t, peer = mine[unit // (nranks - 1)], (me + 1 + unit % (nranks - 1)) % nranks
            row, col = t // N_TILES * TM + within, t % N_TILES * TN
            x = pl.load(reduced, [row, col], [rows, CW])
            pld.tile.remote_store(x, reduced, peer=peer, offsets=[row, col])
            r += rows
        return reduced

    @pl.function(type=pl.FunctionType.Orchestration)
    def on_device(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        reduced: pl.InOut[pld.DistributedTensor[[M, N], pl.FP32]],
        ready: pl.InOut[pld.DistributedTensor[[READY], pl.INT32]],
        flags: pl.InOut[pld.DistributedTensor[[FLAGS], pl.INT32]],
    ):
        with pl.manual_scope():
            pl.spmd_submit(self.gemm, a, b, c, ready, core_num=G)
            if C:
                pl.spmd_submit(self.allreduce, c, reduced, ready, flags, core_num=C)
        return c

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        a: pl.Tensor[[P, M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[P, M, N], pl.FP32]],
    ):
        reduced_buf = pld.alloc_window_buffer([M, N], dtype=pl.FP32)
        ready_buf = pld.alloc_window_buffer([READY], dtype=pl.INT32)
        flags_buf = pld.alloc_window_buffer([FLAGS], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            reduced = pld.window(reduced_buf, [M, N], dtype=pl.FP32)
            ready = pld.window(ready_buf, [READY], dtype=pl.INT32)
            flags = pld.window(flags_buf, [FLAGS], dtype=pl.INT32)
            self.on_device(a[r], b, c[r], reduced, ready, flags, device=r)
        return c


def main() -> int:
    compiled = ir.compile(GemmAllreduce, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=ARGS.device_ids))
    a = torch.zeros(P, M, K, dtype=torch.float16)
    b = torch.zeros(K, N, dtype=torch.float16)
    c = torch.zeros(P, M, N)
    stats = benchmark(compiled, (a, b, c), rounds=1, warmup=0, config=RunConfig(platform="a2a3sim"))
    print(f"device_wall_us={stats.device_us_median!r}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
