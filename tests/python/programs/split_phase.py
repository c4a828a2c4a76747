"""Split-phase collectives (upstream's defer=True, PR #2682), for the task
tests: each of P ranks gathers 256 FP32 and runs a 64-step add loop that
does not need the gathered rows, then a consumer copies the rows out.

    pldsim-py split_phase.py MODE [COLLECTIVE [LOOP]]

MODE: fused (the blocking collective and the loop in one task, in that
order: the loop waits for the peers), deferred (the collective with
defer=True in a task of its own, the loop in another, the consumer after
both: the loop runs while the peers' credits travel), and the misuses
incore (defer=True in a kernel called directly), twice (two split-phase
calls in one task), allreduce (an allreduce with defer=True), chip and
host (defer=True on a per-device function's and the host's collective,
which are builtin kernels).
COLLECTIVE: allgather (default), all_to_all, all_to_all_v, broadcast or
barrier; each checks its own result.  LOOP: the add loop's steps
(default 64, upstream's measurement)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
COLL = sys.argv[2] if len(sys.argv) > 2 else "allgather"
LOOP = int(sys.argv[3]) if len(sys.argv) > 3 else 64
P = 2
N = 256


def collective(local, target, signal, counts, recv, defer):
    """The collective under test; every rank's result lands in `target`."""
    if COLL == "allgather":
        pld.tensor.allgather(local, target, signal, defer=defer)
    elif COLL == "all_to_all":
        pld.tensor.all_to_all(local, target, signal, defer=defer)
    elif COLL == "all_to_all_v":
        pld.tensor.all_to_all_v(local, target, signal, counts, recv, defer=defer)
    elif COLL == "broadcast":
        row = pl.load(local, [0, 0], [1, N])  # root's data, and the others' to be overwritten
        for r in pl.range(P):
            pl.store(row, [r, 0], target)
        pld.tensor.broadcast(target, signal, root=0, defer=defer)
    else:
        pld.tensor.barrier(signal, defer=defer)


@pl.jit.incore
def direct(local: pl.Tensor[[P, N], pl.FP32], target: pld.DistributedTensor[[P, N], pl.FP32], signal: pld.DistributedTensor[[P, 1], pl.INT32]):
    pld.tensor.allgather(local[0:1, :], target, signal, defer=True)  # FAULT incore


@pl.jit
def chip(
    local: pl.Tensor[[P, N], pl.FP32],
    work: pl.Tensor[[1, N], pl.FP32],
    counts: pl.Tensor[[P], pl.INT32],
    out: pl.Out[pl.Tensor[[P + 1, N], pl.FP32]],
    target: pl.InOut[pld.DistributedTensor[[P, N], pl.FP32]],
    signal: pl.InOut[pld.DistributedTensor[[P, 1], pl.INT32]],
    recv: pl.InOut[pld.DistributedTensor[[P], pl.INT32]],
):
    mine = local if COLL in ("all_to_all", "all_to_all_v") else local[0:1, :]
    if MODE == "incore":
        direct(local, target, signal)
        return out
    if MODE == "chip":
        pld.tensor.barrier(signal, defer=True)  # FAULT chip
    with pl.manual_scope():
        if MODE == "fused":
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused") as tid:
                collective(mine, target, signal, counts, recv, False)
                acc = pl.load(work, [0, 0], [1, N])
                one = pl.load(work, [0, 0], [1, N])
                for _ in pl.range(LOOP):
                    acc = pl.add(acc, one)
                out = pl.store(acc, [P, 0], out)
            deps = [tid]
        else:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather") as gather_tid:
                if MODE == "allreduce":
                    pld.tensor.allreduce(target, signal, defer=True)  # FAULT allreduce
                collective(mine, target, signal, counts, recv, True)
                if MODE == "twice":
                    pld.tensor.barrier(signal, defer=True)  # FAULT twice
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="compute") as compute_tid:
                acc = pl.load(work, [0, 0], [1, N])
                one = pl.load(work, [0, 0], [1, N])
                for _ in pl.range(LOOP):
                    acc = pl.add(acc, one)
                out = pl.store(acc, [P, 0], out)
            deps = [gather_tid, compute_tid]
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="consume", deps=deps):
            rows = pl.load(target, [0, 0], [P, N])
            out = pl.store(rows, [0, 0], out)
    return out


@pl.jit.host
def host(
    local: pl.Tensor[[P, P, N], pl.FP32],
    work: pl.Tensor[[P, 1, N], pl.FP32],
    counts: pl.Tensor[[P, P], pl.INT32],
    out: pl.Out[pl.Tensor[[P, P + 1, N], pl.FP32]],
):
    target_buf = pld.alloc_window_buffer([P, N], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)  # a cache line of its own
    recv_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        target = pld.window(target_buf, [P, N], dtype=pl.FP32)
        signal = pld.window(signal_buf, [P, 1], dtype=pl.INT32)
        recv = pld.window(recv_buf, [P], dtype=pl.INT32)
        if MODE == "host":
            pld.tensor.barrier(signal, defer=True)  # FAULT host
        chip(local[r], work[r], counts[r], out[r], target, signal, recv, device=r)


def main() -> None:
    local = torch.stack([torch.arange(P * N, dtype=torch.float32).reshape(P, N) + 1000 * r for r in range(P)])
    work = torch.full((P, 1, N), 1.0)
    counts = torch.full((P, P), 1, dtype=torch.int32)
    out = torch.zeros((P, P + 1, N))
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(P))))
    host.compile(local, work, counts, out, config=cfg)(local, work, counts, out)
    loop = work[0] * (LOOP + 1)
    for r in range(P):
        if COLL == "allgather":
            want = torch.stack([local[s][0] for s in range(P)])
        elif COLL == "all_to_all":
            want = torch.stack([local[s][r] for s in range(P)])
        elif COLL == "all_to_all_v":
            want = torch.stack([local[s][r] for s in range(P)])  # one row a block, all sent
        elif COLL == "broadcast":
            want = torch.stack([local[0][0]] * P)
        else:
            want = None  # barrier: only the loop and the run's own checks
        if want is not None:
            assert torch.equal(out[r][:P], want), f"rank {r}: rows {out[r][:P, :4].tolist()}"
        assert torch.equal(out[r][P:], loop), f"rank {r}: loop {out[r][P, :4].tolist()}"
    print("OK")


if __name__ == "__main__":
    main()
