"""Step 10: allreduce around a ring.  Each rank talks only to its
neighbours: P-1 rounds of reduce-scatter, then P-1 rounds of allgather,
each round on its own signal row (signal [2(nr-1), nr]), each moving one
chunk of SIZE/P per rank over one link.  The chunk width comes from the
host as an INDEX scalar.  P must divide SIZE = 64.  Golden:
y[r] = sum_k x[k].  Default P = 4."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def ring_allreduce(nr: int):
    if SIZE % nr:
        raise ValueError(f"SIZE={SIZE} splits into one chunk per rank, so the rank count must divide it; got {nr}")
    rounds, chunk = 2 * (nr - 1), SIZE // nr

    @pl.program
    class RingAllreduce:
        @pl.function(type=pl.FunctionType.InCore)
        def ring(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            scratch: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[rounds, nr], pl.INT32]],
            width: pl.Scalar[pl.INDEX],
        ):
            ctx = pld.get_comm_ctx(scratch)
            me, n = pld.rank(ctx), pld.nranks(ctx)
            left, right = (me - 1 + n) % n, (me + 1) % n
            for c in pl.range(n):  # stage in, chunk by chunk
                scratch = pl.store(pl.load(x, [0, c * width], [1, chunk]), [0, c * width], scratch)
            pld.system.notify(signal, peer=right, offsets=[0, me], value=1, op=pld.NotifyOp.AtomicAdd)
            # reduce-scatter: in round s pull the left neighbour's chunk
            # (me - s - 2) mod P and add it into ours; tell the right one
            for s in pl.range(n - 1):
                c = (me - s - 2 + 2 * n) % n
                pld.system.wait(signal, offsets=[s, left], expected=1, cmp=pld.WaitCmp.Ge)
                theirs = pld.tile.remote_load(scratch, peer=left, offsets=[0, c * width], shape=[1, chunk])
                ours = pl.load(scratch, [0, c * width], [1, chunk])
                scratch = pl.store(pl.add(ours, theirs), [0, c * width], scratch)
                pld.system.notify(signal, peer=right, offsets=[s + 1, me], value=1, op=pld.NotifyOp.AtomicAdd)
            # allgather: rank me holds the whole sum of chunk me; pass it round
            for s in pl.range(n - 1):
                row = n - 1 + s
                c = (me - s - 1 + 2 * n) % n
                pld.system.wait(signal, offsets=[row, left], expected=1, cmp=pld.WaitCmp.Ge)
                theirs = pld.tile.remote_load(scratch, peer=left, offsets=[0, c * width], shape=[1, chunk])
                scratch = pl.store(theirs, [0, c * width], scratch)
                if s < n - 2:  # the last round has no row after it
                    pld.system.notify(signal, peer=right, offsets=[row + 1, me], value=1, op=pld.NotifyOp.AtomicAdd)
            for c in pl.range(n):  # stage out
                y = pl.store(pl.load(scratch, [0, c * width], [1, chunk]), [0, c * width], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            scratch: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[rounds, nr], pl.INT32]],
            width: pl.Scalar[pl.INDEX],
        ):
            return self.ring(x, y, scratch, signal, width)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            scratch_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([rounds, nr], dtype=pl.INT32)
            for r in pl.range(nr):
                scratch = pld.window(scratch_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [rounds, nr], dtype=pl.INT32)
                self.on_device(x[r], y[r], scratch, signal, SIZE // nr, device=r)
            return y

    return RingAllreduce


def main() -> int:
    args, ids = stepkit.parse("10_allreduce_ring", default_devices="0,1,2,3")
    nr = len(ids)
    program = ring_allreduce(nr)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, stepkit.allreduce_golden(x), f"ring allreduce at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
