"""Step 09: allreduce in two phases.  Split the vector into P chunks;
reduce-scatter (rank me sums chunk me over every rank into `result`), then
allgather (every rank pulls chunk c of `result` from rank c).  Two
barriers, on rows 0 and 1 of signal [2, nr].  P must divide SIZE = 64.
Golden: y[r] = sum_k x[k].  Default P = 4."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def two_phase_allreduce(nr: int):
    if SIZE % nr:
        raise ValueError(f"SIZE={SIZE} splits into one chunk per rank, so the rank count must divide it; got {nr}")
    chunk = SIZE // nr

    @pl.program
    class TwoPhase:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            result: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ):
            ctx = pld.get_comm_ctx(data)
            me, n = pld.rank(ctx), pld.nranks(ctx)

            def barrier(row):
                for peer in pl.range(n):
                    if peer != me:
                        pld.system.notify(signal, peer=peer, offsets=[row, me], value=1, op=pld.NotifyOp.AtomicAdd)
                for src in pl.range(n):
                    if src != me:
                        pld.system.wait(signal, offsets=[row, src], expected=1, cmp=pld.WaitCmp.Ge)

            data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            barrier(0)  # every rank's data is staged
            acc = pl.load(data, [0, me * chunk], [1, chunk])
            for peer in pl.range(n):
                if peer != me:
                    acc = pl.add(acc, pld.tile.remote_load(data, peer=peer, offsets=[0, me * chunk], shape=[1, chunk]))
            result = pl.store(acc, [0, me * chunk], result)
            barrier(1)  # every chunk is summed
            for c in pl.range(n):  # our own chunk too: a remote_load to self is a local copy
                y = pl.store(pld.tile.remote_load(result, peer=c, offsets=[0, c * chunk], shape=[1, chunk]), [0, c * chunk], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            result: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ):
            return self.reduce(x, y, data, result, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            result_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([2, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                result = pld.window(result_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [2, nr], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, result, signal, device=r)
            return y

    return TwoPhase


def main() -> int:
    args, ids = stepkit.parse("09_allreduce_two_phase", default_devices="0,1,2,3")
    nr = len(ids)
    program = two_phase_allreduce(nr)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, stepkit.allreduce_golden(x), f"two-phase allreduce at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
