"""The host's all_to_all_v launched core_num blocks wide (upstream's RFC
#2521), for the collective tests: each of P ranks sends a block of ROWS
rows of 256 FP32 to every rank, the count of rank r to d being
(r + 2d) % (ROWS + 2) rows (some past the capacity, some zero), twice on
one signal, then copies what it received out.

    pldsim-py a2av_blocks.py CORE_NUM [STRIDE [ROWS [full]]] [bytes] -d 0,1,...

STRIDE: the signal's columns (default CORE_NUM); ROWS: MAX_RECV (default
5); full: every count is ROWS (for timing); bytes: the send counts' buffer
is allocated by bytes, with no dtype (upstream's programs often do).  Checks the rows, the
clamped counts, and that every lane of the signal reads zero after."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

ARGS = sys.argv[1:]
DEVICES = [0, 1]
if "-d" in ARGS:  # the device list, as upstream's programs take it
    at = ARGS.index("-d")
    DEVICES = [int(d) for d in ARGS[at + 1].split(",")]
    del ARGS[at:at + 2]
BYTES = "bytes" in ARGS
if BYTES:
    ARGS.remove("bytes")
CORES = int(ARGS[0])
STRIDE = int(ARGS[1]) if len(ARGS) > 1 else CORES
ROWS = int(ARGS[2]) if len(ARGS) > 2 else 5
FULL = len(ARGS) > 3 and ARGS[3] == "full"
COLS = 256
P = len(DEVICES)


@pl.jit.incore
def stage(x: pl.Tensor[[P * ROWS, COLS], pl.FP32], n: pl.Tensor[[P, 1], pl.INT32],
          inp: pld.DistributedTensor[[P * ROWS, COLS], pl.FP32], cnt: pld.DistributedTensor[[P, 1], pl.INT32]):
    pl.store(pl.load(x, [0, 0], [P * ROWS, COLS]), [0, 0], inp)
    for d in pl.range(P):
        pl.write(cnt, [d, 0], pl.read(n, [d, 0]))


@pl.jit.incore
def collect(y: pl.Out[pl.Tensor[[P * ROWS, COLS], pl.FP32]], got: pl.Out[pl.Tensor[[P, 1 + STRIDE], pl.INT32]],
            target: pld.DistributedTensor[[P * ROWS, COLS], pl.FP32], recv: pld.DistributedTensor[[P, 1], pl.INT32],
            sig: pld.DistributedTensor[[P, STRIDE], pl.INT32]):
    y = pl.store(pl.load(target, [0, 0], [P * ROWS, COLS]), [0, 0], y)
    for s in pl.range(P):
        pl.write(got, [s, 0], pl.read(recv, [s, 0]))
        for k in pl.range(STRIDE):
            pl.write(got, [s, 1 + k], pl.read(sig, [s, k]))
    return y


@pl.jit
def stage_on_device(x, n, inp, cnt):
    stage(x, n, inp, cnt)


@pl.jit
def collect_on_device(y, got, target, recv, sig):
    return collect(y, got, target, recv, sig)


@pl.jit.host
def host(x: pl.Tensor[[P, P * ROWS, COLS], pl.FP32], n: pl.Tensor[[P, P, 1], pl.INT32],
         y: pl.Out[pl.Tensor[[P, P * ROWS, COLS], pl.FP32]], got: pl.Out[pl.Tensor[[P, P, 1 + STRIDE], pl.INT32]]):
    inp_buf = pld.alloc_window_buffer([P * ROWS, COLS], dtype=pl.FP32)
    target_buf = pld.alloc_window_buffer([P * ROWS, COLS], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([(P * STRIDE + 15) // 16 * 16], dtype=pl.INT32)  # whole cache lines
    cnt_buf = pld.alloc_window_buffer(64) if BYTES else pld.alloc_window_buffer([16], dtype=pl.INT32)
    recv_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
    inp = pld.window(inp_buf, [P * ROWS, COLS], dtype=pl.FP32)
    target = pld.window(target_buf, [P * ROWS, COLS], dtype=pl.FP32)
    sig = pld.window(sig_buf, [P, STRIDE], dtype=pl.INT32)
    cnt = pld.window(cnt_buf, [P, 1], dtype=pl.INT32)
    recv = pld.window(recv_buf, [P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage_on_device(x[r], n[r], inp, cnt, device=r)
    for _ in pl.range(2):
        pld.tensor.all_to_all_v(inp, target, sig, cnt, recv, core_num=CORES)  # FAULT call
    for r in pl.range(pld.world_size()):
        collect_on_device(y[r], got[r], target, recv, sig, device=r)


def count(r: int, d: int) -> int:
    """What rank r sends to d."""
    return ROWS if FULL else (r + 2 * d) % (ROWS + 2)


def main() -> None:
    x = torch.stack([torch.arange(P * ROWS * COLS, dtype=torch.float32).reshape(P * ROWS, COLS) + 100000 * r for r in range(P)])
    n = torch.tensor([[[count(r, d)] for d in range(P)] for r in range(P)], dtype=torch.int32)
    y = torch.zeros((P, P * ROWS, COLS))
    got = torch.full((P, P, 1 + STRIDE), -1, dtype=torch.int32)
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=DEVICES))
    host.compile(x, n, y, got, config=cfg)(x, n, y, got)
    for me in range(P):
        for s in range(P):
            want = min(count(s, me), ROWS)
            assert got[me, s, 0] == want, f"rank {me}: recv_counts[{s}] = {int(got[me, s, 0])}, not {want}"
            block = y[me, s * ROWS:(s + 1) * ROWS]
            sent = x[s, me * ROWS:(me + 1) * ROWS]
            assert torch.equal(block[:want], sent[:want]), f"rank {me}: rows from {s} differ"
            assert not block[want:].any(), f"rank {me}: rows past the count from {s} were written"
            assert not got[me, s, 1:].any(), f"rank {me}: signal row {s} reads {got[me, s, 1:].tolist()}"
    print("OK")


if __name__ == "__main__":
    main()
