"""The vector unit's sort: ``pl.sort32`` and ``pl.mrgsort``.

The hardware sorts records of (value, index): an FP32 score and a 32-bit
index side by side, two words a record, so that a row of N scores becomes
a row of 2N words.  ``sort32`` sorts every block of 32 records, largest
value first; ``mrgsort`` merges sorted runs, either the runs of
`block_len` words of one row, four at a time (its first form), or two to
four sorted rows (its second form).  ``pl.gather(pairs,
mask_pattern=P0101)`` then takes the values and ``P1010`` with
``output_dtype=pl.INT32`` the indices (vector_math.py).

Equal values keep their order (the earlier block, or the earlier source,
first): the order pypto-lib's goldens take from a stable argsort.  A merge
is computed here as a stable sort of what it merges, which is the merge
when the runs are sorted, as the hardware requires them to be.

Charged (uncalibrated, as the rest of the vector math): sort32 five
element operations per record (log2 32 compare-exchange passes), a merge
one per record it writes."""

from __future__ import annotations

from typing import Any

from . import cube, vector_math
from .errors import UnsupportedError, UsageTypeError, UsageValueError
from .values import FP32, torch

#: records a sort32 block holds; words a record takes
BLOCK, WORDS = 32, 2
#: the passes of a 32-record sorting network (log2 32)
SORT_PASSES = 5


def _records(op: str, x: Any, what: str) -> tuple[Any, bool]:
    """A row of records: an FP32 [rows, 2n] tile or value (n records a row)."""
    t, tensor_level = vector_math.operand(op, x, what)
    if t.dtype is not FP32:
        raise UnsupportedError(op, f"{what} is {t.dtype!r}: pldsim sorts FP32 records only (FP16 ones are not modelled)")
    if len(t.shape) != 2 or t.shape[1] % WORDS:
        raise UsageValueError(op, f"{what} must be [rows, 2n] words of (value, index) records, got {list(t.shape)}")
    return t, tensor_level


def _stable_descending(words: Any, rows: int, groups: int) -> Any:
    """Each of `groups` runs of records of each row sorted, largest value
    first, equal values in their order."""
    th = torch()
    rec = words.reshape(rows, groups, -1, WORDS)
    _, order = th.sort(rec[..., 0], dim=-1, descending=True, stable=True)
    return th.gather(rec, 2, order.unsqueeze(-1).expand(*order.shape, WORDS)).reshape(rows, -1)


def sort32(src: Any, idx: Any) -> Any:
    """``pl.sort32(scores, idx)``: scores [rows, n] (FP32, n a multiple of
    32) and their indices [1 or rows, n] (UINT32) as [rows, 2n] records,
    each block of 32 sorted by score, largest first."""
    op = "pl.sort32"
    s, s_tensor = vector_math.operand(op, src, "the scores")
    i, i_tensor = vector_math.operand(op, idx, "the indices")
    if s.dtype is not FP32:
        raise UnsupportedError(op, f"the scores are {s.dtype!r}: pldsim sorts FP32 scores only (FP16 records are not modelled)")
    if i.dtype.name != "UINT32":
        raise UsageTypeError(op, f"the indices must be UINT32 (pl.arange(..., dtype=pl.UINT32)), got {i.dtype!r}")
    if len(s.shape) != 2 or s.shape[1] % BLOCK or not 0 < s.shape[1] // BLOCK <= 255:
        raise UsageValueError(op, f"the scores must be [rows, n] with n 1 to 255 whole blocks of {BLOCK}, got {list(s.shape)}")
    rows, n = s.shape
    if len(i.shape) != 2 or i.shape[1] != n or i.shape[0] not in (1, rows):
        raise UsageValueError(op, f"the indices must be [1, {n}] or [{rows}, {n}], one a score, got {list(i.shape)}")
    shape = [rows, WORDS * n]
    valid = [cube.valid_of(s)[0], WORDS * n]
    values, index = cube.values_of(op, s, "the scores"), cube.values_of(op, i, "the indices")
    data = None
    if values is not None and index is not None:
        th = torch()
        bits = index.expand(rows, n).contiguous().view(th.float32)  # the index's bits in a float word
        data = _stable_descending(th.stack([values, bits], dim=-1).reshape(rows, -1), rows, n // BLOCK)
    return vector_math.result(op, FP32, shape, valid, data, s_tensor or i_tensor, rows * n * SORT_PASSES)


def mrgsort(src0: Any, src1: Any = None, src2: Any = None, src3: Any = None, *, exhausted: bool = False, block_len: Any = None) -> Any:
    """``pl.mrgsort(pairs, block_len=L)``: every four runs of L words (L a
    multiple of 64) of each row merged into one; ``pl.mrgsort(a, b[, c[,
    d]])``: two to four sorted rows of records merged into one row."""
    op = "pl.mrgsort"
    if not isinstance(exhausted, bool):
        raise UsageTypeError(op, f"exhausted must be True or False, got {exhausted!r}")
    if block_len is not None:
        if exhausted or any(s is not None for s in (src1, src2, src3)):
            raise UsageValueError(op, "block_len= (one source) and several sources are two forms of pl.mrgsort; give one")
        block = vector_math.plain_number(block_len)
        if isinstance(block, bool) or not isinstance(block, int) or block < 64 or block % 64:
            raise UsageValueError(op, f"block_len must be a multiple of 64 words, got {block_len!r}")
        t, tensor_level = _records(op, src0, "the source")
        rows, width = t.shape
        if width % block:
            raise UsageValueError(op, f"the row of {width} words is not whole runs of block_len={block}")
        data = cube.values_of(op, t, "the source")
        if data is not None:  # every four runs merged; a last group of fewer, alone
            group = 4 * block
            data = torch().cat([_stable_descending(data[:, g : g + group], rows, 1) for g in range(0, width, group)], dim=1)
        return vector_math.result(op, FP32, list(t.shape), cube.valid_of(t), data, tensor_level, rows * width // WORDS)
    if exhausted:
        raise UnsupportedError(op, "exhausted=True (stop at the first source to run out) is not supported by pldsim")
    sources = [s for s in (src0, src1, src2, src3) if s is not None]
    if len(sources) < 2 or src0 is None or src1 is None:
        raise UsageValueError(op, "pl.mrgsort takes block_len= or two to four sources (src0, src1, ...)")
    tiles = [_records(op, s, f"source {k}") for k, s in enumerate(sources)]
    rows = tiles[0][0].shape[0]
    if any(t.shape[0] != rows for t, _ in tiles):
        raise UsageValueError(op, f"the sources' rows differ: {[t.shape[0] for t, _ in tiles]}")
    width = sum(t.shape[1] for t, _ in tiles)
    parts = [cube.values_of(op, t, f"source {k}") for k, (t, _) in enumerate(tiles)]
    data = None
    if all(p is not None for p in parts):
        data = _stable_descending(torch().cat(parts, dim=1), rows, 1)
    valid = [min(cube.valid_of(t)[0] for t, _ in tiles), width]
    return vector_math.result(op, FP32, [rows, width], valid, data, any(tl for _, tl in tiles), rows * width // WORDS)
