"""Allgather overlapped with a GEMM: every rank computes C = A @ B, where A
is the [P*M, K] concatenation of every rank's [M, K] slice and B a [K, N]
matrix every rank holds.  The study of docs/what-if.md ("Allgather against
GEMM").

    pldsim-py [--trace FILE.svg] allgather_gemm.py [-d DEVICES]
        [--comm-cores C] [--gemm-cores G] [--sync] [--order arrival|source]
        [-m M] [-k K] [-n N] [--tile-m TM] [--tile-n TN] [--tile-k TK]

Each rank cuts its slice of A into M/TM row tiles.  C blocks of a vector
kernel (pl.spmd_submit, core_num=C) share the tiles: for each of its tiles
a block puts the tile into every peer's `gathered` window (pld.tensor.put,
in [TM, TK] chunks) and notifies that peer's signal cell [me, tile].  Meanwhile
G blocks of a cube kernel (an AIC function, core_num=G) share the output
tiles [TM, TN] of C: first those of the rank's own rows, which need no
communication, then those of its peers' rows in the order they arrive
(--order source: every tile of one peer, then the next's), each after a
pld.system.wait for the tile's signal.  Each output tile is K/TK matmuls
of a [TM, TK] A tile by a [TK, TN] B tile, both loaded into L1 (Mat).

With --sync there is no overlap: the GEMM starts when the rank's own puts
are done (deps=) and every block first waits for every tile of every peer.

The result is checked against torch's product; the program prints OK.
(`pldsim-py --no-data` refuses the run: the GEMM's tiles of window rows
hold no values, and storing them into the host's C is an error.)"""

from __future__ import annotations

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="allgather of A's row tiles overlapped with C = A @ B")
    ap.add_argument("-d", "--devices", default="0,1,2,3", help="device ids, comma-separated (default 0,1,2,3)")
    ap.add_argument("--comm-cores", type=int, default=2, help="vector cores (SPMD blocks) that put the tiles (default 2)")
    ap.add_argument("--gemm-cores", type=int, default=8, help="cube cores (SPMD blocks of an AIC function) of the GEMM (default 8)")
    ap.add_argument("--sync", action="store_true", help="no overlap: the whole allgather, then the GEMM")
    ap.add_argument("--order", choices=("arrival", "source"), default="arrival", help="the order the GEMM takes the peers' tiles in (default arrival)")
    ap.add_argument("-m", type=int, default=256, help="rows of A per rank (default 256)")
    ap.add_argument("-k", type=int, default=256, help="columns of A, rows of B (default 256)")
    ap.add_argument("-n", type=int, default=512, help="columns of B and C (default 512)")
    ap.add_argument("--tile-m", type=int, default=32, help="rows of a tile of A, and of C (default 32)")
    ap.add_argument("--tile-n", type=int, default=256, help="columns of a tile of C (default 256)")
    ap.add_argument("--tile-k", type=int, default=256, help="the K step of the matmuls, and a put chunk's columns (default 256)")
    a = ap.parse_args()
    for name in ("comm_cores", "gemm_cores", "m", "k", "n", "tile_m", "tile_n", "tile_k"):
        if getattr(a, name) <= 0:
            ap.error(f"--{name.replace('_', '-')} must be positive")
    for size, tile in (("m", "tile_m"), ("n", "tile_n"), ("k", "tile_k")):
        if getattr(a, size) % getattr(a, tile):
            ap.error(f"-{size} {getattr(a, size)} is not a multiple of --{tile.replace('_', '-')} {getattr(a, tile)}")
    try:
        a.device_ids = [int(d) for d in a.devices.split(",") if d]
    except ValueError:
        a.device_ids = []
    if not a.device_ids or min(a.device_ids) < 0:
        ap.error(f"-d {a.devices!r}: expected device ids separated by commas, such as 0,1,2,3")
    return a


ARGS = arguments()
DEVICES = ARGS.device_ids
P = len(DEVICES)
M, K, N = ARGS.m, ARGS.k, ARGS.n
TM, TN, TK = ARGS.tile_m, ARGS.tile_n, ARGS.tile_k
M_TILES, N_TILES, K_STEPS = M // TM, N // TN, K // TK
ROWS = P * M  # rows of the gathered A, and of C


