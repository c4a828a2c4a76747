"""Collectives written in a chip-level orchestration body (upstream's L2
rail, PR #2635): the host dispatches one FunctionType.Orchestration
function per rank, and that body calls pld.tensor.all_to_all_v and
pld.tensor.allreduce itself, between two InCore kernels.  Each call is a
builtin kernel launched on that rank; nothing else is dispatched.

    pldsim-py chip_collectives.py [CORE_NUM] -d 0,1,...

CORE_NUM: the all_to_all_v's launch width (default 1: the mesh form)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

ARGS = sys.argv[1:]
DEVICES = [0, 1]
if "-d" in ARGS:
    at = ARGS.index("-d")
    DEVICES = [int(d) for d in ARGS[at + 1].split(",")]
    del ARGS[at:at + 2]
CORES = int(ARGS[0]) if ARGS else 1
P = len(DEVICES)
ROWS, COLS = 4, 64  # all_to_all_v: MAX_RECV rows of COLS FP32 a block
STRIDE = max(CORES, 1)


@pl.program
class ChipCollectives:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(
        self,
        x: pl.Tensor[[P * ROWS, COLS], pl.FP32],
        n: pl.Tensor[[P, 1], pl.INT32],
        inp: pl.InOut[pld.DistributedTensor[[P * ROWS, COLS], pl.FP32]],
        cnt: pl.InOut[pld.DistributedTensor[[P, 1], pl.INT32]],
        data: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
    ):
        pl.store(pl.load(x, [0, 0], [P * ROWS, COLS]), [0, 0], inp)
        pl.store(pl.load(x, [0, 0], [1, COLS]), [0, 0], data)
        for d in pl.range(P):
            pl.write(cnt, [d, 0], pl.read(n, [d, 0]))

    @pl.function(type=pl.FunctionType.InCore)
    def collect(
        self,
        target: pld.DistributedTensor[[P * ROWS, COLS], pl.FP32],
        recv: pld.DistributedTensor[[P, 1], pl.INT32],
        data: pld.DistributedTensor[[1, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[P * ROWS + 1, COLS], pl.FP32]],
        got: pl.Out[pl.Tensor[[P, 1], pl.INT32]],
    ) -> pl.Tensor[[P * ROWS + 1, COLS], pl.FP32]:
        y = pl.store(pl.load(target, [0, 0], [P * ROWS, COLS]), [0, 0], y)
        y = pl.store(pl.load(data, [0, 0], [1, COLS]), [P * ROWS, 0], y)
        for s in pl.range(P):
            pl.write(got, [s, 0], pl.read(recv, [s, 0]))
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[P * ROWS, COLS], pl.FP32],
        n: pl.Tensor[[P, 1], pl.INT32],
        y: pl.Out[pl.Tensor[[P * ROWS + 1, COLS], pl.FP32]],
        got: pl.Out[pl.Tensor[[P, 1], pl.INT32]],
        inp: pl.InOut[pld.DistributedTensor[[P * ROWS, COLS], pl.FP32]],
        target: pl.InOut[pld.DistributedTensor[[P * ROWS, COLS], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[P, STRIDE], pl.INT32]],
        cnt: pl.InOut[pld.DistributedTensor[[P, 1], pl.INT32]],
        recv: pl.InOut[pld.DistributedTensor[[P, 1], pl.INT32]],
        data: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
        mesh: pl.InOut[pld.DistributedTensor[[P, 1], pl.INT32]],
    ) -> pl.Tensor[[P * ROWS + 1, COLS], pl.FP32]:
        self.stage(x, n, inp, cnt, data)
        target = pld.tensor.all_to_all_v(inp, target, sig, cnt, recv, core_num=CORES)  # FAULT a2av
        data = pld.tensor.allreduce(data, mesh)  # FAULT allreduce
        return self.collect(target, recv, data, y, got)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        xs: pl.Tensor[[P, P * ROWS, COLS], pl.FP32],
        ns: pl.Tensor[[P, P, 1], pl.INT32],
        ys: pl.Out[pl.Tensor[[P, P * ROWS + 1, COLS], pl.FP32]],
        gots: pl.Out[pl.Tensor[[P, P, 1], pl.INT32]],
    ) -> pl.Tensor[[P, P * ROWS + 1, COLS], pl.FP32]:
        inp_buf = pld.alloc_window_buffer([P * ROWS, COLS], dtype=pl.FP32)
        target_buf = pld.alloc_window_buffer([P * ROWS, COLS], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([(P * STRIDE + 15) // 16 * 16], dtype=pl.INT32)
        cnt_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
        recv_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
        data_buf = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
        mesh_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            self.chip(xs[r], ns[r], ys[r], gots[r],
                      pld.window(inp_buf, [P * ROWS, COLS], dtype=pl.FP32),
                      pld.window(target_buf, [P * ROWS, COLS], dtype=pl.FP32),
                      pld.window(sig_buf, [P, STRIDE], dtype=pl.INT32),
                      pld.window(cnt_buf, [P, 1], dtype=pl.INT32),
                      pld.window(recv_buf, [P, 1], dtype=pl.INT32),
                      pld.window(data_buf, [1, COLS], dtype=pl.FP32),
                      pld.window(mesh_buf, [P, 1], dtype=pl.INT32), device=r)
        return ys


def count(r: int, d: int) -> int:
    return (r + 2 * d) % (ROWS + 2)


compiled = ir.compile(ChipCollectives, platform="a2a3sim", distributed_config=DistributedConfig(device_ids=DEVICES))
xs = torch.stack([torch.arange(P * ROWS * COLS, dtype=torch.float32).reshape(P * ROWS, COLS) + 1000 * r for r in range(P)])
ns = torch.tensor([[[count(r, d)] for d in range(P)] for r in range(P)], dtype=torch.int32)
ys = torch.zeros(P, P * ROWS + 1, COLS)
gots = torch.full((P, P, 1), -1, dtype=torch.int32)
compiled(xs, ns, ys, gots)
total = sum(xs[r][0] for r in range(P))
for me in range(P):
    for s in range(P):
        want = min(count(s, me), ROWS)
        assert gots[me, s, 0] == want, f"rank {me}: recv_counts[{s}] = {int(gots[me, s, 0])}, not {want}"
        block = ys[me, s * ROWS:(s + 1) * ROWS]
        assert torch.equal(block[:want], xs[s, me * ROWS:me * ROWS + want]), f"rank {me}: rows from {s}"
        assert not block[want:].any(), f"rank {me}: rows past the count from {s} do not read 0"
    assert torch.equal(ys[me, P * ROWS], total), f"rank {me}: the allreduce gave {ys[me, P * ROWS, :4].tolist()}"
print("OK")
