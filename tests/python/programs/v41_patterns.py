"""The communication patterns of pypto-lib's DeepSeek-V4.1 layers, written
here as small programs of our own, one per mode, for the tests:

    pldsim-py v41_patterns.py MODE [ROUNDS]

self-put-load: each rank puts its row into its own window (a put whose
peer is itself, as the dispatch's self-peer lane), tells its peer, then
pulls the peer's row with pld.tile.remote_load and adds its own: every
rank ends with x0 + x1.
credit-rounds: one window and one credit signal serve ROUNDS (default 2)
rounds: each round, every rank puts a fresh row into its peer's window and
adds a credit to the peer's signal; the receiver waits for its credit,
reads the row, and retires the credit with a negative atomic add to its
own signal (the cell is back to 0 for the next round); then a barrier
round, so that no rank overwrites a window its peer has not read.
lanes-defer: a 3-D signal [P, LANES, 128] INT32, one 512-byte lane per
sender and lane (no two lanes share a cache line); each rank notifies
every lane of its row at the peer, then defers its waits on the peer's
row (pld.system.defer_wait) in a task whose successor reads the data.
dummy-fanin: pl.system.task_dummy as the V4.1 files use it: a source
dummy with deps=[] seeding a chain, a fan-in over a pl.array of task ids,
and one over a list of the array's elements; a last task reads what
every producer wrote.
fp8-window: MX quantisation carried in byte windows, as the V4.1 MoE
dispatch does it: each rank quantises its rows to FP8E4M3FN with the
E8M0 scales it is given (pl.cast, mode="rint"), re-views the FP8 tile as
INT8 and the scales as UINT8 (pl.reinterpret_view), puts both into its
peer's INT8 and UINT8 windows and notifies; the receiver re-views the
bytes as FP8 (a tile, and a window view), keeps the FP8 rows and
dequantises them to FP32.  torch must give the same bits.
fp8-casts: pl.cast of FP32 tiles to FP8E4M3FN and FP8E8M0 and back, on
every FP8 code, the midpoints between codes (ties), their neighbours one
float ulp away, every float exponent, zeros, infinities, NaN and float
subnormals: the bytes must be torch's.
bf16-pairs: FP32 values carried as BF16 bit pairs, as dspark's
decode_cp_allgather.py carries its CSA payload: each rank re-views its
FP32 row as BF16 (twice the columns), puts it into its own BF16 window,
and its peer pulls it (pld.tile.remote_load) and re-views it as FP32: the
values arrive bit for bit, NaN payloads and all.
reinterpret-odd: a [1, 34] INT8 tile re-viewed as FP32 (34 bytes are no
whole number of FP32): refused in one line.
Each mode prints OK when its results match torch."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
P, COLS, LANES = 2, 64, 4


# ---- self-put-load ------------------------------------------------------------------


@pl.jit
def self_put_then_load(
    x: pl.Tensor[[1, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[1, COLS], pl.FP32]],
    win: pld.DistributedTensor[[1, COLS], pl.FP32],
    sig: pld.DistributedTensor[[P, 16], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="self_put_load"):
        pld.tensor.put(dst=win, peer=me, src=x, dst_offsets=[0, 0], src_offsets=[0, 0], shape=[1, COLS])
        pld.system.notify(target=sig, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=sig, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        theirs = pld.tile.remote_load(win, peer=peer, offsets=[0, 0], shape=[1, COLS])
        mine = pl.load(win, [0, 0], [1, COLS])
        pl.store(pl.add(theirs, mine), [0, 0], y)
    return y


@pl.jit.host
def self_put_host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, 1, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    sig = pld.alloc_window_buffer([P, 16], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        self_put_then_load(
            x[rank], y[rank], pld.window(win, [1, COLS], dtype=pl.FP32), pld.window(sig, [P, 16], dtype=pl.INT32), rank, device=rank
        )


# ---- credit-rounds ------------------------------------------------------------------


@pl.jit
def credit_rounds(
    x: pl.Tensor[[ROUNDS, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[ROUNDS, COLS], pl.FP32]],
    win: pld.DistributedTensor[[1, COLS], pl.FP32],
    credit: pld.DistributedTensor[[1, 16], pl.INT32],
    done: pld.DistributedTensor[[1, 16], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rounds"):
        for r in pl.range(ROUNDS):
            pld.tensor.put(dst=win, peer=peer, src=x, dst_offsets=[0, 0], src_offsets=[r, 0], shape=[1, COLS])
            pld.system.notify(target=credit, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(signal=credit, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
            row = pl.load(win, [0, 0], [1, COLS])
            pl.store(row, [r, 0], y)
            # retire the credit: the cell is 0 again before the next round's
            pld.system.notify(target=credit, peer=me, offsets=[0, 0], value=-1, op=pld.NotifyOp.AtomicAdd)
            # the window is read: the peer may overwrite it
            pld.system.notify(target=done, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(signal=done, offsets=[0, 0], expected=r + 1, cmp=pld.WaitCmp.Ge)
    return y


@pl.jit.host
def credit_host(x: pl.Tensor[[P, ROUNDS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, ROUNDS, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    # a 64-byte row each: two signals in one cache line corrupt on hardware
    credit = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    done = pld.alloc_window_buffer([1, 16], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        credit_rounds(
            x[rank], y[rank], pld.window(win, [1, COLS], dtype=pl.FP32), pld.window(credit, [1, 16], dtype=pl.INT32),
            pld.window(done, [1, 16], dtype=pl.INT32), rank, device=rank,
        )


# ---- lanes-defer --------------------------------------------------------------------


@pl.jit
def lanes_on_device(
    x: pl.Tensor[[LANES, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[LANES, COLS], pl.FP32]],
    win: pld.DistributedTensor[[LANES, COLS], pl.FP32],
    lanes: pld.DistributedTensor[[P, LANES, 128], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="push") as push_tid:
        for lane in pl.range(LANES):
            pld.tensor.put(dst=win, peer=peer, src=x, dst_offsets=[lane, 0], src_offsets=[lane, 0], shape=[1, COLS])
            pld.system.notify(target=lanes, peer=peer, offsets=[me, lane, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="arrive", deps=[push_tid]) as wait_tid:
        for lane in pl.range(LANES):
            pld.system.defer_wait(signal=lanes, offsets=[peer, lane, 0], expected=1, cmp=pld.WaitCmp.Ge)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="read", deps=[wait_tid]):
        for lane in pl.range(LANES):
            pl.store(pl.load(win, [lane, 0], [1, COLS]), [lane, 0], y)
    return y


@pl.jit.host
def lanes_host(x: pl.Tensor[[P, LANES, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, LANES, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([LANES, COLS], dtype=pl.FP32)
    sig = pld.alloc_window_buffer([P, LANES, 128], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        lanes_on_device(
            x[rank], y[rank], pld.window(win, [LANES, COLS], dtype=pl.FP32), pld.window(sig, [P, LANES, 128], dtype=pl.INT32),
            rank, device=rank,
        )


# ---- dummy-fanin --------------------------------------------------------------------

PARTS = 3

# ---- fp8-window ------------------------------------------------------------------------

ROWS, GROUP = 64, 32  # one MX group (32 elements, one E8M0 scale) per row


@pl.jit
def fp8_exchange(
    x: pl.Tensor[[ROWS, GROUP], pl.FP32],
    scale: pl.Tensor[[ROWS, 1], pl.FP8E8M0],
    got_q: pl.InOut[pl.Tensor[[ROWS, GROUP], pl.FP8E4M3FN]],
    got_x: pl.InOut[pl.Tensor[[ROWS, GROUP], pl.FP32]],
    recv_x: pld.DistributedTensor[[ROWS, GROUP], pl.INT8],
    recv_scale: pld.DistributedTensor[[ROWS, 1], pl.UINT8],
    sig: pld.DistributedTensor[[P, 128], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    stage_x = pl.create_tensor([ROWS, GROUP], dtype=pl.INT8)
    stage_scale = pl.create_tensor([ROWS, 1], dtype=pl.UINT8)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="quantise_and_send"):
        s = pl.load(scale, [0, 0], [ROWS, 1])
        q = pl.cast(pl.row_expand_div(pl.load(x, [0, 0], [ROWS, GROUP]), pl.cast(s, pl.FP32)), pl.FP8E4M3FN, mode="rint")
        pl.store(pl.reinterpret_view(q, pl.INT8), [0, 0], stage_x)
        pl.store(pl.reinterpret_view(s, pl.UINT8), [0, 0], stage_scale)
        pld.tensor.put(dst=recv_x, peer=peer, src=stage_x, dst_offsets=[0, 0], src_offsets=[0, 0], shape=[ROWS, GROUP])
        pld.tensor.put(dst=recv_scale, peer=peer, src=stage_scale, dst_offsets=[0, 0], src_offsets=[0, 0], shape=[ROWS, 1])
        pld.system.notify(target=sig, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="receive_and_dequantise"):
        pld.system.wait(signal=sig, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        raw = pl.load(recv_x, [0, 0], [ROWS, GROUP])
        pl.store(pl.reinterpret_view(raw, pl.FP8E4M3FN), [0, 0], got_q)
        # the same bytes through an FP8 view of the window itself
        q = pl.load(pl.reinterpret_view(recv_x, pl.FP8E4M3FN), [0, 0], [ROWS, GROUP])
        s = pl.reinterpret_view(pl.load(recv_scale, [0, 0], [ROWS, 1]), pl.FP8E8M0)
        pl.store(pl.row_expand_mul(pl.cast(q, pl.FP32), pl.cast(s, pl.FP32)), [0, 0], got_x)
    return got_x


CAST_ROWS, CAST_COLS = 8, 128


@pl.jit
def fp8_casts(
    x: pl.Tensor[[CAST_ROWS * 16, CAST_COLS], pl.FP32],
    q: pl.InOut[pl.Tensor[[CAST_ROWS * 16, CAST_COLS], pl.FP8E4M3FN]],
    e: pl.InOut[pl.Tensor[[CAST_ROWS * 16, CAST_COLS], pl.FP8E8M0]],
    back: pl.InOut[pl.Tensor[[CAST_ROWS * 16, 2 * CAST_COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="casts"):
        for i in pl.range(16):
            t = pl.load(x, [i * CAST_ROWS, 0], [CAST_ROWS, CAST_COLS])
            tq = pl.cast(t, pl.FP8E4M3FN, mode="rint")
            te = pl.cast(t, pl.FP8E8M0, mode="rint")
            pl.store(tq, [i * CAST_ROWS, 0], q)
            pl.store(te, [i * CAST_ROWS, 0], e)
            pl.store(pl.cast(tq, pl.FP32), [i * CAST_ROWS, 0], back)
            pl.store(pl.cast(te, pl.FP32), [i * CAST_ROWS, CAST_COLS], back)
    return back


@pl.jit
def bf16_pairs(
    x: pl.Tensor[[1, COLS], pl.FP32],
    y: pl.InOut[pl.Tensor[[1, COLS], pl.FP32]],
    win: pld.DistributedTensor[[1, 2 * COLS], pl.BF16],
    sig: pld.DistributedTensor[[P, 16], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    peer = 1 - me
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pairs"):
        pl.store(pl.reinterpret_view(pl.load(x, [0, 0], [1, COLS]), pl.BF16), [0, 0], win)
        pld.system.notify(target=sig, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=sig, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        bits = pld.tile.remote_load(win, peer=peer, offsets=[0, 0], shape=[1, 2 * COLS])
        pl.store(pl.reinterpret_view(bits, pl.FP32), [0, 0], y)
    return y


@pl.jit.host
def bf16_pairs_host(x: pl.Tensor[[P, 1, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[P, 1, COLS], pl.FP32]]):
    win = pld.alloc_window_buffer([1, 2 * COLS], dtype=pl.BF16)
    sig = pld.alloc_window_buffer([P, 16], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        bf16_pairs(
            x[rank], y[rank], pld.window(win, [1, 2 * COLS], dtype=pl.BF16), pld.window(sig, [P, 16], dtype=pl.INT32), rank, device=rank
        )


@pl.jit
def reinterpret_odd(x: pl.Tensor[[1, 34], pl.INT8], y: pl.InOut[pl.Tensor[[1, 34], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="odd"):
        t = pl.load(x, [0, 0], [1, 34])
        pl.store(pl.reinterpret_view(pl.reinterpret_view(t, pl.FP32), pl.INT8), [0, 0], y)
    return y


def cast_inputs() -> torch.Tensor:
    """CAST_ROWS * 16 * CAST_COLS floats that cover every rounding case."""
    codes = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn).float()
    finite = codes[~codes.isnan()].unique()
    mids = (finite[1:] + finite[:-1]) / 2
    bits = mids.view(torch.int32)
    near = torch.cat([mids, (bits + 1).view(torch.float32), (bits - 1).view(torch.float32)])
    exps = torch.arange(256, dtype=torch.int32) << 23
    mants = torch.tensor([0, 1, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFF], dtype=torch.int32)
    every_exp = (exps.view(-1, 1) | mants.view(1, -1)).flatten().view(torch.float32)
    special = torch.tensor([0.0, 448.0, 449.0, 464.0, 480.0, 1e30, float("inf"), float("nan"), 2.0**-10, 2.0**-9 * 1.5])
    v = torch.cat([finite, near, every_exp, special])
    v = torch.cat([v, -v])
    n = CAST_ROWS * 16 * CAST_COLS
    assert v.numel() <= n, v.numel()
    return torch.cat([v, torch.zeros(n - v.numel())]).view(CAST_ROWS * 16, CAST_COLS)


@pl.jit.host
def fp8_host(
    x: pl.Tensor[[P, ROWS, GROUP], pl.FP32],
    scale: pl.Tensor[[P, ROWS, 1], pl.FP8E8M0],
    got_q: pl.InOut[pl.Tensor[[P, ROWS, GROUP], pl.FP8E4M3FN]],
    got_x: pl.InOut[pl.Tensor[[P, ROWS, GROUP], pl.FP32]],
):
    rx = pld.alloc_window_buffer([ROWS, GROUP], dtype=pl.INT8)
    rs = pld.alloc_window_buffer([ROWS, 1], dtype=pl.UINT8)
    sig = pld.alloc_window_buffer([P, 128], dtype=pl.INT32)
    for rank in pl.range(pld.world_size()):
        fp8_exchange(
            x[rank], scale[rank], got_q[rank], got_x[rank],
            pld.window(rx, [ROWS, GROUP], dtype=pl.INT8), pld.window(rs, [ROWS, 1], dtype=pl.UINT8),
            pld.window(sig, [P, 128], dtype=pl.INT32), rank, device=rank,
        )



@pl.jit
def fanin_on_device(x: pl.Tensor[[PARTS, COLS], pl.FP32], y: pl.InOut[pl.Tensor[[PARTS + 1, COLS], pl.FP32]]):
    with pl.manual_scope():
        seed = pl.system.task_dummy(deps=[])
        tids = pl.array.create(PARTS, pl.TASK_ID)
        for i in pl.range(PARTS):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="part", deps=[seed]) as tid:
                pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 3.0), [i, 0], y)
            tids[i] = tid
        all_parts = pl.system.task_dummy(deps=[tids])
        each_part = pl.system.task_dummy(deps=[tids[i] for i in range(PARTS)])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sum", deps=[all_parts, each_part]):
            acc = pl.load(y, [0, 0], [1, COLS])
            for i in pl.range(1, PARTS):
                acc = pl.add(acc, pl.load(y, [i, 0], [1, COLS]))
            pl.store(acc, [PARTS, 0], y)
    return y


config = RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P))))
if MODE == "self-put-load":
    x = torch.randn(P, 1, COLS)
    y = torch.zeros(P, 1, COLS)
    self_put_host.compile(x, y, config=config)(x, y)
    for r in range(P):
        assert torch.allclose(y[r], x[0] + x[1]), (r, y[r], x)
elif MODE in ("credit-rounds", "lanes-defer"):
    # each rank ends with its peer's rows
    host, rows = (credit_host, ROUNDS) if MODE == "credit-rounds" else (lanes_host, LANES)
    x = torch.randn(P, rows, COLS)
    y = torch.zeros(P, rows, COLS)
    host.compile(x, y, config=config)(x, y)
    for r in range(P):
        assert torch.equal(y[r], x[1 - r]), (r, y[r], x[1 - r])
elif MODE == "dummy-fanin":
    x = torch.randn(PARTS, COLS)
    y = torch.zeros(PARTS + 1, COLS)
    fanin_on_device.compile(x, y, config=RunConfig())(x, y)
    assert torch.allclose(y[:PARTS], 3 * x) and torch.allclose(y[PARTS], 3 * x.sum(0), atol=1e-5), y
elif MODE == "fp8-window":
    # magnitudes from 2^-12 to 2^12, so that rows use subnormal, normal and
    # saturating codes; a scale of about amax / 448 rounded to E8M0
    g = torch.Generator().manual_seed(7)
    x = torch.randn(P, ROWS, GROUP, generator=g) * torch.logspace(-12, 12, ROWS, base=2.0).view(1, ROWS, 1)
    x[0, 3, 5] = float("nan")
    scale = (x.nan_to_num(0).abs().amax(-1, keepdim=True) / 448).to(torch.float8_e8m0fnu)
    scale[1, 2, 0] = scale[1, 2, 0].float() / 4  # too small a scale: the row saturates at 448
    got_q = torch.zeros(P, ROWS, GROUP, dtype=torch.float8_e4m3fn)
    got_x = torch.zeros(P, ROWS, GROUP)
    fp8_host.compile(x, scale, got_q, got_x, config=config)(x, scale, got_q, got_x)
    for r in range(P):
        want_q = (x[1 - r] / scale[1 - r].float()).to(torch.float8_e4m3fn)
        assert torch.equal(got_q[r].view(torch.uint8), want_q.view(torch.uint8)), (r, got_q[r].view(torch.uint8), want_q.view(torch.uint8))
        want_x = want_q.float() * scale[1 - r].float()
        assert torch.equal(got_x[r].nan_to_num(-1), want_x.nan_to_num(-1)), (r, got_x[r], want_x)
elif MODE == "fp8-casts":
    x = cast_inputs()
    q = torch.zeros(x.shape, dtype=torch.float8_e4m3fn)
    e = torch.zeros(x.shape, dtype=torch.float8_e8m0fnu)
    back = torch.zeros(x.shape[0], 2 * x.shape[1])
    fp8_casts.compile(x, q, e, back, config=RunConfig())(x, q, e, back)
    for got, want in ((q, x.to(torch.float8_e4m3fn)), (e, x.to(torch.float8_e8m0fnu))):
        bad = (got.view(torch.uint8) != want.view(torch.uint8)).nonzero()
        assert bad.numel() == 0, [(x[i, j].item(), got[i, j].view(torch.uint8).item(), want[i, j].view(torch.uint8).item()) for i, j in bad[:8].tolist()]
    want_back = torch.cat([q.float(), e.float()], 1)
    assert torch.equal(back.nan_to_num(-1), want_back.nan_to_num(-1))
elif MODE == "bf16-pairs":
    x = torch.randn(P, 1, COLS)
    x.view(torch.int32)[0, 0, 3] = 0x7FC12345  # a NaN with a payload: copied, never converted
    y = torch.zeros(P, 1, COLS)
    bf16_pairs_host.compile(x, y, config=config)(x, y)
    for r in range(P):
        assert torch.equal(y[r].view(torch.int32), x[1 - r].view(torch.int32)), (r, y[r], x[1 - r])
elif MODE == "reinterpret-odd":
    x = torch.zeros(1, 34, dtype=torch.int8)
    reinterpret_odd.compile(x, x.clone(), config=RunConfig())(x, x.clone())
else:
    raise SystemExit(f"unknown mode {MODE}")
print("OK")