def row_tiles(me: int) -> list[tuple[int, int]]:
    """The tiles of the gathered A that rank `me` multiplies, (source rank,
    row tile), in the order its GEMM takes them: its own first, which it
    has, then its peers'.  --order arrival takes the peers' tiles in the
    order they arrive: the comm blocks put tiles t, t+1, ... t+C-1 at once,
    each to peer me+1 first, so rank me gets them from me-1 first;
    --order source takes every tile of me-1, then every tile of me-2, ..."""
    own = [(me, t) for t in range(M_TILES)]
    if ARGS.order == "source":
        return own + [((me - j) % P, t) for j in range(1, P) for t in range(M_TILES)]
    C = ARGS.comm_cores
    peers = sorted(((t // C, j, t % C), ((me - j) % P, t)) for j in range(1, P) for t in range(M_TILES))
    return own + [tile for _, tile in peers]


@pl.program
class AllgatherGemm:
    @pl.function(type=pl.FunctionType.AIV)
    def send_tiles(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        gathered: pl.InOut[pld.DistributedTensor[[ROWS, K], pl.FP16]],
        ready: pl.InOut[pld.DistributedTensor[[P, M_TILES], pl.INT32]],
    ):
        ctx = pld.get_comm_ctx(gathered)
        me, nranks = pld.rank(ctx), pld.nranks(ctx)
        block, blocks = pl.tile.get_block_idx(), pl.tile.get_block_num()
        for t in pl.range(block, M_TILES, blocks):
            for j in pl.range(1, nranks):
                peer = (me + j) % nranks  # in ring order, so that no rank is everyone's first
                pld.tensor.put(
                    gathered,
                    peer=peer,
                    src=a,
                    dst_offsets=[me * M + t * TM, 0],
                    src_offsets=[t * TM, 0],
                    shape=[TM, K],
                    chunk_rows=TM,
                    chunk_cols=TK,
                )
                pld.system.notify(target=ready, peer=peer, offsets=[me, t], value=1, op=pld.NotifyOp.AtomicAdd)
        return gathered

    @pl.function(type=pl.FunctionType.AIC)
    def multiply(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        gathered: pld.DistributedTensor[[ROWS, K], pl.FP16],
        ready: pld.DistributedTensor[[P, M_TILES], pl.INT32],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
    ):
        ctx = pld.get_comm_ctx(gathered)
        me = pld.rank(ctx)
        block, blocks = pl.tile.get_block_idx(), pl.tile.get_block_num()
        tiles = row_tiles(me)
        if ARGS.sync:  # the whole allgather first
            for src, t in tiles[M_TILES:]:
                pld.system.wait(signal=ready, offsets=[src, t], expected=1, cmp=pld.WaitCmp.Ge)
        for task in pl.range(block, P * M_TILES * N_TILES, blocks):
            src, t = tiles[task // N_TILES]
            col = task % N_TILES * TN
            if src == me:
                rows, row0 = a, t * TM
            else:
                if not ARGS.sync:
                    pld.system.wait(signal=ready, offsets=[src, t], expected=1, cmp=pld.WaitCmp.Ge)
                rows, row0 = gathered, src * M + t * TM
            acc = pl.create_tile([TM, TN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for s in pl.range(K_STEPS):
                lhs = pl.load(rows, [row0, s * TK], [TM, TK], target_memory=pl.Mem.Mat)
                rhs = pl.load(b, [s * TK, col], [TK, TN], target_memory=pl.Mem.Mat)
                acc = pl.matmul(lhs, rhs) if s == 0 else pl.matmul_acc(acc, lhs, rhs)
            c = pl.store(acc, [src * M + t * TM, col], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def on_device(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
        gathered: pl.InOut[pld.DistributedTensor[[ROWS, K], pl.FP16]],
        ready: pl.InOut[pld.DistributedTensor[[P, M_TILES], pl.INT32]],
    ):
        with pl.manual_scope():
            _, sent = pl.spmd_submit(self.send_tiles, a, gathered, ready, core_num=ARGS.comm_cores)
            deps = [sent] if ARGS.sync else []
            c, _ = pl.spmd_submit(self.multiply, a, gathered, ready, b, c, core_num=ARGS.gemm_cores, deps=deps)
        return c

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        a: pl.Tensor[[P, M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        c: pl.Out[pl.Tensor[[P, ROWS, N], pl.FP32]],
    ):
        gathered_buf = pld.alloc_window_buffer([ROWS, K], dtype=pl.FP16)
        ready_buf = pld.alloc_window_buffer([P, M_TILES], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            gathered = pld.window(gathered_buf, [ROWS, K], dtype=pl.FP16)
            ready = pld.window(ready_buf, [P, M_TILES], dtype=pl.INT32)
            self.on_device(a[r], b, c[r], gathered, ready, device=r)
        return c


def main() -> int:
    compiled = ir.compile(AllgatherGemm, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=DEVICES))
    a = (torch.randn(P, M, K) * 0.1).to(torch.float16)
    b = (torch.randn(K, N) * 0.1).to(torch.float16)
    c = torch.zeros(P, ROWS, N)
    compiled(a, b, c, config=RunConfig(platform="a2a3sim"))
    want = a.reshape(ROWS, K).float() @ b.float()
    for r in range(P):
        diff = (c[r] - want).abs().max().item()
        if not torch.allclose(c[r], want, rtol=1e-3, atol=1e-3):
            print(f"rank {r}: C differs from torch's A @ B by up to {diff:g}")
            return 1
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
