"""A BF16 allgather whose sizes are pl.dynamic: the rank count NR and the
row length N are bound when the program runs, not when it is written.  One
program, compiled for each device list given, is called at two row lengths
on each, in a kernel and as the host's builtin.

    pldsim-py bf16_allgather.py [-d DEVICES]...

Several -d lists run one after another in one process (upstream's case:
1, 2 and 5 ranks).  Prints OK when every result is every rank's row."""

import sys

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
N = pl.dynamic("N")
LISTS = [[int(d) for d in sys.argv[i + 1].split(",")] for i, a in enumerate(sys.argv) if a == "-d"] or [[0, 1]]


@pl.jit.incore
def gather(
    x: pl.Tensor[[1, N], pl.BF16],
    y: pl.Out[pl.Tensor[[NR, N], pl.BF16]],
    target: pld.DistributedTensor[[NR, N], pl.BF16],
    sig: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    pld.tensor.allgather(x, target, sig)
    return pl.store(pl.load(target, [0, 0], [NR, N]), [0, 0], y)


@pl.jit
def on_device(x, y, target, sig):
    return gather(x, y, target, sig)


@pl.jit.incore
def stage(x: pl.Tensor[[1, N], pl.BF16], mine: pld.DistributedTensor[[1, N], pl.BF16]):
    pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], mine)


@pl.jit.incore
def copy_out(target: pld.DistributedTensor[[NR, N], pl.BF16], y: pl.Out[pl.Tensor[[NR, N], pl.BF16]]):
    return pl.store(pl.load(target, [0, 0], [NR, N]), [0, 0], y)


@pl.jit
def stage_on_device(x, mine):
    stage(x, mine)


@pl.jit
def copy_on_device(target, y):
    return copy_out(target, y)


@pl.jit.host
def host(xs: pl.Tensor[[NR, 1, N], pl.BF16], ys: pl.Out[pl.Tensor[[NR, NR, N], pl.BF16]],
         builtin: pl.Out[pl.Tensor[[NR, NR, N], pl.BF16]]):
    nr = pld.world_size()
    row = xs.shape[2]
    target_buf = pld.alloc_window_buffer([nr, row], dtype=pl.BF16)
    # its own target: a rank still reading the first result must not see the second land in it
    second_buf = pld.alloc_window_buffer([nr, row], dtype=pl.BF16)
    mine_buf = pld.alloc_window_buffer([1, row], dtype=pl.BF16)
    sig_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
    again_buf = pld.alloc_window_buffer([16], dtype=pl.INT32)
    target = pld.window(target_buf, [nr, row], dtype=pl.BF16)
    for r in pl.range(nr):  # in a kernel
        on_device(xs[r], ys[r], target, pld.window(sig_buf, [nr, 1], dtype=pl.INT32), device=r)
    mine = pld.window(mine_buf, [1, row], dtype=pl.BF16)
    second = pld.window(second_buf, [nr, row], dtype=pl.BF16)
    for r in pl.range(nr):
        stage_on_device(xs[r], mine, device=r)
    pld.tensor.allgather(mine, second, pld.window(again_buf, [nr, 1], dtype=pl.INT32))  # the host's builtin
    for r in pl.range(nr):
        copy_on_device(second, builtin[r], device=r)


def main() -> None:
    for devices in LISTS:
        p = len(devices)
        cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=devices))
        compiled = None
        for n in (64, 96):  # two row lengths through one compiled program (whole cache lines)
            xs = torch.stack([(torch.arange(n) / 8 + 100 * r).reshape(1, n) for r in range(p)]).to(torch.bfloat16)
            ys = torch.zeros((p, p, n), dtype=torch.bfloat16)
            builtin = torch.zeros((p, p, n), dtype=torch.bfloat16)
            if compiled is None:
                compiled = host.compile(xs, ys, builtin, config=cfg)
            compiled(xs, ys, builtin)
            want = xs.reshape(p, n)
            for r in range(p):
                assert torch.equal(ys[r], want), f"P={p} N={n}: rank {r} gathered {ys[r][:, :3].tolist()}"
                assert torch.equal(builtin[r], want), f"P={p} N={n}: rank {r}'s builtin gave {builtin[r][:, :3].tolist()}"
        print(f"P={p}: N=64 and N=96 gathered")
    print("OK")


if __name__ == "__main__":
    main()
