"""Tensor views and tensor-level ops on two ranks, for tests/python/test_views.py.

    pldsim-py views.py MODE

MODE ok runs them all and checks every output against torch (prints OK):
slice-assign into a window from a host slice, a host slice-assign from a
window slice, pl.slice + pl.add + pl.assemble, pl.tensor.slice of a window
+ pl.cast there and back, pl.assemble of a strided column slice, a subscript-write and an element
read of host tensors (upstream's, not torch's),
pld.tensor.remote_store of a computed value (pl.tensor.add) and of a host
slice (atomic Add), and the unified pld.remote_store of a tile.  Every
other MODE is one misuse, on the line marked `# FAULT MODE`."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
P, R, C = 2, 4, 64
H = C // 2


@pl.jit.incore
def kernel(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    y2: pl.Out[pl.Tensor[[R, H], pl.FP32]],
    z: pl.Out[pl.Tensor[[2, C], pl.FP32]],
    w: pld.DistributedTensor[[R, C], pl.FP32],
    dst_buf: pld.DistributedTensor[[2, C], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(w))
    peer = 1 - me
    w[0:R, 0:C] = x[0:R, 0:C]
    y[0:2, :] = w[2:4, :]
    row = pl.slice(x, [1, C], [1, 0])
    y = pl.assemble(y, pl.add(row, 1.0), [2, 0])
    half = pl.cast(pl.tensor.slice(w, [1, C], [0, 0]), pl.FP16)
    y[3:4, :] = pl.cast(half, pl.FP32)
    y2 = pl.assemble(y2, x[:, H:C], [0, 0])
    y2[0:1, :] = x[0:1, H:C]  # host to host: pldsim's assemble, not torch's copy
    pl.write(y2, [3, 0], x[1, 2])  # every dim indexed: one element (tensor.read)
    pld.tensor.remote_store(pl.tensor.add(row, row), dst_buf, peer, [0, 0])
    pld.tensor.remote_store(x[3:4, :], dst_buf, peer, [1, 0])
    pld.tensor.remote_store(x[3:4, :], dst_buf, peer, [1, 0], atomic=pld.AtomicType.Add)
    pld.remote_store(pl.load(x, [0, 0], [1, H]), dst_buf, peer, [1, 0], atomic=pld.AtomicType.Add)
    t = pl.load(x, [0, 0], [1, C])
    if MODE == "slice-oob":
        pl.slice(x, [2, C], [3, 0])  # FAULT slice-oob
    elif MODE == "subscript-oob":
        w[0:5, :]  # FAULT subscript-oob
    elif MODE == "host-subscript-oob":
        x[0:8, :]  # FAULT host-subscript-oob
    elif MODE == "assign-shape":
        w[0:2, :] = x[0:1, :]  # FAULT assign-shape
    elif MODE == "add-shape":
        pl.add(x, row)  # FAULT add-shape
    elif MODE == "tensor-add-tile":
        pl.tensor.add(t, t)  # FAULT tensor-add-tile
    elif MODE == "trs-window":
        pld.tensor.remote_store(w, dst_buf, peer, [0, 0])  # FAULT trs-window
    elif MODE == "trs-tile":
        pld.tensor.remote_store(t, dst_buf, peer, [0, 0])  # FAULT trs-tile
    elif MODE == "trs-oob":
        pld.tensor.remote_store(x, dst_buf, peer, [0, 0])  # FAULT trs-oob
    elif MODE == "trs-dtype":
        pld.tensor.remote_store(pl.cast(row, pl.INT32, mode="trunc"), dst_buf, peer, [0, 0])  # FAULT trs-dtype
    elif MODE == "trs-target":
        pld.tensor.remote_store(row, x, peer, [0, 0])  # FAULT trs-target
    elif MODE == "assemble-tile":
        pl.assemble(y, t, [0, 0])  # FAULT assemble-tile
    elif MODE == "cast-round":
        pl.cast(row, pl.INT32, mode="odd")  # FAULT cast-round
    pld.system.notify(sig, peer, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    z[:, :] = dst_buf[:, :]
    return y


@pl.jit
def per_rank(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    y2: pl.Out[pl.Tensor[[R, H], pl.FP32]],
    z: pl.Out[pl.Tensor[[2, C], pl.FP32]],
    w: pld.DistributedTensor[[R, C], pl.FP32],
    dst_buf: pld.DistributedTensor[[2, C], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return kernel(x, y, y2, z, w, dst_buf, sig)


@pl.jit.host
def host(
    x: pl.Tensor[[P, R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[P, R, C], pl.FP32]],
    y2: pl.Out[pl.Tensor[[P, R, H], pl.FP32]],
    z: pl.Out[pl.Tensor[[P, 2, C], pl.FP32]],
):
    w_buf = pld.alloc_window_buffer([R, C], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([2, C], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        w = pld.window(w_buf, [R, C], dtype=pl.FP32)
        d = pld.window(dst_buf, [2, C], dtype=pl.FP32)
        s = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
        per_rank(x[r], y[r], y2[r], z[r], w, d, s, device=r)


x = torch.arange(P * R * C, dtype=torch.float32).reshape(P, R, C) / 4
y = torch.zeros(P, R, C)
y2 = torch.zeros(P, R, H)
z = torch.zeros(P, 2, C)
compiled = host.compile(x, y, y2, z, config=RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])))
compiled(x, y, y2, z)
for r in range(P):
    p = 1 - r
    want = torch.stack([x[r, 2], x[r, 3], x[r, 1] + 1, x[r, 0].half().float()])
    assert torch.equal(y[r], want), (r, y[r], want)
    want2 = x[r, :, H:].clone()
    want2[3, 0] = x[r, 1, 2]
    assert torch.equal(y2[r], want2), (r, y2[r])
    pushed = 2 * x[p, 3]
    pushed[:H] += x[p, 0, :H]
    assert torch.equal(z[r], torch.stack([2 * x[p, 1], pushed])), (r, z[r])
print("OK")
