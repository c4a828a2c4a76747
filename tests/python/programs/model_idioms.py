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
``with pl.spmd(n):`` whose body dispatches a kernel (adds x again): y = 3x + i.
quant: the INT8 row quantisation of the model files on tensors, in SPMD
blocks of 8 rows over a [ROWS (default 13), 64] FP32 tensor whose last
block is ragged: pl.slice(valid_shape=), abs, row_max, maximum, div,
recip, row_expand_mul, col_expand_mul, casts with rint, round and trunc,
set_validshape, and subscript writes that run past the tensor's end where
the value holds nothing; checked against torch.
matmul: a [ROWS, 64] x [32, 64]^T BF16 product of tensors (b_trans) in two
K chunks (pl.matmul, pl.matmul_acc) into a pl.create_tensor scratch, read
back through pl.reshape views; checked against torch.
rounding: the cast modes on halves: rint 2.5 -> 2, round 2.5 -> 3.
softmax: a row softmax over the 4 valid columns of 8-wide rows of a
padded tensor (a slice with valid_shape running past the tensor's end,
fillpad with PadValue.min, row_max, row_expand_expdif, row_sum,
row_expand_div, fillpad with zero), its transpose and a row of it sliced
from the value, scaled by pl.read of a host tensor in the per-device
function and by rsqrt(high_precision=True); checked against torch.
compile-order: compile() with sample tensors in another order than the
parameters (as pypto-lib's golden runner compiles), then a call.
staged: the idioms of the attention kernels: pl.arange and a gather by
it (an interleave), rows of a tensor written into a computed value
(stage[i:i+1, :] = t[j:j+1, :]), and a matmul's accumulator read by vector
ops (row_max, exp) and sliced; checked against torch.
lanes: a matmul's accumulator split between two AIV lanes (pl.split_aiv
with UP_DOWN, each lane's pl.aiv_shard of the rows; with NONE, all of it),
in a pl.scope(); pl.cmp in its six modes, and pl.read of a computed value;
checked against torch.
masks: the even and odd columns of a value (pl.gather's mask form) put
back in place (pl.tensor.scatter's mask form), the index form of scatter,
a row written into a Vec tile (t[0:1, :] = row), a tile's region (t[a:b,
c:d]), pl.concat, pl.cast of a comparison, and pl.tile.store with shapes=
smaller than the tile; checked against torch.
unravel: torch.unravel_index (torch 2.2, which pldsim-py adds to an older
torch), against numpy's.
sort: scores with ties sorted by pl.sort32 (UINT32 indices from pl.arange)
and merged by both forms of pl.mrgsort; the indices and values taken out
by pl.gather's mask form (output_dtype=pl.INT32 for the index bits);
checked against a stable argsort; and pl.tile.write of numbers into a
Vec tile.
qwen3-idioms: what qwen3_14b/prefill_fwd.py does: an inline helper binds a
pl.dynamic of its caller's to another size (its own window's rows), a
pl.array of task ids is read before it is set (upstream's invalid id: no
edge), and pl.assemble writes a tensor's row into a computed value
(pl.full padding a head); checked against torch.
column-reshape: pl.reshape of a column window of a tensor (strided) in a
kernel, lowered as a load into a dense tile; checked against torch.
orch-assemble: pl.set_validshape of a tensor region (loaded), and
pl.assemble of a scratch tensor into an output in the
per-device function itself (a copy task); orch-assemble-manual: the same
in a manual scope, refused (nothing orders it).
gather-row: the sparse-attention kernels' paged KV gather: a [GK, GD]
BF16 operand built in L1 (pl.create_l1) from rows of a pool picked by an
index tensor, one run of several rows (valid_shape) and single rows
(pl.gather_row), its unfilled rows left zero, multiplied by pl.matmul;
checked against torch; gather-row-outside: a gather whose rows run past
the accumulator, refused.
prefetch: pl.prefetch's warm-up of a weight (make_context, async_prefetch
of the weight reshaped flat, session, wait) before a kernel that reads it:
the values are unchanged; prefetch-2d: a prefetch of a [2, N] tensor,
refused (upstream's verifier wants it flat).
init-value: pl.create_tensor's init_value (INT32 -1, FP32 -inf and 0.5,
BF16 0) read back; init-value-bf16: a non-zero BF16 fill, refused as
upstream's codegen refuses it.
overread: a fixed 16-row tile read from an 8-row tensor (x[0:16, :], as
mtp's hc_head reads a short batch) into a matmul: the part past the
tensor holds no values (the product is valid on x's 8 rows, which alone
are written), with one warning for the line.
big-assemble: pl.assemble of a 2 MiB tensor in a per-device function,
copied in blocks that fit the UB.
tile-assemble: rows of four Vec tiles placed into a zero [8, 8] tile
by pl.tile.assemble (as pro's hc_pre packs its dot products), stored;
checked against torch.
older-torch: the torch of Debian 12 (1.13), played by hiding the float8
dtypes from this one: hasattr and getattr with a default answer as an
older torch would, and naming torch.float8_e4m3fn, as the model files'
weight generators do, stops the program at that line (marked
`# FAULT older-torch`), naming the torch it needs.
transpose-view: one Mat load of b [N, K] fed to a matmul as [K, N] through
pl.tile.transpose_view: a @ b^T, checked against torch."""

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


@pl.jit
def self_submit_on_device(x: pl.Tensor[[BLOCKS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[BLOCKS, COLS], pl.FP32]]):
    # pypto-lib's pro/moe.py: a module's functions are methods of the
    # program @pl.jit makes, and pl.no_dep marks an argument that makes
    # no dependency; the second launch is ordered by its deps= alone
    with pl.manual_scope():
        y, first = pl.spmd_submit(self.add_row, x, pl.no_dep(y), core_num=BLOCKS)  # noqa: F821
        y, _ = pl.spmd_submit(self.add_row, x, y, core_num=BLOCKS, deps=[first])  # noqa: F821
    return y


@pl.jit.host
def self_submit_host(x: pl.Tensor[[P, BLOCKS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, BLOCKS, COLS], pl.FP32]]):
    for rank in pl.range(pld.world_size()):
        self_submit_on_device(x[rank], y[rank], device=rank)


QROWS = ROWS if MODE != "gather" else 5
QT, QC = 8, 64
QPAD = (QROWS + QT - 1) // QT * QT


@pl.jit
def quant_on_device(
    x: pl.Tensor[[QPAD, QC], pl.FP32],
    w: pl.Tensor[[QC], pl.FP32],
    q: pl.InOut[pl.Tensor[[QROWS, QC], pl.INT8]],
    s: pl.InOut[pl.Tensor[[1, QROWS], pl.FP32]],
    y: pl.InOut[pl.Tensor[[QROWS, QC], pl.FP32]],
):
    blocks = (QROWS + QT - 1) // QT
    with pl.spmd(blocks, name_hint="quant"):
        b = pl.tile.get_block_idx()
        r0 = b * QT
        rows = pl.min(QT, QROWS - r0)
        t = pl.slice(x, [QT, QC], [r0, 0], valid_shape=[rows, QC])  # x is padded to whole blocks
        amax = pl.reshape(pl.row_max(pl.abs(t)), [1, QT])
        amax = pl.maximum(pl.full([1, QT], dtype=pl.FP32, value=1e-4), amax)
        qscale = pl.div(pl.full([1, QT], dtype=pl.FP32, value=127.0), amax)
        s[0:1, r0 : r0 + QT] = pl.set_validshape(pl.recip(qscale), 1, rows)
        scaled = pl.row_expand_mul(t, pl.reshape(qscale, [QT, 1]))
        as_i32 = pl.cast(scaled, target_type=pl.INT32, mode="rint")
        as_i8 = pl.cast(pl.cast(as_i32, target_type=pl.FP16, mode="round"), target_type=pl.INT8, mode="trunc")
        q[r0 : r0 + QT, 0:QC] = pl.set_validshape(as_i8, rows, QC)  # may run past the end: rows fit
        weighted = pl.col_expand_mul(t, pl.reshape(w, [1, QC]))
        y[r0 : r0 + QT, 0:QC] = pl.set_validshape(weighted, rows, QC)
    return q, s, y


MN, MK = 32, 64


@pl.jit
def matmul_on_device(a: pl.Tensor[[QROWS, MK], pl.BF16], b: pl.Tensor[[MN, MK], pl.BF16], c: pl.InOut[pl.Tensor[[QROWS * MN], pl.FP32]]):
    scratch = pl.create_tensor([QROWS, MN], dtype=pl.FP32)
    with pl.spmd(1, name_hint="mm"):
        half = MK // 2
        acc = pl.matmul(a[0:QROWS, 0:half], b[0:MN, 0:half], b_trans=True, out_dtype=pl.FP32)
        acc = pl.matmul_acc(acc, a[0:QROWS, half:MK], b[0:MN, half:MK], b_trans=True)
        scratch[0:QROWS, 0:MN] = acc
    with pl.spmd(1, name_hint="flatten"):
        flat = pl.reshape(c, [QROWS, MN])
        flat[0:QROWS, 0:MN] = pl.add(scratch, 0.0)
    return c


GK, GD, GPOOL, GQ, GRUN = 8, 32, 24, 4, 3


@pl.jit
def gather_row_on_device(
    q: pl.Tensor[[GQ, GK], pl.BF16],
    pool: pl.Tensor[[GPOOL, GD], pl.BF16],
    picks: pl.Tensor[[GK], pl.INT32],
    out: pl.InOut[pl.Tensor[[GQ, GD], pl.FP32]],
):
    with pl.spmd(1, name_hint="gather"):
        kv = pl.create_l1([GK, GD], pl.BF16)
        # rows 0..GRUN-1: one run of consecutive pool rows from picks[0]
        first = pl.cast(pl.read(picks, [0]), pl.INDEX)
        kv = pl.gather_row(kv, pool, [0, 0], [first, 0], [GK, GD], valid_shape=[GRUN, GD])
        # the rest one by one, but the last, which stays zero
        for r in pl.range(GRUN, GK - 1):
            src = pl.cast(pl.read(picks, [r]), pl.INDEX)
            kv = pl.gather_row(kv, pool, [r, 0], [src, 0], [1, GD])
        if MODE == "gather-row-outside":
            kv = pl.gather_row(kv, pool, [GK - 1, 0], [0, 0], [2, GD])  # FAULT gather-row-outside
        out[0:GQ, 0:GD] = pl.matmul(q, kv, out_dtype=pl.FP32)
    return out


@pl.jit
def prefetch_on_device(w: pl.Tensor[[4, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[4, COLS], pl.FP32]]):
    flat = pl.reshape(w, [4 * COLS]) if MODE == "prefetch" else w
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="warm"):
        ctx = pl.prefetch.make_context()
        event = pl.prefetch.async_prefetch(flat, ctx)  # FAULT prefetch-2d
        done = pl.prefetch.wait(event, pl.prefetch.session(ctx))
        assert done
    with pl.spmd(1, name_hint="use"):
        y[0:4, 0:COLS] = pl.add(w, 1.0)
    return y


@pl.jit
def init_value_on_device(out: pl.InOut[pl.Tensor[[4, 8], pl.FP32]], ids: pl.InOut[pl.Tensor[[1, 8], pl.INT32]]):
    neg = pl.create_tensor([1, 8], dtype=pl.FP32, init_value=float("-inf"))
    half = pl.create_tensor([2, 8], dtype=pl.FP32, init_value=0.5)
    minus = pl.create_tensor([1, 8], dtype=pl.INT32, init_value=-1)
    zero = pl.create_tensor([1, 8], dtype=pl.BF16, init_value=0)
    if MODE == "init-value-bf16":
        pl.create_tensor([1, 8], dtype=pl.BF16, init_value=1.0)  # FAULT init-value-bf16
    with pl.spmd(1, name_hint="read_back"):
        out[0:1, 0:8] = pl.add(neg, 0.0)
        out[1:3, 0:8] = pl.add(half, 0.0)
        out[3:4, 0:8] = pl.cast(zero, pl.FP32)
        ids[0:1, 0:8] = pl.add(minus, 0)
    return out


@pl.jit
def overread_on_device(x: pl.Tensor[[8, 32], pl.BF16], w: pl.Tensor[[16, 32], pl.BF16], out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.spmd(1, name_hint="overread"):
        out[0:16, 0:16] = pl.matmul(x[0:16, 0:32], w, b_trans=True, out_dtype=pl.FP32)  # FAULT overread
    return out


BIG = [64, 8, 1024]


@pl.jit
def big_assemble_on_device(src: pl.Tensor[BIG, pl.FP32], dst: pl.InOut[pl.Tensor[[65, 8, 1024], pl.FP32]]):
    dst = pl.assemble(dst, src, [1, 0, 0])
    return dst


@pl.jit
def tile_assemble_on_device(x: pl.Tensor[[4, 8], pl.FP32], y: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pack"):
        packed = pl.tile.full([8, 8], dtype=pl.FP32, value=0.0)
        for r in pl.range(4):
            row = pl.load(x, [r, 0], [1, 8], target_memory=pl.MemorySpace.Vec)
            packed = pl.tile.assemble(packed, pl.mul(row, 2.0), [r, 0])
        pl.store(packed, [0, 0], y)
    return y


@pl.jit
def rounding_on_device(x: pl.Tensor[[1, 8], pl.FP32], r: pl.InOut[pl.Tensor[[2, 8], pl.INT32]]):
    with pl.spmd(1):
        r[0:1, 0:8] = pl.cast(x, target_type=pl.INT32, mode="rint")
        r[1:2, 0:8] = pl.cast(x, target_type=pl.INT32, mode="round")
    return r


SM_ROWS, SM_PAD, SM_VALID = 6, 8, 4


@pl.jit
def softmax_on_device(
    x: pl.Tensor[[SM_ROWS, SM_VALID], pl.FP32],
    scale: pl.Tensor[[2], pl.FP32],
    y: pl.InOut[pl.Tensor[[SM_ROWS, SM_VALID], pl.FP32]],
    yt: pl.InOut[pl.Tensor[[SM_PAD, SM_PAD], pl.FP32]],
    first: pl.InOut[pl.Tensor[[1, SM_PAD], pl.FP32]],
):
    k = pl.read(scale, [1])  # an orchestration-level read of a host tensor
    with pl.spmd(1, name_hint="softmax"):
        # 8 x 8 from a 6 x 4 tensor: only the valid 6 x 4 lies inside it
        t = pl.slice(x, [SM_PAD, SM_PAD], [0, 0], valid_shape=[SM_ROWS, SM_VALID])
        padded = pl.fillpad(t, pad_value=pl.PadValue.min)
        e = pl.row_expand_expdif(padded, pl.row_max(padded))  # exp(x - the row's max)
        soft = pl.row_expand_div(e, pl.row_sum(e))
        soft = pl.mul(soft, pl.rsqrt(pl.full([SM_PAD, SM_PAD], dtype=pl.FP32, value=k * k), high_precision=True))
        kept = pl.fillpad(pl.set_validshape(soft, SM_ROWS, SM_VALID), pad_value=pl.PadValue.zero)
        y[0:SM_ROWS, 0:SM_VALID] = pl.slice(kept, [SM_PAD, SM_PAD], [0, 0], valid_shape=[SM_ROWS, SM_VALID])
        yt[0:SM_PAD, 0:SM_PAD] = pl.transpose(kept, axis1=0, axis2=1)
        first[0:1, 0:SM_PAD] = kept[0:1, 0:SM_PAD]
    return y, yt, first


@pl.jit
def order_on_device(a: pl.Tensor[[2, 8], pl.FP32], b: pl.Tensor[[5], pl.FP32], out: pl.InOut[pl.Tensor[[2, 8], pl.FP32]]):
    with pl.spmd(1):
        out[0:2, 0:8] = pl.add(a, pl.read(b, [4]))
    return out


ST_ROWS, ST_COLS = 8, 16


@pl.jit
def staged_on_device(
    kv: pl.Tensor[[ST_ROWS, ST_COLS], pl.FP32],
    q: pl.Tensor[[ST_ROWS, ST_COLS], pl.FP32],
    perm: pl.Tensor[[ST_ROWS], pl.INT32],
    inter: pl.InOut[pl.Tensor[[ST_ROWS, ST_COLS], pl.FP32]],
    staged: pl.InOut[pl.Tensor[[ST_ROWS, ST_COLS], pl.FP32]],
    scores: pl.InOut[pl.Tensor[[ST_ROWS, 8], pl.FP32]],
):
    with pl.spmd(1, name_hint="staged"):
        idx = pl.cast(pl.mul(pl.cast(pl.arange(0, [1, ST_COLS], dtype=pl.INT32), target_type=pl.FP32), 0.5), target_type=pl.INT32, mode="trunc")
        ones = pl.full([ST_ROWS, ST_COLS], dtype=pl.FP32, value=1.0)
        idx_rows = pl.cast(pl.col_expand_mul(ones, pl.cast(idx, target_type=pl.FP32)), target_type=pl.INT32, mode="trunc")
        inter[0:ST_ROWS, 0:ST_COLS] = pl.gather(kv, dim=-1, index=idx_rows)  # each column twice
        stage = pl.full([ST_ROWS, ST_COLS], dtype=pl.FP32, value=0.0)
        for i in pl.range(ST_ROWS):
            j = pl.read(perm, [i])
            if j >= 0:
                stage[i : i + 1, :] = kv[j : j + 1, :]
        staged[0:ST_ROWS, 0:ST_COLS] = stage
        acc = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)  # [rows, rows]
        e = pl.exp(pl.row_expand_sub(acc, pl.row_max(acc)))
        scores[0:ST_ROWS, 0:8] = e[0:ST_ROWS, 0:8]
    return inter, staged, scores


LN_ROWS, LN_COLS = 8, 16


@pl.jit
def lanes_on_device(
    a: pl.Tensor[[LN_ROWS, LN_COLS], pl.FP32],
    b: pl.Tensor[[LN_COLS, LN_COLS], pl.FP32],
    halves: pl.InOut[pl.Tensor[[LN_ROWS, LN_COLS], pl.FP32]],
    whole: pl.InOut[pl.Tensor[[2 * LN_ROWS, LN_COLS], pl.FP32]],
    cmps: pl.InOut[pl.Tensor[[6 * LN_ROWS, LN_COLS], pl.FP32]],
    corner: pl.InOut[pl.Tensor[[1, 8], pl.FP32]],
):
    with pl.scope():
        with pl.spmd(1, name_hint="lanes", optimizations=[pl.cross_core_slot(slot_num=2)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                half = pl.aiv_shard(acc)
                r0 = lane * (LN_ROWS // 2)
                halves[r0 : r0 + LN_ROWS // 2, 0:LN_COLS] = pl.mul(half, 2.0)
            for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                whole[lane * LN_ROWS : (lane + 1) * LN_ROWS, 0:LN_COLS] = pl.aiv_shard(acc)
            for mode in pl.range(6):
                cmps[mode * LN_ROWS : (mode + 1) * LN_ROWS, 0:LN_COLS] = pl.cmp(a, b[0:LN_ROWS, 0:LN_COLS], cmp_type=mode)
            v = pl.add(a, 0.0)
            corner[0:1, 0:8] = pl.full([1, 8], dtype=pl.FP32, value=pl.read(v, [LN_ROWS - 1, LN_COLS - 1]))
    return halves, whole, cmps, corner


MK_ROWS, MK_COLS = 4, 16


@pl.jit
def masks_on_device(
    x: pl.Tensor[[MK_ROWS, MK_COLS], pl.FP32],
    idx: pl.Tensor[[MK_ROWS, 8], pl.INT32],
    swapped: pl.InOut[pl.Tensor[[MK_ROWS, MK_COLS], pl.FP32]],
    scattered: pl.InOut[pl.Tensor[[MK_ROWS, MK_COLS], pl.FP32]],
    tiled: pl.InOut[pl.Tensor[[MK_ROWS, MK_COLS], pl.FP32]],
    joined: pl.InOut[pl.Tensor[[MK_ROWS, MK_COLS], pl.FP32]],
):
    with pl.spmd(1, name_hint="masks"):
        left = pl.load(x, [0, 0], [MK_ROWS, MK_COLS])[0:MK_ROWS, 8:MK_COLS]  # a tile's region
        flag = pl.cast(pl.read(x, [0, 0]) >= 0, pl.INT32)
        joined[0:MK_ROWS, 0:MK_COLS] = pl.concat(pl.mul(pl.add(left, 0.0), float(flag)), x[0:MK_ROWS, 0:8])
        even = pl.gather(x, mask_pattern=pl.tile.MaskPattern.P0101)
        odd = pl.gather(x, mask_pattern=pl.tile.MaskPattern.P1010)
        out = pl.full([MK_ROWS, MK_COLS], dtype=pl.FP32, value=0.0)
        out = pl.tensor.scatter(odd, mask_pattern=pl.tile.MaskPattern.P0101, dst=out)  # odd columns to even places
        out = pl.tensor.scatter(even, mask_pattern=pl.tile.MaskPattern.P1010, dst=out)
        swapped[0:MK_ROWS, 0:MK_COLS] = out
        base = pl.full([MK_ROWS, MK_COLS], dtype=pl.FP32, value=-1.0)
        scattered[0:MK_ROWS, 0:MK_COLS] = pl.tensor.scatter(base, dim=-1, index=idx, src=x[0:MK_ROWS, 0:8])
        t = pl.tile.full([MK_ROWS, MK_COLS], dtype=pl.FP32, value=5.0)
        t[1:2, :] = pl.load(x, [3, 0], [1, MK_COLS])
        pl.tile.store(t, [0, 0], tiled, shapes=[2, MK_COLS])  # the first two rows only
    return swapped, scattered, tiled


SR_ROWS, SR_N = 2, 128  # 4 blocks of 32 scores a row
TV_M, TV_K, TV_N = 16, 32, 16


@pl.jit
def sort_on_device(
    x: pl.Tensor[[SR_ROWS, SR_N], pl.FP32],
    order: pl.InOut[pl.Tensor[[SR_ROWS, SR_N], pl.INT32]],
    ranked: pl.InOut[pl.Tensor[[SR_ROWS, SR_N], pl.FP32]],
    pairwise: pl.InOut[pl.Tensor[[SR_ROWS, SR_N], pl.INT32]],
    meta: pl.InOut[pl.Tensor[[1, 8], pl.INT32]],
):
    with pl.spmd(1, name_hint="sort"):
        counts = pl.tile.full([1, 8], dtype=pl.INT32, value=0)
        for e in pl.range(8):
            pl.tile.write(counts, [0, e], e * 3)  # a scalar into UB, as moe.py builds its meta row
        pl.store(counts, [0, 0], meta)
        idx = pl.arange(0, [1, SR_N], dtype=pl.UINT32)
        blocks = pl.sort32(x, idx)  # 4 sorted runs of 64 words a row
        whole = pl.mrgsort(blocks, block_len=64)  # the 4 runs merged: the row sorted
        order[0:SR_ROWS, 0:SR_N] = pl.gather(whole, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
        ranked[0:SR_ROWS, 0:SR_N] = pl.gather(whole, mask_pattern=pl.tile.MaskPattern.P0101)
        # the second form: the four sorted blocks merged as four sources
        four = pl.mrgsort(blocks[:, 0:64], blocks[:, 64:128], blocks[:, 128:192], blocks[:, 192:256])
        pairwise[0:SR_ROWS, 0:SR_N] = pl.gather(four, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
    return order, ranked, pairwise, meta


@pl.jit.incore
def both_ways(a: pl.Tensor[[TV_M, TV_K], pl.FP32], b: pl.Tensor[[TV_N, TV_K], pl.FP32], c: pl.Out[pl.Tensor[[TV_M, TV_N], pl.FP32]]):
    bm = pl.load(b, [0, 0], [TV_N, TV_K], target_memory=pl.Mem.Mat)  # loaded once, [N, K]
    bt = pl.tile.transpose_view(bm)  # the same bytes as [K, N]
    al = pl.move(pl.load(a, [0, 0], [TV_M, TV_K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
    acc = pl.matmul(al, pl.move(bt, target_memory=pl.Mem.Right))
    return pl.store(acc, [0, 0], c)


@pl.jit
def transpose_view_on_device(a: pl.Tensor[[TV_M, TV_K], pl.FP32], b: pl.Tensor[[TV_N, TV_K], pl.FP32], c: pl.Out[pl.Tensor[[TV_M, TV_N], pl.FP32]]):
    return both_ways(a, b, c)


@pl.jit
def assemble_on_device(x: pl.Tensor[[4, COLS], pl.FP32], out: pl.InOut[pl.Tensor[[8, COLS], pl.FP32]]):
    staged = pl.create_tensor([4, COLS], dtype=pl.FP32)
    with pl.spmd(1, name_hint="double"):
        # set_validshape of a tensor region loads it (hc_head.py does so)
        staged[0:4, 0:COLS] = pl.add(pl.set_validshape(x[0:4, 0:COLS], 4, COLS), x)
    out = pl.assemble(out, staged, [4, 0])  # in the per-device function: a copy task of its own
    if MODE == "orch-assemble-manual":
        with pl.manual_scope():
            out = pl.assemble(out, staged, [0, 0])
    return out


@pl.jit
def column_reshape_on_device(x: pl.Tensor[[8, 2 * COLS], pl.FP32], y: pl.InOut[pl.Tensor[[1, 4 * COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="column_window"):
        # a column window of a tensor is strided; its reshape is a load into
        # a dense tile first (pypto-lib's decode_indexer.py does this)
        flat = pl.reshape(x[2:6, COLS : 2 * COLS], [1, 4 * COLS])
        y[0:1, 0 : 4 * COLS] = pl.mul(flat, 2.0)
    return y


TOKENS = pl.dynamic("TOKENS")


@pl.jit.inline
def padded_window(rows: pl.Tensor[[TOKENS, COLS], pl.FP32], out: pl.Tensor[[TOKENS, COLS], pl.FP32]):
    rows.bind_dynamic(0, TOKENS)  # its own rows: 2, where the caller bound 6
    out.bind_dynamic(0, TOKENS)
    prev = pl.array.create(2, pl.TASK_ID)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pad", deps=[prev[0], prev[1]]) as tid:
        head = pl.full([4, COLS], dtype=pl.FP32, value=1.0)
        head = pl.assemble(head, rows[0:2, 0:COLS], [1, 0])
        out[0:2, 0:COLS] = pl.slice(pl.add(head, 0.0), [2, COLS], [1, 0])
    prev[0] = tid
    return out


@pl.jit
def qwen3_idioms_on_device(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[TOKENS, COLS], pl.FP32]]):
    x.bind_dynamic(0, TOKENS)
    window = pl.create_tensor([2, COLS], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="window"):
        window[0:2, 0:COLS] = x[4:6, 0:COLS]
    done = pl.create_tensor([2, COLS], dtype=pl.FP32)
    done = padded_window(window, done)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="back"):
        y[0:2, 0:COLS] = done[0:2, 0:COLS]
    return y


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
elif MODE == "self-submit":
    x = torch.randn(P, BLOCKS, COLS)
    y = torch.ones(P, BLOCKS, COLS)
    self_submit_host.compile(x, y, config=config)(x, y)
    assert torch.allclose(y, 1 + 2 * x), (y, 1 + 2 * x)
elif MODE == "quant":
    x = torch.zeros(QPAD, QC)
    x[:QROWS] = torch.randn(QROWS, QC) * 3
    w = torch.rand(QC) + 0.5
    q = torch.zeros(QROWS, QC, dtype=torch.int8)
    sc = torch.zeros(1, QROWS)
    y = torch.zeros(QROWS, QC)
    quant_on_device.compile(x, w, q, sc, y, config=RunConfig())(x, w, q, sc, y)
    x = x[:QROWS]
    qscale = 127.0 / x.abs().amax(dim=1).clamp(min=1e-4)
    want_q = torch.round(x * qscale[:, None]).to(torch.int32).to(torch.float16).to(torch.int8)
    assert torch.equal(q, want_q), (q, want_q)
    assert torch.allclose(sc[0], 1.0 / qscale), (sc, 1.0 / qscale)
    assert torch.allclose(y, x * w[None, :]), (y, x * w)
elif MODE == "matmul":
    a = torch.randn(QROWS, MK).to(torch.bfloat16)
    b = torch.randn(MN, MK).to(torch.bfloat16)
    c = torch.zeros(QROWS * MN)
    matmul_on_device.compile(a, b, c, config=RunConfig())(a, b, c)
    want = (a.float() @ b.float().t()).reshape(-1)
    assert torch.allclose(c, want, rtol=1e-4, atol=1e-4), (c, want)
elif MODE in ("gather-row", "gather-row-outside"):
    q = torch.randn(GQ, GK).to(torch.bfloat16)
    pool = torch.randn(GPOOL, GD).to(torch.bfloat16)
    picks = torch.tensor([5, 0, 0, 17, 2, 23, 9, 0], dtype=torch.int32)
    out = torch.zeros(GQ, GD)
    gather_row_on_device.compile(q, pool, picks, out, config=RunConfig())(q, pool, picks, out)
    kv = torch.zeros(GK, GD, dtype=torch.bfloat16)
    kv[0:GRUN] = pool[5 : 5 + GRUN]
    for r in range(GRUN, GK - 1):
        kv[r] = pool[int(picks[r])]
    want = q.float() @ kv.float()
    assert torch.allclose(out, want, rtol=1e-4, atol=1e-4), (out, want)
elif MODE == "rounding":
    x = torch.tensor([[2.5, -2.5, 0.5, -0.5, 1.5, 3.7, -3.7, 1e12]])
    r = torch.zeros(2, 8, dtype=torch.int32)
    rounding_on_device.compile(x, r, config=RunConfig())(x, r)
    big = 2**31 - 1  # saturated
    assert r.tolist() == [[2, -2, 0, 0, 2, 4, -4, big], [3, -3, 1, -1, 2, 4, -4, big]], r.tolist()
elif MODE == "softmax":
    x = torch.randn(SM_ROWS, SM_VALID)
    scale = torch.tensor([0.0, 2.0])
    y, yt, first = torch.zeros(SM_ROWS, SM_VALID), torch.zeros(SM_PAD, SM_PAD), torch.zeros(1, SM_PAD)
    softmax_on_device.compile(x, scale, y, yt, first, config=RunConfig())(x, scale, y, yt, first)
    want = torch.softmax(x, dim=1) / 2.0
    full = torch.zeros(SM_PAD, SM_PAD)
    full[:SM_ROWS, :SM_VALID] = want
    assert torch.allclose(y, want, atol=1e-6), (y, want)
    assert torch.allclose(yt, full.t(), atol=1e-6), (yt, full.t())
    assert torch.allclose(first, full[0:1], atol=1e-6), (first, full[0:1])
elif MODE == "compile-order":
    a, b, out = torch.randn(2, 8), torch.arange(5.0), torch.zeros(2, 8)
    compiled = order_on_device.compile(torch.empty(5), torch.empty(2, 8), torch.empty(2, 8), config=RunConfig())
    compiled(a, b, out)
    assert torch.equal(out, a + 4.0), (out, a)
elif MODE == "staged":
    kv, q = torch.randn(ST_ROWS, ST_COLS), torch.randn(ST_ROWS, ST_COLS)
    perm = torch.tensor([3, -1, 0, 7, 7, -1, 2, 1], dtype=torch.int32)
    inter, staged, scores = torch.zeros(ST_ROWS, ST_COLS), torch.zeros(ST_ROWS, ST_COLS), torch.zeros(ST_ROWS, 8)
    staged_on_device.compile(kv, q, perm, inter, staged, scores, config=RunConfig())(kv, q, perm, inter, staged, scores)
    assert torch.equal(inter, kv[:, torch.arange(ST_COLS) // 2]), (inter, kv)
    want = torch.stack([kv[j] if j >= 0 else torch.zeros(ST_COLS) for j in perm.tolist()])
    assert torch.equal(staged, want), (staged, want)
    raw = q @ kv.t()
    assert torch.allclose(scores, torch.exp(raw - raw.amax(dim=1, keepdim=True)), atol=1e-5), scores
elif MODE == "lanes":
    a = torch.randint(-3, 4, (LN_ROWS, LN_COLS)).float()
    b = torch.randint(-3, 4, (LN_COLS, LN_COLS)).float()
    halves, whole = torch.zeros(LN_ROWS, LN_COLS), torch.zeros(2 * LN_ROWS, LN_COLS)
    cmps, corner = torch.zeros(6 * LN_ROWS, LN_COLS), torch.zeros(1, 8)
    lanes_on_device.compile(a, b, halves, whole, cmps, corner, config=RunConfig())(a, b, halves, whole, cmps, corner)
    product = a @ b
    assert torch.equal(halves, 2 * product), (halves, product)
    assert torch.equal(whole, torch.cat([product, product])), whole
    ops = (torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge)
    want = torch.cat([f(a, b[:LN_ROWS]).float() for f in ops])
    assert torch.equal(cmps, want), (cmps, want)
    assert torch.equal(corner, torch.full((1, 8), float(a[-1, -1]))), corner
elif MODE == "masks":
    x = torch.randn(MK_ROWS, MK_COLS)
    idx = torch.stack([torch.randperm(MK_COLS)[:8] for _ in range(MK_ROWS)]).to(torch.int32)
    swapped, scattered, tiled = torch.zeros(MK_ROWS, MK_COLS), torch.zeros(MK_ROWS, MK_COLS), torch.full((MK_ROWS, MK_COLS), 7.0)
    joined = torch.zeros(MK_ROWS, MK_COLS)
    masks_on_device.compile(x, idx, swapped, scattered, tiled, joined, config=RunConfig())(x, idx, swapped, scattered, tiled, joined)
    flag = 1.0 if x[0, 0] >= 0 else 0.0
    assert torch.equal(joined, torch.cat([x[:, 8:] * flag, x[:, :8]], dim=1)), (joined, x)
    want = torch.empty_like(x)
    want[:, 0::2], want[:, 1::2] = x[:, 1::2], x[:, 0::2]
    assert torch.equal(swapped, want), (swapped, want)
    want = torch.full((MK_ROWS, MK_COLS), -1.0).scatter(1, idx.long(), x[:, 0:8])
    assert torch.equal(scattered, want), (scattered, want)
    want = torch.full((MK_ROWS, MK_COLS), 7.0)
    want[0], want[1] = 5.0, x[3]
    assert torch.equal(tiled, want), (tiled, want)
elif MODE == "sort":
    x = torch.randn(SR_ROWS, SR_N)
    x[:, 5] = x[:, 70] = x[:, 100] = 0.25  # ties, in three blocks: the earliest first
    order = torch.zeros(SR_ROWS, SR_N, dtype=torch.int32)
    pairwise = torch.zeros(SR_ROWS, SR_N, dtype=torch.int32)
    ranked = torch.zeros(SR_ROWS, SR_N)
    meta = torch.zeros(1, 8, dtype=torch.int32)
    sort_on_device.compile(x, order, ranked, pairwise, meta, config=RunConfig())(x, order, ranked, pairwise, meta)
    assert meta.tolist() == [[3 * e for e in range(8)]], meta
    want = torch.argsort(-x, dim=-1, stable=True).to(torch.int32)
    assert torch.equal(order, want), (order, want)
    assert torch.equal(pairwise, want), (pairwise, want)
    assert torch.equal(ranked, torch.gather(x, 1, want.long())), (ranked, x)
elif MODE == "transpose-view":
    a, b = torch.randn(TV_M, TV_K), torch.randn(TV_N, TV_K)
    c = torch.zeros(TV_M, TV_N)
    transpose_view_on_device.compile(a, b, c, config=RunConfig())(a, b, c)
    assert torch.allclose(c, a @ b.t(), atol=1e-4), (c, a @ b.t())
elif MODE in ("orch-assemble", "orch-assemble-manual"):
    x = torch.randn(4, COLS)
    out = torch.zeros(8, COLS)
    assemble_on_device.compile(x, out, config=RunConfig())(x, out)
    assert torch.equal(out, torch.cat([torch.zeros(4, COLS), 2 * x])), (out, x)
elif MODE == "unravel":
    import numpy as np

    for flat, shape in ((7, (2, 4)), ([0, 5, 11, -1], (3, 4)), (torch.tensor([[3], [4]]), (5,)), (0, (1, 1, 1))):
        got = torch.unravel_index(torch.as_tensor(flat), shape)
        want = np.unravel_index(np.asarray(flat) % int(np.prod(shape)), shape)
        assert len(got) == len(shape) and all(g.tolist() == w.tolist() for g, w in zip(got, want)), (flat, shape, got, want)
    # pldsim's stand-in for an older torch means what torch's own does,
    # past either end too (each dimension wraps)
    from pldsim import torch_compat

    for flat, shape in ((8, (2, 4)), (-1, (3, 4)), ([-13, 25, 7], (3, 4)), (torch.tensor([[3], [-4]]), (5,))):
        ours = torch_compat.unravel_index(torch.as_tensor(flat), shape)
        theirs = torch.unravel_index(torch.as_tensor(flat), shape)
        assert all(torch.equal(a, b) for a, b in zip(ours, theirs)), (flat, shape, ours, theirs)
elif MODE in ("prefetch", "prefetch-2d"):
    w = torch.randn(4, COLS)
    y = torch.zeros(4, COLS)
    prefetch_on_device.compile(w, y, config=RunConfig())(w, y)
    assert torch.equal(y, w + 1.0), (y, w)
elif MODE in ("init-value", "init-value-bf16"):
    out = torch.full((4, 8), 7.0)
    ids = torch.zeros(1, 8, dtype=torch.int32)
    init_value_on_device.compile(out, ids, config=RunConfig())(out, ids)
    want = torch.cat([torch.full((1, 8), float("-inf")), torch.full((2, 8), 0.5), torch.zeros(1, 8)])
    assert torch.equal(out, want) and torch.equal(ids, torch.full((1, 8), -1, dtype=torch.int32)), (out, ids)
elif MODE == "overread":
    x = torch.randn(8, 32).to(torch.bfloat16)
    w = torch.randn(16, 32).to(torch.bfloat16)
    out = torch.full((16, 16), 7.0)
    overread_on_device.compile(x, w, out, config=RunConfig())(x, w, out)
    # the rows past x are not x's: the product's valid part is x's 8 rows,
    # and a write of it writes those (as a valid_shape slice's would)
    want = torch.cat([x.float() @ w.float().t(), torch.full((8, 16), 7.0)])
    assert torch.allclose(out, want, rtol=1e-4, atol=1e-4), (out, want)
elif MODE == "big-assemble":
    src = torch.randn(*BIG)
    dst = torch.zeros(65, 8, 1024)
    big_assemble_on_device.compile(src, dst, config=RunConfig())(src, dst)
    assert torch.equal(dst[1:], src) and not dst[0].any()
elif MODE == "tile-assemble":
    x = torch.randn(4, 8)
    y = torch.full((8, 8), 7.0)
    tile_assemble_on_device.compile(x, y, config=RunConfig())(x, y)
    assert torch.equal(y, torch.cat([2 * x, torch.zeros(4, 8)])), y
elif MODE == "qwen3-idioms":
    x = torch.randn(6, COLS)
    y = torch.zeros(6, COLS)
    qwen3_idioms_on_device.compile(x, y, config=RunConfig())(x, y)
    assert torch.equal(y[0:2], x[4:6]) and not y[2:].any(), y
elif MODE == "column-reshape":
    x = torch.randn(8, 2 * COLS)
    y = torch.zeros(1, 4 * COLS)
    column_reshape_on_device.compile(x, y, config=RunConfig())(x, y)
    assert torch.equal(y, 2 * x[2:6, COLS:].reshape(1, -1)), y
elif MODE == "older-torch":
    from pldsim import torch_compat

    for name in ("float8_e4m3fn", "float8_e5m2"):
        if name in vars(torch):
            delattr(torch, name)
    torch_compat.install()
    assert not hasattr(torch, "float8_e4m3fn") and getattr(torch, "float8_e5m2", None) is None
    assert torch.float32 is not None and torch.unravel_index is not None

    def fp8_round(w):
        return w.to(torch.float8_e4m3fn).to(torch.bfloat16)  # FAULT older-torch

    fp8_round(torch.randn(4, 4))
else:
    raise SystemExit(f"unknown mode {MODE}")
print("OK")
