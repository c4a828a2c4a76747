#!/bin/sh
# bench-instructions.sh BUILDDIR SRCDIR [P] [BYTES]: the instructions that
# the builtin ring allreduce (bench/pldsim-scale ring on ring:P, BYTES of
# FP32 per rank, data kept) executes, counted by valgrind's cachegrind and
# split into pldsim's own code and the rest (SimGrid, the C and C++
# libraries, the loader).  `make bench-instructions`; docs/performance.md.
#
# Why counts: wall time on this shared machine swings by a quarter from one
# run to the next, so a change of a few per cent in pldsim's per-op path
# cannot be seen in it.  An instruction count is the same on every run of
# the same build (the simulator is deterministic), so two builds compare to
# the instruction.  It is not time: a cache miss costs no instruction.
#
# Defaults: P=128 (races on at 64 and below, off above, as in the
# bench-scale runs), BYTES=1048576.  About a minute under cachegrind.
# valgrind is not a build dependency: without it this says so and exits 77.
set -u
build=${1:-.}
src=${2:-.}
P=${3:-128}
BYTES=${4:-1048576}

case $P in '' | *[!0-9]*) echo "bench-instructions: P '$P': expected a device count (2 or more)" >&2; exit 2 ;; esac
case $BYTES in '' | *[!0-9]*) echo "bench-instructions: BYTES '$BYTES': expected a byte count" >&2; exit 2 ;; esac
if [ "$P" -lt 2 ]; then
    echo "bench-instructions: P $P: expected 2 or more devices" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null 2>&1 || ! command -v cg_annotate >/dev/null 2>&1; then
    echo "bench-instructions: valgrind (with cg_annotate) is not installed: apt-get install valgrind" >&2
    exit 77
fi
prog=$build/bench/pldsim-scale
if [ ! -x "$prog" ]; then
    echo "bench-instructions: $prog is missing: run make first" >&2
    exit 2
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
last=$((P - 1))
if ! valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg.out" \
    "$prog" ring -d "0-$last" --topology "ring:$P,bw=100GBps,lat=1us" --bytes "$BYTES" \
    >"$tmp/run.out" 2>"$tmp/run.err"; then
    echo "bench-instructions: the run failed:" >&2
    tail -5 "$tmp/run.err" >&2
    exit 1
fi
grep -q 'wrong=0' "$tmp/run.out" || {
    echo "bench-instructions: the run's result is wrong:" >&2
    cat "$tmp/run.out" >&2
    exit 1
}

# pldsim's own code is what its debug info places under SRCDIR (or under
# the relative paths the build uses); the rest has no such file names
abs_src=$(cd "$src" && pwd)
cg_annotate --auto=no --show=Ir --threshold=0 "$tmp/cg.out" 2>/dev/null |
    awk -v src="$abs_src/" -v P="$P" -v bytes="$BYTES" '
    /^ *[0-9,]+ +\( *[0-9.]+%\) +[^ ]/ {
        n = $1; gsub(",", "", n); n += 0
        f = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", f)
        if (f ~ /^PROGRAM TOTALS/) { total = n; next }
        if (index(f, src) == 1 || f ~ /^(src|sim|bench)\//) pld += n
        else rest += n
    }
    END {
        if (total == 0) { print "bench-instructions: cg_annotate gave no totals" > "/dev/stderr"; exit 1 }
        rr = P * 2 * (P - 1)
        printf "# bench-instructions: pldsim-scale ring, ring:%d, %d bytes per rank, data kept; cachegrind\n", P, bytes
        printf "%-28s %15s %10s %8s\n", "", "instructions", "per rank-round", "share"
        printf "%-28s %15.0f %10.0f %7.1f%%\n", "total", total, total / rr, 100
        printf "%-28s %15.0f %10.0f %7.1f%%\n", "pldsim (its sources)", pld, pld / rr, 100 * pld / total
        printf "%-28s %15.0f %10.0f %7.1f%%\n", "SimGrid, libc, libstdc++, ld", rest, rest / rr, 100 * rest / total
        printf "(rank-rounds: P x 2(P-1) = %d; the counts include start-up and the platform)\n", rr
    }'
