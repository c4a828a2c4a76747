"""Step 13: allgather.  Afterwards every rank holds every rank's vector:
y[r] = concat_k x[k], shape [1, nr * 64].  --mode hand (default): store x
into row me of our window [nr, 64], a barrier, then pull row p from rank p
for every p (ourselves too).  --mode builtin: pld.tensor.allgather pushes
x into row me of every rank's window, then a barrier; we read the rows.
Inputs x[r] = arange(100r, 100r + 64).  Default P = 2."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def allgather_program(nr: int, builtin: bool):
    @pl.program
    class AllGather:
        @pl.function(type=pl.FunctionType.InCore)
        def by_hand(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [me, 0], data)
            stepkit.hand_barrier(signal, me, nr)
            for p in pl.range(nr):
                row = pld.tile.remote_load(data, peer=p, offsets=[p, 0], shape=[1, SIZE])
                y = pl.store(row, [0, p * SIZE], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def built_in(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            # the source is the plain host tensor x; row src = rank src's x
            data = pld.tensor.allgather(x, data, signal)
            for p in pl.range(nr):
                y = pl.store(pl.load(data, [p, 0], [1, SIZE]), [0, p * SIZE], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            if builtin:
                return self.built_in(x, y, data, signal)
            return self.by_hand(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer(nr * SIZE * pl.FP32.get_byte())
            signal_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [nr, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, signal, device=r)
            return y

    return AllGather


def main() -> int:
    args, ids = stepkit.parse("13_allgather", modes=("hand", "builtin"))
    nr = len(ids)
    x = stepkit.ramps(nr, SIZE)
    y = torch.zeros(nr, 1, nr * SIZE)
    program = allgather_program(nr, args.mode == "builtin")
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    everything = torch.cat([x[k, 0] for k in range(nr)]).view(1, 1, -1).expand(nr, 1, -1).contiguous()
    return stepkit.finish(y, everything, f"{args.mode} allgather at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
