"""Step 08: allreduce on a full mesh, by hand, in the class form
(@pl.program, @pl.function, ir.compile).  Stage x in the window, a barrier,
then pull every peer's whole vector and add it to our own.  The signal
[nr, 1] depends on the rank count, so a factory builds the program for the
count given with -d.  Golden: y[r] = sum_k x[k].  Default P = 4."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def mesh_allreduce(nr: int):
    @pl.program
    class MeshAllreduce:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(data))
            data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(signal, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
            # every rank's vector is in place: add them up, our own first
            acc = pl.load(data, [0, 0], [1, SIZE])
            for peer in pl.range(nr):
                if peer != me:
                    acc = pl.add(acc, pld.tile.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, SIZE]))
            # nobody writes data again, so no second barrier
            return pl.store(acc, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            return self.reduce(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, signal, device=r)
            return y

    return MeshAllreduce


def main() -> int:
    args, ids = stepkit.parse("08_allreduce_mesh", default_devices="0,1,2,3")
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(mesh_allreduce(nr), platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, stepkit.allreduce_golden(x), f"mesh allreduce at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
