#!/bin/sh
# instructions-guard.sh BUILDDIR SRCDIR [--update]: the guard against a
# slower engine (issue 52).  It counts the instructions of pldsim's own code
# in a fixed run (bench/pldsim-scale ring on ring:64, 1 MiB of FP32 a
# rank, data kept; tools/bench-instructions.sh, under cachegrind) and
# compares them with the number kept for this toolchain in
# bench/instructions-baseline.txt.
#
#   - more than 5 % above it: exit 1, saying by how much.  A change that
#     costs that much on purpose updates the number (--update, or
#     `make update-instructions`) in the same commit, and says why there.
#   - more than 5 % below it: a note to update the number, so that the
#     guard keeps its margin; exit 0.
#   - no number for this toolchain: a note, exit 77 (not run).
#
# Why pldsim's own instructions and not time: this machine is shared and
# wall time swings by a quarter between runs, while the count is the same
# on every run of one build (the simulator is deterministic; pldsim's part
# repeats to the instruction, the libraries' part varies by a few dozen).
# Why per toolchain: another compiler or SimGrid gives other counts for the
# same source, so a number is kept for each (the compiler that built
# libpld, SimGrid's version, CFLAGS).
set -u
build=${1:-.}
src=${2:-.}
update=${3:-}
# (the test of the guard itself points it at numbers of its own)
baseline=${PLDSIM_INSTRUCTIONS_BASELINE:-$src/bench/instructions-baseline.txt}
P=64
BYTES=1048576

case $update in "" | --update) ;; *)
    echo "instructions-guard: '$update': expected --update or nothing" >&2
    exit 2
    ;;
esac
lib=$build/.libs/libpld.so.0
[ -f "$lib" ] || lib=$(find "$build" -name 'libpld.so*' -type f 2>/dev/null | head -1)
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "instructions-guard: no libpld.so under $build: run make first" >&2
    exit 2
fi
cc=$(readelf -p .comment "$lib" 2>/dev/null | sed -n 's/.*GCC: *//p' | head -1 | tr ' ' '_')
sg=$(ldd "$build/bench/.libs/pldsim-scale" "$build/bench/pldsim-scale" 2>/dev/null |
    sed -n 's/.*libsimgrid\.so\.\([0-9.]*\) .*/\1/p' | head -1)
flags=$(sed -n 's/^CFLAGS = *//p' "$build/Makefile" 2>/dev/null | tr -d ' ')
key="gcc=${cc:-unknown} simgrid=${sg:-unknown} cflags=${flags:-none}"

out=$(sh "$src/tools/bench-instructions.sh" "$build" "$src" "$P" "$BYTES" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "$out" >&2; exit "$rc"; }
own=$(echo "$out" | awk '/^pldsim \(its sources\)/ {print $4}')
case $own in '' | *[!0-9]*)
    echo "instructions-guard: no count of pldsim's instructions in:" >&2
    echo "$out" >&2
    exit 1
    ;;
esac

if [ -n "$update" ]; then
    commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
    tmp=$baseline.tmp.$$
    { [ -f "$baseline" ] && grep -v -F "$key " "$baseline"
      echo "$key $own $commit"; } >"$tmp" && mv "$tmp" "$baseline" || {
        rm -f "$tmp"
        echo "instructions-guard: cannot write $baseline" >&2
        exit 1
    }
    echo "instructions-guard: $key: $own instructions of pldsim's (at $commit) kept in $baseline"
    exit 0
fi

kept=$(grep -v '^#' "$baseline" 2>/dev/null | grep -F "$key " | awk '{print $4}' | tail -1)
if [ -z "$kept" ]; then
    echo "instructions-guard: no number kept for $key in $baseline" \
        "(this run: $own); make update-instructions records one"
    exit 77
fi
awk -v own="$own" -v kept="$kept" -v key="$key" 'BEGIN {
    d = (own - kept) / kept * 100
    if (d > 5) {
        printf "FAIL: pldsim ran %d instructions in the ring allreduce at P = 64, %.1f %% more " \
            "than the %d kept for %s: find what grew, or, if it is meant, run make " \
            "update-instructions and say why in the commit\n", own, d, kept, key
        exit 1
    }
    if (d < -5)
        printf "note: %d instructions, %.1f %% fewer than the %d kept: make update-instructions " \
            "keeps the guard tight\n", own, -d, kept
    printf "ok: %d instructions of pldsim at P = 64 against %d kept (%+.2f %%)\n", own, kept, d
}'
