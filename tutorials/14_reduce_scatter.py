"""Step 14: reduce-scatter.  Every rank's x is nr chunks of 64; afterwards
rank r holds the sum over ranks of chunk r: y[r] = sum_k x[k][r*64 :
(r+1)*64].  Both modes first store chunk c of x into row c of the window
[nr, 64].  --mode hand (default): a barrier, then add row me of every
peer's window to ours.  --mode builtin: pld.tensor.reduce_scatter (Sum),
then read row me.  Inputs x[r] = arange(100r, 100r + nr*64).  Default P = 2."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def reduce_scatter_program(nr: int, builtin: bool):
    @pl.program
    class ReduceScatter:
        @pl.function(type=pl.FunctionType.InCore)
        def by_hand(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            for c in pl.range(nr):
                data = pl.store(pl.load(x, [0, c * SIZE], [1, SIZE]), [c, 0], data)
            stepkit.hand_barrier(signal, me, nr)
            acc = pl.load(data, [me, 0], [1, SIZE])
            for peer in pl.range(nr):
                if peer != me:
                    acc = pl.add(acc, pld.tile.remote_load(data, peer=peer, offsets=[me, 0], shape=[1, SIZE]))
            return pl.store(acc, [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def built_in(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            for c in pl.range(nr):
                data = pl.store(pl.load(x, [0, c * SIZE], [1, SIZE]), [c, 0], data)
            data = pld.tensor.reduce_scatter(data, signal, op=pld.ReduceOp.Sum)
            return pl.store(pl.load(data, [me, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            if builtin:
                return self.built_in(x, y, data, signal)
            return self.by_hand(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, nr * SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer(nr * SIZE * pl.FP32.get_byte())
            signal_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [nr, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, signal, device=r)
            return y

    return ReduceScatter


def main() -> int:
    args, ids = stepkit.parse("14_reduce_scatter", modes=("hand", "builtin"))
    nr = len(ids)
    x = stepkit.ramps(nr, nr * SIZE)
    y = torch.zeros(nr, 1, SIZE)
    program = reduce_scatter_program(nr, args.mode == "builtin")
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    sums = x.sum(dim=0).view(nr, SIZE).view(nr, 1, SIZE)
    return stepkit.finish(y, sums, f"{args.mode} reduce-scatter at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
