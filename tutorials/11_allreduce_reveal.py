"""Step 11: the reveal.  Steps 08-10 built allreduce by hand; here it is
one call, pld.tensor.allreduce(data, signal, op=Sum, mode=...), which
lowers to the same notify/wait/remote_load primitives (the C step's
--show-lowering prints them).  Mesh takes a signal [nr, 1], ring
[2(nr-1), nr].  Golden: y[r] = sum_k x[k].  Default P = 4."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64


def builtin_allreduce(nr: int, mode: str):
    rows, cols = (2 * (nr - 1), nr) if mode == "ring" else (nr, 1)

    @pl.program
    class Reveal:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ):
            data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            data = pld.tensor.allreduce(data, signal, op=pld.ReduceOp.Sum, mode=mode)
            return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ):
            return self.reduce(x, y, data, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[nr, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]]):
            data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([rows, cols], dtype=pl.INT32)
            for r in pl.range(nr):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [rows, cols], dtype=pl.INT32)
                self.on_device(x[r], y[r], data, signal, device=r)
            return y

    return Reveal


def main() -> int:
    args, ids = stepkit.parse("11_allreduce_reveal", default_devices="0,1,2,3", modes=("mesh", "ring"))
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    program = builtin_allreduce(nr, args.mode)
    compiled = ir.compile(program, platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, y)
    return stepkit.finish(y, stepkit.allreduce_golden(x), f"builtin {args.mode} allreduce at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
