"""Reductions and reshapes of Vec tiles, on-core arrays and pl.const on one
device, and each misuse (a line marked # FAULT MODE).

    pldsim-py tiles.py MODE [N]

MODE: reduce (every row and column reduction, of a whole tile and of its
valid part), tensor-reduce (pl.row_sum of a tensor), reshape, array,
const (each prints OK when its result is torch's); timing N (N row_sums
of an [R, C] tile, for the test of their charge); or a FAULT mode."""

import sys

import pypto.language as pl
import torch

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 0
R, C = 8, 16


@pl.jit.incore
def reductions(x: pl.Tensor[[R, C], pl.FP32], rows: pl.Out[pl.Tensor[[4, R], pl.FP32]], cols: pl.Out[pl.Tensor[[4, C], pl.FP32]], part: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
    t = pl.load(x, [0, 0], [R, C])
    tmp = pl.tile.create([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    for i, red in enumerate((pl.tile.row_sum, pl.tile.row_max, pl.tile.row_min, pl.tile.row_prod)):
        pl.store(pl.tile.reshape(red(t, tmp), [1, R]), [i, 0], rows)
    for i, red in enumerate((pl.tile.col_sum, pl.tile.col_max, pl.tile.col_min, pl.tile.col_prod)):
        pl.store(red(t), [i, 0], cols)
    # only the valid part is reduced: the first 3 rows
    head = pl.load(x, [0, 0], [R, C], valid_shape=[3, C])
    return pl.store(pl.col_sum(head), [0, 0], part)


@pl.jit.incore
def tensor_reduce(x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
    out[0:R, 0:1] = pl.row_sum(x)
    return out


@pl.jit.incore
def reshaped(x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[C, R], pl.FP32]]):
    t = pl.load(x, [0, 0], [R, C])
    return pl.store(pl.reshape(t, [C, R]), [0, 0], out)


@pl.jit.incore
def arrays(x: pl.Tensor[[R, C], pl.INT32], out: pl.Out[pl.Tensor[[1, C], pl.INT32]]):
    hist = pl.array.create(C, pl.INT32)
    for i in pl.range(C):
        hist[i] = 0
    for r in pl.range(R):
        for c in pl.range(C):
            v = pl.read(x, [r, c])
            hist[v] = hist[v] + 1
    for i in pl.range(C):
        pl.write(out, [0, i], hist[i])
    copy = pl.array.update_element(hist, 0, -1)
    assert pl.array.get_element(copy, 0) == -1 and hist[0] != -1, "update_element makes a new array"
    small = pl.array.create(2, pl.INT8)
    small[0] = 200  # wraps as an INT8 does
    assert small[0] == -56, small[0]
    return out


@pl.jit.incore
def consts(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    a, b = pl.const(3.7, pl.INT32), pl.const(2, pl.FP32)
    assert a == 3 and isinstance(a, int) and b == 2.0 and isinstance(b, float), (a, b)
    pl.write(out, [0, 0], a)
    return out


@pl.jit.incore
def timed(x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INT32]):
    t = pl.load(x, [0, 0], [R, C])
    tmp = pl.tile.create([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    for _ in pl.range(n):
        pl.tile.row_sum(t, tmp)


@pl.jit.incore
def fault(x: pl.Tensor[[R, C], pl.FP32], xi: pl.Tensor[[R, C], pl.INT32]):
    t = pl.load(x, [0, 0], [R, C])
    if MODE == "tmp-dtype":
        pl.tile.row_sum(t, pl.tile.create([R, C], dtype=pl.FP16))  # FAULT tmp-dtype
    if MODE == "tmp-small":
        pl.tile.row_max(t, pl.tile.create([R, C // 2], dtype=pl.FP32))  # FAULT tmp-small
    if MODE == "no-tmp":
        pl.row_sum(t)  # FAULT no-tmp
    if MODE == "tensor-tmp":
        pl.row_sum(x, t)  # FAULT tensor-tmp
    if MODE == "row-min-dtype":
        ti = pl.cast(pl.load(xi, [0, 0], [R, C]), pl.INT8, mode="trunc")
        pl.tile.row_min(ti, ti)  # FAULT row-min-dtype
    if MODE == "one-dim":
        v = pl.tile.reshape(t, [R * C])
        pl.tile.col_max(v)  # FAULT one-dim
    if MODE == "mat-input":
        pl.tile.col_sum(pl.load(x, [0, 0], [R, C], target_memory=pl.Mem.Mat))  # FAULT mat-input
    if MODE == "reshape-size":
        pl.tile.reshape(t, [R, R])  # FAULT reshape-size
    if MODE == "reshape-valid":
        pl.tile.reshape(pl.load(x, [0, 0], [R, C], valid_shape=[R, 3]), [C, R])  # FAULT reshape-valid
    if MODE == "array-dtype":
        pl.array.create(4, pl.FP32)  # FAULT array-dtype
    if MODE == "array-extent":
        pl.array.create(0, pl.INT32)  # FAULT array-extent
    if MODE == "array-index":
        a = pl.array.create(4, pl.INT32)
        a[4] = 1  # FAULT array-index
    if MODE == "array-value":
        a = pl.array.create(4, pl.INT32)
        a[0] = 1.5  # FAULT array-value
    if MODE == "const-type":
        pl.const("1", pl.INT32)  # FAULT const-type


@pl.jit
def on_device(x, xi, rows, cols, part, col1, tr, hist, one):
    if MODE == "reduce":
        reductions(x, rows, cols, part)
    elif MODE == "tensor-reduce":
        tensor_reduce(x, col1)
    elif MODE == "reshape":
        reshaped(x, tr)
    elif MODE == "array":
        arrays(xi, hist)
    elif MODE == "const":
        consts(one)
    elif MODE == "timing":
        timed(x, N)
    else:
        fault(x, xi)


torch.manual_seed(0)
x = torch.randn(R, C)
xi = torch.randint(0, C, (R, C), dtype=torch.int32)
rows, cols, part = torch.zeros(4, R), torch.zeros(4, C), torch.zeros(1, C)
col1, tr = torch.zeros(R, 1), torch.zeros(C, R)
hist, one = torch.zeros(1, C, dtype=torch.int32), torch.zeros(1, 8, dtype=torch.int32)
on_device(x, xi, rows, cols, part, col1, tr, hist, one)

close = lambda a, b: torch.allclose(a, b, rtol=1e-5, atol=1e-5)  # noqa: E731
if MODE == "reduce":
    want_rows = torch.stack([x.sum(1), x.amax(1), x.amin(1), x.prod(1)])
    want_cols = torch.stack([x.sum(0), x.amax(0), x.amin(0), x.prod(0)])
    assert close(rows, want_rows), (rows - want_rows).abs().max()
    assert close(cols, want_cols), (cols - want_cols).abs().max()
    assert close(part, x[0:3].sum(0, keepdim=True)), part
elif MODE == "tensor-reduce":
    assert close(col1, x.sum(1, keepdim=True)), col1
elif MODE == "reshape":
    assert torch.equal(tr, x.reshape(C, R)), tr
elif MODE == "array":
    assert torch.equal(hist[0], torch.bincount(xi.flatten().long(), minlength=C).int()), hist
elif MODE == "const":
    assert one[0, 0].item() == 3, one
print("OK")
