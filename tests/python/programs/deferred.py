"""Deferred completion on a device's task graph, for the task tests: each
of two ranks fills its cores with waiter tasks, each with a consumer that
depends on it, and submits last the publisher that writes its peer's
payload and notifies it (upstream's test_l3_deferred_completion shape).

    pldsim-py deferred.py MODE WAITERS

MODE: deferred (pld.system.defer_wait), blocking (pld.system.wait: with
WAITERS = the cores, every core is in a wait before the publisher runs),
and the misuses incore (defer_wait in a kernel called directly), eq
(cmp=Eq), negative (expected=-1), foreign-dep (a dep that is not a task
id), host-level (pl.at with level=HOST), returns (a pl.at body that
returns)."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
WAITERS = int(sys.argv[2])
WIDTH = 16  # a whole cache line, so that the signal has its own


@pl.jit.incore
def direct(signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)  # FAULT incore


@pl.jit
def chip(
    inp: pl.Tensor[[1, WIDTH], pl.INT32],
    out: pl.Out[pl.Tensor[[WAITERS, WIDTH], pl.INT32]],
    payload: pl.InOut[pld.DistributedTensor[[1, WIDTH], pl.INT32]],
    signal: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    peer: pl.Scalar[pl.INT32],
):
    if MODE == "incore":
        direct(signal)
        return out
    with pl.manual_scope():
        for slot in pl.range(WAITERS):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter") as wait_tid:
                epoch = pl.read(inp, [0, 0])
                if MODE == "blocking":
                    pld.system.wait(signal, offsets=[0, 0], expected=epoch, cmp=pld.WaitCmp.Ge)
                elif MODE == "eq":
                    pld.system.defer_wait(signal, offsets=[0, 0], expected=epoch, cmp=pld.WaitCmp.Eq)  # FAULT eq
                elif MODE == "negative":
                    pld.system.defer_wait(signal, offsets=[0, 0], expected=-1, cmp=pld.WaitCmp.Ge)  # FAULT negative
                else:
                    pld.system.defer_wait(signal, offsets=[0, 0], expected=epoch, cmp=pld.WaitCmp.Ge)
            deps = [slot] if MODE == "foreign-dep" else [wait_tid]
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="consumer", deps=deps):  # FAULT foreign-dep
                received = pl.load(payload, [0, 0], [1, WIDTH])
                out = pl.store(received, [slot, 0], out)
        level = pl.Level.HOST if MODE == "host-level" else pl.Level.CORE_GROUP
        with pl.at(level=level, name_hint="publisher"):  # FAULT host-level
            mine = pl.load(inp, [0, 0], [1, WIDTH])
            pld.tile.remote_store(mine, target=payload, peer=peer, offsets=[0, 0])
            epoch = pl.read(inp, [0, 0])
            pld.system.notify(signal, peer=peer, offsets=[0, 0], value=epoch, op=pld.NotifyOp.Set)
    return out


@pl.jit
def returning(signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    with pl.manual_scope():
        with pl.at(level=pl.Level.CORE_GROUP):
            return signal  # FAULT returns


@pl.jit.host
def host(inputs: pl.Tensor[[2, 1, WIDTH], pl.INT32], outputs: pl.Out[pl.Tensor[[2, WAITERS, WIDTH], pl.INT32]]):
    payload_buf = pld.alloc_window_buffer([1, WIDTH], dtype=pl.INT32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        payload = pld.window(payload_buf, [1, WIDTH], dtype=pl.INT32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        if MODE == "returns":
            returning(signal, device=r)
        else:
            chip(inputs[r], outputs[r], payload, signal, (r + 1) % pld.world_size(), device=r)


def main() -> None:
    inputs = torch.stack([torch.full((1, WIDTH), r + 1, dtype=torch.int32) for r in range(2)])
    inputs[:, :, 0] = 1  # the epoch
    outputs = torch.full((2, WAITERS, WIDTH), -1, dtype=torch.int32)
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
    host.compile(inputs, outputs, config=cfg)(inputs, outputs)
    for r in range(2):
        want = torch.full((WAITERS, WIDTH), 2 - r, dtype=torch.int32)
        want[:, 0] = 1
        assert torch.equal(outputs[r], want), f"rank {r}: got {outputs[r].tolist()}"
    print("OK")


if __name__ == "__main__":
    main()
