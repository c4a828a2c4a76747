"""Step 12: broadcast from root 0.  --mode hand (default): only the root
stores its x into the window, a barrier, then every rank (the root too)
pulls the root's copy; the root comes in as an INT32 scalar.  --mode
builtin: again only the root stores, then pld.tensor.broadcast does the
rest.  Inputs x[r] = arange(100r, 100r + 64).  Golden: y[r] = x[0], and no
other rank's input leaks.  Default P = 2."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64
ROOT = 0


def broadcast_program(nr: int, builtin: bool):
    @pl.program
    class Broadcast:
        @pl.function(type=pl.FunctionType.InCore)
        def by_hand(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            root: pl.Scalar[pl.INT32],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            if me == root:
                data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            stepkit.hand_barrier(signal, me, nr)  # the root's data is in place
            return pl.store(pld.tile.remote_load(data, peer=root, offsets=[0, 0], shape=[1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def built_in(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            if pld.rank(pld.get_comm_ctx(data)) == ROOT:
                data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            data = pld.tensor.broadcast(data, signal, root=ROOT)
            return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def hand_on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            root: pl.Scalar[pl.INT32],
        ):
            return self.by_hand(x, y, data, signal, root)

        @pl.function(type=pl.FunctionType.Orchestration)
        def builtin_on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            return self.built_in(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            # the byte form: SIZE floats and nr signal cells
            data_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
            signal_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                if builtin:
                    self.builtin_on_device(x[r], y[r], data, signal, device=r)
                else:
                    self.hand_on_device(x[r], y[r], data, signal, ROOT, device=r)
            return y

    return Broadcast


def main() -> int:
    args, ids = stepkit.parse("12_broadcast", modes=("hand", "builtin"))
    nr = len(ids)
    x = stepkit.ramps(nr, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    program = broadcast_program(nr, args.mode == "builtin")
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    for r in range(1, nr):
        if torch.equal(y[r], x[r]):
            raise SystemExit(f"FAIL: rank {r}'s own input leaked into its output")
    return stepkit.finish(y, x[ROOT].expand_as(x).contiguous(), f"{args.mode} broadcast at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
