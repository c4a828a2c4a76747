"""Step 15: all-to-all.  Row d of rank r's x is meant for rank d;
afterwards row s of rank r's y is what rank s meant for r.  --mode hand
(default): put x[d] into row me of rank d's window for every d (ourselves
too: a put to self is a local copy), then a barrier whose notifies Set the
cells, and read the rows.  --mode builtin: pld.tensor.all_to_all.  Inputs
x[r, d, j] = 1000r + 100d + j; golden y[r, s, j] = 1000s + 100r + j.
Default P = 2."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def all_to_all_program(nr: int, builtin: bool):
    @pl.program
    class AllToAll:
        @pl.function(type=pl.FunctionType.InCore)
        def by_hand(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            for dest in pl.range(nr):
                # dst, peer, src, then dst_offsets, src_offsets, shape
                pld.tensor.put(data, dest, x, [me, 0], [dest, 0], [1, SIZE])
            # each cell has one writer, so a Set does as well as an add
            stepkit.hand_barrier(signal, me, nr, op=pld.NotifyOp.Set)
            for src in pl.range(nr):
                y = pl.store(pl.load(data, [src, 0], [1, SIZE]), [src, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def built_in(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            got = pld.tensor.all_to_all(x, data, signal)
            for src in pl.range(nr):
                y = pl.store(pl.load(got, [src, 0], [1, SIZE]), [src, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            if builtin:
                return self.built_in(x, y, data, signal)
            return self.by_hand(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, nr, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer(nr * SIZE * pl.FP32.get_byte())
            signal_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [nr, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, signal, device=r)
            return y

    return AllToAll


def main() -> int:
    args, ids = stepkit.parse("15_all_to_all", modes=("hand", "builtin"))
    nr = len(ids)
    r = torch.arange(nr, dtype=torch.float32).view(nr, 1, 1)
    d = torch.arange(nr, dtype=torch.float32).view(1, nr, 1)
    j = torch.arange(SIZE, dtype=torch.float32).view(1, 1, SIZE)
    x = (1000 * r + 100 * d + j).contiguous()
    y = torch.zeros(nr, nr, SIZE)
    program = all_to_all_program(nr, args.mode == "builtin")
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, (1000 * d + 100 * r + j).contiguous(), f"{args.mode} all-to-all at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
