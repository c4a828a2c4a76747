"""A two-rank program with one fault per mode, for the error-path tests.

    pldsim-py faults.py MODE

MODE: ok, python-error (a ZeroDivisionError in rank 1's kernel), misuse (a
remote_load from a rank that does not exist), bad-type (a host tensor where
pld.tensor.put wants a window view), caught (the same, caught by the
kernel, which goes on), deadlock (each rank waits for a notify nobody
sends), race (a remote_load with no barrier after the peer's store),
bad-arg (a whole [2, 1, 64] tensor where the per-device function wants one
rank's [1, 64]), host-kernel (the host calls a kernel itself),
scalar-first (a scalar before a tensor in a dispatch), host-error (a
Python exception in the host orchestrator), killed (rank 1's kernel kills
the process it runs in with SIGKILL), load-past (a pl.load whose offsets
put the region past the tensor's columns), load-empty (one whose shape has a
dim of 0), full-nan (pl.tile.full of an INT32 tile with
nan), full-range (of an INT8 tile with 300)."""

import os
import signal
import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
P, SIZE = 2, 64


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(data))
    t = pl.load(x, [0, 0], [1, SIZE])
    if MODE == "python-error" and me == 1:
        t = t if 1 / 0 else t  # FAULT python-error
    elif MODE == "killed" and me == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    elif MODE == "misuse":
        t = pld.tile.remote_load(data, peer=P + 3, offsets=[0, 0], shape=[1, SIZE])  # FAULT misuse
    elif MODE == "bad-type":
        pld.tensor.put(x, peer=0, src=data)  # FAULT bad-type
    elif MODE == "caught":
        try:
            pld.tensor.put(x, peer=0, src=data)
        except TypeError as e:
            if me == 0:
                print(f"caught: {e}", flush=True)
    elif MODE == "deadlock":
        pld.system.wait(sig, offsets=[me, 0], expected=1, cmp=pld.WaitCmp.Ge)  # FAULT deadlock
    elif MODE == "load-past":
        t = pl.load(x, [0, 32], [1, SIZE])  # FAULT load-past
    elif MODE == "load-empty":
        t = pl.load(x, [0, 32], [1, 0])  # FAULT load-empty
    elif MODE == "full-nan":
        pl.tile.full([1, SIZE], dtype=pl.INT32, value=float("nan"))  # FAULT full-nan
    elif MODE == "full-range":
        pl.tile.full([1, SIZE], dtype=pl.INT8, value=300)  # FAULT full-range
    elif MODE == "race":
        data = pl.store(t, [0, 0], data)  # FAULT race-store
        t = pld.tile.remote_load(data, peer=(me + 1) % P, offsets=[0, 0], shape=[1, SIZE])  # FAULT race-load
    return pl.store(t, [0, 0], y)


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return kernel(x, y, data, sig)


@pl.jit
def scalar_first(r: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]]):
    pass


@pl.jit.host
def host(x: pl.Tensor[[P, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    if MODE == "host-error":
        {}["no such key"]  # FAULT host-error
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        sig = pld.window(sig_buf, [P, 1], dtype=pl.INT32)
        if MODE == "bad-arg":
            per_rank(x[r], y, data, sig, device=r)  # FAULT bad-arg
        elif MODE == "host-kernel":
            kernel(x[r], y[r], data, sig)  # FAULT host-kernel
        elif MODE == "scalar-first":
            scalar_first(r, y[r], device=r)  # FAULT scalar-first
        else:
            per_rank(x[r], y[r], data, sig, device=r)


x = torch.randn(P, 1, SIZE)
y = torch.zeros(P, 1, SIZE)
compiled = host.compile(x, y, config=RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])))
compiled(x, y)
print("OK")
