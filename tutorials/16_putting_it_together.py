"""Step 16: putting it together.  One kernel runs three collectives, each
on its own window and signal: the root's weights are broadcast (one
unsliced weights tensor goes to every rank; only the root reads it); x is
allreduced (Sum, mesh) into allred; x is allgathered, and each gathered row
times the weights goes into gathered.  Inputs x[r] = arange(100r, 100r +
64), weights = arange(1, 65).  Golden: allred[r] = sum_k x[k];
gathered[r] = concat_k(x[k] * w).  Default P = 2."""

import pypto.language as pl
import pypto.language.distributed as pld
import stepkit
import torch
from pypto import ir

SIZE = 64
ROOT = 0


def together(nr: int):
    @pl.program
    class Together:
        @pl.function(type=pl.FunctionType.InCore)
        def compose(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            weights: pl.Tensor[[1, SIZE], pl.FP32],
            allred: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            gathered: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            w_data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            ar_data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            ag_data: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig_bcast: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_ar: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_ag: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            me = pld.rank(pld.get_comm_ctx(w_data))
            if me == ROOT:
                w_data = pl.store(pl.load(weights, [0, 0], [1, SIZE]), [0, 0], w_data)
            w_data = pld.tensor.broadcast(w_data, sig_bcast, root=ROOT)
            w = pl.load(w_data, [0, 0], [1, SIZE])  # live through both collectives below

            ar_data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], ar_data)
            ar_data = pld.tensor.allreduce(ar_data, sig_ar, op=pld.ReduceOp.Sum, mode="mesh")
            allred = pl.store(pl.load(ar_data, [0, 0], [1, SIZE]), [0, 0], allred)

            ag_data = pld.tensor.allgather(x, ag_data, sig_ag)
            for k in pl.range(nr):
                row = pl.mul(pl.load(ag_data, [k, 0], [1, SIZE]), w)
                gathered = pl.store(row, [0, k * SIZE], gathered)
            return gathered

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_device(self, x, weights, allred, gathered, w_data, ar_data, ag_data, sig_bcast, sig_ar, sig_ag):
            # unannotated: the kernel's annotations check the same arguments
            return self.compose(x, weights, allred, gathered, w_data, ar_data, ag_data, sig_bcast, sig_ar, sig_ag)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            weights: pl.Tensor[[1, SIZE], pl.FP32],
            allred: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            gathered: pl.Out[pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]],
        ):
            w_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            ar_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            ag_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            # Each signal fills whole 64-byte lines: TWAIT and TNOTIFY act on
            # a line, so two signals sharing one corrupt each other on
            # hardware (pypto#2800).
            sig_bytes = (nr * 4 + 63) // 64 * 64
            sig_bcast = pld.alloc_window_buffer(sig_bytes)
            sig_ar = pld.alloc_window_buffer(sig_bytes)
            sig_ag = pld.alloc_window_buffer(sig_bytes)
            for r in pl.range(pld.world_size()):
                views = [
                    pld.window(w_buf, [1, SIZE], dtype=pl.FP32),
                    pld.window(ar_buf, [1, SIZE], dtype=pl.FP32),
                    pld.window(ag_buf, [nr, SIZE], dtype=pl.FP32),
                ] + [pld.window(s, [nr, 1], dtype=pl.INT32) for s in (sig_bcast, sig_ar, sig_ag)]
                self.on_device(x[r], weights, allred[r], gathered[r], *views, device=r)
            return gathered

    return Together


def main() -> int:
    args, ids = stepkit.parse("16_putting_it_together")
    nr = len(ids)
    x = stepkit.ramps(nr, SIZE)
    weights = torch.arange(1.0, 1.0 + SIZE).reshape(1, SIZE)
    allred = torch.zeros(nr, 1, SIZE)
    gathered = torch.zeros(nr, 1, nr * SIZE)
    compiled = ir.compile(together(nr), platform=args.platform, distributed_config=stepkit.distributed(ids))
    if stepkit.compile_only(args, compiled):
        return 0
    compiled(x, weights, allred, gathered)
    stepkit.check(allred, stepkit.allreduce_golden(x), f"allreduce at P={nr}")
    want = torch.cat([x[k] * weights for k in range(nr)], dim=1).expand(nr, 1, -1).contiguous()
    return stepkit.finish(gathered, want, f"allgather times weights at P={nr}")


if __name__ == "__main__":
    raise SystemExit(main())
