"""The idioms of today's model code (pypto-lib's DeepSeek-V4 layers),
written here as small programs, one per mode, for the tests:

    pldsim-py model_idioms.py MODE [ROWS]

gather: every rank puts its ROWS (default 5) rows of a [ROWS, 32] BF16
tensor into a row band of every rank's window (pld.tensor.put with
dst_offsets, shape and chunk_rows), synchronises through a
``@pl.jit.inline`` credit barrier (notify AtomicAdd, wait Ge, then a
self-notify of -(P-1) that resets the credits), and copies the gathered
[P * ROWS, 32] band out.  ROWS is a pl.dynamic dimension that the host and
the per-device function bind with ``bind_dynamic`` and the kernel reads
with ``pl.tensor.dim``.  Prints the bytes the puts moved and OK.
bind-mismatch: bind_dynamic of a dimension that contradicts its binding.
task-id: a ``pl.Scalar[pl.TASK_ID]`` parameter of an inline helper, fed
by a task id of a manual scope through pl.system.task_dummy, and a
``pl.array`` of task ids.
spmd: the three forms of pl.spmd on a [BLOCKS, COLS] tensor, one row per
block: ``with pl.spmd(n) as tid`` in a manual scope (doubles each row),
after it, by deps=, ``for i in pl.spmd(n)`` (adds the block index), and
``with pl.spmd(n):`` whose body dispatches a kernel (adds x again): y = 3x + i."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
ROWS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
P, COLS, CAP = 2, 32, 64
LOCAL = pl.dynamic("LOCAL")
GROUP = pl.dynamic("GROUP")


@pl.jit.inline
def credit_barrier(signal: pld.DistributedTensor[[P, 1], pl.INT32], me: pl.Scalar[pl.INT32], round_no: pl.Scalar[pl.INT32]):
    """Credits from every peer into my row of theirs; wait for round_no of each."""
    for peer in pl.range(P):
        if peer != me:
            pld.system.notify(target=signal, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    for peer in pl.range(P):
        if peer != me:
            pld.system.wait(signal=signal, offsets=[peer, 0], expected=round_no, cmp=pld.WaitCmp.Ge)
    return signal


@pl.jit.incore
def gather_rows(
    local: pl.Tensor[[LOCAL, COLS], pl.BF16],
    out: pl.InOut[pl.Tensor[[GROUP, COLS], pl.BF16]],
    window: pld.DistributedTensor[[CAP, COLS], pl.BF16],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    rows = pl.tensor.dim(local, 0)
    for peer in pl.range(P):
        pld.tensor.put(
            dst=window, peer=peer, src=local, dst_offsets=[me * rows, 0], src_offsets=[0, 0],
            shape=[rows, COLS], chunk_rows=2, chunk_cols=COLS,
        )
    signal = credit_barrier(signal, me, 1)
    for r in pl.range(P * rows):
        out[r : r + 1, 0:COLS] = window[r : r + 1, 0:COLS]
    signal = credit_barrier(signal, me, 2)  # nobody overwrites a band still being read
    for peer in pl.range(P):
        if peer != me:
            pld.system.notify(target=signal, peer=me, offsets=[peer, 0], value=-2, op=pld.NotifyOp.AtomicAdd)
    return out, signal


@pl.jit
def gather_on_device(
    local: pl.Tensor[[LOCAL, COLS], pl.BF16],
    out: pl.InOut[pl.Tensor[[GROUP, COLS], pl.BF16]],
    window: pld.DistributedTensor[[CAP, COLS], pl.BF16],
    signal: pld.DistributedTensor[[P, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    local.bind_dynamic(0, LOCAL)
    out.bind_dynamic(0, GROUP)
    out, signal = gather_rows(local, out, window, signal, me)
    return out, signal


@pl.jit.host
def gather_host(local: pl.Tensor[[P, LOCAL, COLS], pl.BF16], out: pl.InOut[pl.Tensor[[P, GROUP, COLS], pl.BF16]]):
    local.bind_dynamic(1, LOCAL)
    out.bind_dynamic(1, GROUP)
    if MODE == "bind-mismatch":
        out.bind_dynamic(1, LOCAL)  # GROUP rows are not LOCAL rows
    win = pld.alloc_window_buffer([CAP, COLS], dtype=pl.BF16)
    sig = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        gather_on_device(
            local[rank], out[rank], pld.window(win, [CAP, COLS], dtype=pl.BF16),
            pld.window(sig, [P, 1], dtype=pl.INT32), rank, device=rank,
        )


@pl.jit.inline
def after(x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]], dep: pl.Scalar[pl.TASK_ID]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second", deps=[dep]) as tid:
        t = pl.load(y, [0, 0], [1, COLS])
        pl.store(pl.add(t, t), [0, 0], y)
    return tid


@pl.jit
def tasks_on_device(x: pl.Tensor[[1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]):
    tids = pl.array.create(2, pl.TASK_ID)
    anchor = pl.system.task_dummy(deps=[])  # x is an input: nothing to wait for
    with pl.manual_scope():
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first:
            pl.store(pl.load(x, [0, 0], [1, COLS]), [0, 0], y)
        tids[0] = first
        tids[1] = after(x, y, pl.system.task_dummy(deps=[tids[0], None, anchor]))
    return y


@pl.jit.host
def tasks_host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, COLS], pl.FP32]]):
    for rank in pl.range(pld.world_size()):
        tasks_on_device(x[rank], y[rank], device=rank)


BLOCKS = 4


@pl.jit.incore
def add_row(x: pl.Tensor[[BLOCKS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]]):
    b = pl.tile.get_block_idx()
    t = pl.add(pl.load(y, [b, 0], [1, COLS]), pl.load(x, [b, 0], [1, COLS]))
    pl.store(t, [b, 0], y)
    return y


@pl.jit
def spmd_on_device(x: pl.Tensor[[BLOCKS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]]):
    with pl.manual_scope():
        with pl.spmd(BLOCKS, name_hint="double") as doubled:
            b = pl.tile.get_block_idx()
            t = pl.load(x, [b, 0], [1, COLS])
            pl.store(pl.add(t, t), [b, 0], y)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="check", deps=[doubled]):
            pl.store(pl.load(y, [0, 0], [BLOCKS, COLS]), [0, 0], y)
    for i in pl.spmd(BLOCKS, name_hint="index"):
        t = pl.load(y, [i, 0], [1, COLS])
        pl.store(pl.add(t, pl.cast(i, pl.FP32)), [i, 0], y)
    with pl.spmd(BLOCKS):
        y = add_row(x, y)
    return y


@pl.jit.host
def spmd_host(x: pl.Tensor[[P, BLOCKS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, BLOCKS, COLS], pl.FP32]]):
    for rank in pl.range(pld.world_size()):
        spmd_on_device(x[rank], y[rank], device=rank)


config = RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P))))
if MODE in ("gather", "bind-mismatch"):
    local = (torch.arange(P * ROWS * COLS) % 251).reshape(P, ROWS, COLS).to(torch.bfloat16)
    out = torch.zeros(P, P * ROWS, COLS, dtype=torch.bfloat16)
    gather_host.compile(local, out, config=config)(local, out)
    want = local.reshape(P * ROWS, COLS)
    for r in range(P):
        assert torch.equal(out[r], want), (r, out[r], want)
    print(f"put bytes {P * P * ROWS * COLS * 2}")
elif MODE == "task-id":
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 1, COLS)
    tasks_host.compile(x, y, config=config)(x, y)
    assert torch.equal(y, 2 * x), (y, x)
elif MODE == "spmd":
    x = torch.randn(P, BLOCKS, COLS)
    y = torch.zeros(P, BLOCKS, COLS)
    spmd_host.compile(x, y, config=config)(x, y)
    want = 3 * x + torch.arange(BLOCKS, dtype=torch.float32).reshape(1, BLOCKS, 1)
    assert torch.allclose(y, want), (y, want)
else:
    raise SystemExit(f"unknown mode {MODE}")
print("OK")
