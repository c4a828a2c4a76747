"""fuzz_calibrate.py: tools/pldsim-calibrate's readers, from its package
tools/pldsim_calibrate/ (measurements.py's select(), cube_data() and
gemm_ar_points() for the measurements, guard.py's read_record() for a fit
record, fit.py's model_lines() for a model file) on mutated copies of the
real files: each input is either taken, and then holds only what the tool
can use, or refused with the tool's own Refused, one line starting with
the file's name.  Any other exception, a second line, or a taken input
that breaks a property is a bug: the input is saved and the run fails.

Deterministic: input I of seed S is made from random.Random(f"{S}:{I}")
alone, so `--seed S --start I --count 1` replays it.  libFuzzer's Python
binding (atheris) is not in Debian 12, so the mutations are written here:
bit and byte flips, truncations, cut and doubled lines, a cell replaced,
and junk inserted (huge numbers, nan, empty cells, quotes, BOMs, NULs,
bytes that are not UTF-8).

    fuzz_calibrate.py [--seed S] [--start I] [--count N] [--seconds T] [--artifacts DIR]

make check runs a short count (tests/scripts/check_calibration.sh); make
fuzz runs it for FUZZ_SECONDS."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import sys
import tempfile
import time
import traceback
from typing import Callable

SRC = os.environ.get("PLDSIM_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "..", ".."))
# the package of the tree under test, found as tools/pldsim-calibrate finds
# it (beside the script); and no __pycache__ left in that tree
sys.path.insert(0, os.path.join(SRC, "tools"))
sys.dont_write_bytecode = True

from pldsim_calibrate.fit import FIT_KEYS, SPEC_KEYS, fmt_key, model_lines  # noqa: E402
from pldsim_calibrate.guard import GUARD, read_record  # noqa: E402
from pldsim_calibrate.measurements import (CORE_NUM_MAX, GEMM_AR_G, GEMM_AR_METRICS,  # noqa: E402
                                           GEMM_AR_P, P_MAX, SIZE_MAX, cube_data,
                                           gemm_ar_points, select)
from pldsim_calibrate.readers import Refused  # noqa: E402

TOKENS = [b"", b"0", b"-0", b"-1", b"1", b"2", b"4", b"64", b"65", b"1e400", b"-1e400",
          b"1e-400", b"nan", b"NaN", b"inf", b"-inf", b"Infinity", b"1_0", b" 1", b"0x10",
          b"1.5", b".5", b"5.", b"1e5", b"+3", b"99999999999999999999999", b"9" * 5000,
          b"\xd9\xa3",  # ARABIC-INDIC DIGIT THREE, which int() takes
          b"\xef\xbb\xbf", b"\x00", b"\xff", b"\xc3", b'"', b'""', b",", b",,", b"\n", b"\r",
          b"\r\n", b"\n\n", b"#", b"# comment\n", b"=", b" = ", b"mesh", b"ring", b"host-mesh",
          b"a2av/uniform", b"managed-l2/uniform", b"managed-l2/zero", b"device_wall_s",
          b"aicore_gang_span", b"INT8", b"dispatch_lat", b"hbm_bw = 1GBps\n", b"\t", b"\x0c",
          b"\xe2\x80\xa8"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four mutations of `data`."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        n = len(b)
        pos = rng.randint(0, n)
        op = rng.randrange(12)
        if op == 0 and n:  # a bit flip
            b[min(pos, n - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # a random byte
            b[min(pos, n - 1)] = rng.randrange(256)
        elif op == 2:  # a span cut out
            del b[pos:pos + rng.randint(1, 64)]
        elif op == 3:  # truncated
            del b[pos:]
        elif op in (4, 5):  # junk inserted
            b[pos:pos] = rng.choice(TOKENS)
        elif op in (6, 7):  # a cell replaced: the bytes between two separators
            start = max(b.rfind(b",", 0, pos), b.rfind(b"\n", 0, pos)) + 1
            ends = [i for i in (b.find(b",", pos), b.find(b"\n", pos)) if i >= 0]
            b[start:min(ends) if ends else n] = rng.choice(TOKENS)
        elif op == 8:  # a line doubled, or cut
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[i])
            else:
                del lines[i]
            b = bytearray(b"\n".join(lines))
        elif op == 9:  # two lines swapped
            lines = bytes(b).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            b = bytearray(b"\n".join(lines))
        elif op == 10:  # a byte order mark, or a NUL
            b[pos:pos] = rng.choice([b"\xef\xbb\xbf", b"\x00"])
        else:  # rarely, nothing at all
            if rng.random() < 0.1:
                b = bytearray()
    return bytes(b)


def finite_time(v: float) -> bool:
    return isinstance(v, float) and math.isfinite(v) and v > 0


def take_measurements(path: str, rng: random.Random) -> None:
    pts = select(path, rng.choice([None, {2, 4}]))
    assert pts, "select() took a file with no point"
    for p in pts:
        assert 1 <= p.P <= P_MAX and 1 <= p.core_num <= CORE_NUM_MAX, p
        assert 0 <= p.size <= SIZE_MAX, p
        assert p.values and all(finite_time(v) for v in p.values), p
        assert finite_time(float(p.measured)), p
        p.args()  # what would run it


def take_record(path: str, rng: random.Random) -> None:
    rec = read_record(path)
    assert all(g in rec for g in GUARD), rec
    assert all(finite_time(v) for v in rec.values()), rec


def take_model(path: str, rng: random.Random) -> None:
    lines = model_lines(path)
    with open(path, "rb") as f:
        text = f.read().decode("utf-8-sig")
    # write_model() rewrites the key lines and copies the rest: the lines
    # must be the file's text, every byte once
    assert "".join(line for line, _, _ in lines) == text
    assert {k[0] for k in FIT_KEYS} <= {k for _, k, _ in lines}


def take_cube(path: str, rng: random.Random) -> None:
    d = cube_data(path, heldout=rng.random() < 0.5)
    for p in d.points():
        assert p.values and all(finite_time(v) for v in p.values), p
        assert p.size >= 1 and p.P in (1, 2), p
        p.args()
    for k, v in d.spec.items():
        assert k in SPEC_KEYS and finite_time(v), (k, v)
        fmt_key(k, v)


def take_gemm_ar(path: str, rng: random.Random) -> None:
    for p in gemm_ar_points(path):
        assert p.values and all(finite_time(v) for v in p.values), p
        assert p.P == GEMM_AR_P and p.program.split("/")[1] in GEMM_AR_METRICS, p
        for n in (p.size, p.core_num):
            assert 0 <= n <= CORE_NUM_MAX and (not n or GEMM_AR_G % n == 0
                                               or n % GEMM_AR_G == 0), p


def seeds() -> dict[str, tuple[Callable, list[bytes]]]:
    """Each reader and its seeds: the real files, the measurements cut to
    a few rows each so that a mutation lands in a number as often as in a
    note."""
    def read(*path: str) -> bytes:
        with open(os.path.join(SRC, *path), "rb") as f:
            return f.read()

    cuts = []
    for name in ("a2a3-calibration.csv", "a2a3-heldout.csv"):
        lines = read("bench", "measurements", name).split(b"\n")
        cuts += [b"\n".join([lines[0]] + lines[at:at + 6]) + b"\n"
                 for at in range(1, len(lines) - 1, 12)]
    return {"measurements": (take_measurements, cuts),
            "cube": (take_cube, [read("bench", "measurements", "a2a3-cube-sdma.csv"),
                                 read("bench", "measurements", "a2a3-cube-sdma-heldout.csv")]),
            "gemm_ar": (take_gemm_ar, [read("bench", "measurements", "a2a3-gemm-ar-heldout.csv")]),
            "record": (take_record, [read("bench", "measurements", "a2a3-fit-record.csv")]),
            "model": (take_model, [read("models", "a2a3.model")])}


def one(seed: int, i: int, path: str, pool: dict) -> tuple[str, bytes, str | None]:
    """Input i: its kind, its bytes, and what went wrong (None: nothing).
    Each reader is as likely, however many seeds it has."""
    rng = random.Random(f"{seed}:{i}")
    kind = rng.choice(sorted(pool))
    take, datas = pool[kind]
    data = mutate(rng.choice(datas), rng)
    # a new file each time: truncating one that holds data makes ext4 flush
    # it to disk (auto_da_alloc), 3 ms an input
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)
    try:
        take(path, rng)
    except Refused as e:
        msg = str(e)
        if not msg.startswith(path) or "\n" in msg or "\r" in msg:
            return kind, data, f"a refusal that is not one line naming the file: {msg!r}"
    except Exception:
        return kind, data, traceback.format_exc()
    return kind, data, None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="the first input's number")
    ap.add_argument("--count", type=int, default=None, help="inputs to try (default: no limit)")
    ap.add_argument("--seconds", type=float, default=None, help="stop after this long")
    ap.add_argument("--artifacts", default=".", help="where a failing input is saved")
    a = ap.parse_args()
    if a.count is None and a.seconds is None:
        ap.error("give --count, --seconds or both")
    pool = seeds()
    end = time.monotonic() + (a.seconds if a.seconds is not None else math.inf)
    with tempfile.TemporaryDirectory(prefix="fuzz_calibrate.") as d:
        path = os.path.join(d, "input.csv")
        i = a.start
        while (a.count is None or i < a.start + a.count) and time.monotonic() < end:
            kind, data, bad = one(a.seed, i, path, pool)
            if bad is not None:
                saved = os.path.join(a.artifacts, f"fuzz_calibrate-{a.seed}-{i}.{kind}")
                with open(saved, "wb") as f:
                    f.write(data)
                print(f"FAIL: input {i} of seed {a.seed} ({kind}, saved as {saved}; replay: "
                      f"--seed {a.seed} --start {i} --count 1):\n{bad}")
                return 1
            i += 1
    print(f"fuzz_calibrate: {i - a.start} inputs of seed {a.seed}, every one taken or refused "
          "in one line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
