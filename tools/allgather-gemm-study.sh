#!/bin/sh
# allgather-gemm-study.sh BUILDDIR OUTDIR: the allgather-GEMM study of
# docs/what-if.md ("Allgather against GEMM").  Runs
# docs/examples/allgather_gemm.py (data runs: every run checks its result)
# under pldsim-py and reads each run's device wall (--summary-json,
# run.device_wall_us):
#  1. the grid: --comm-cores 1 2 4 8 x --gemm-cores 4 8 24, overlapped and
#     --sync, at P = 8, on a2a3 (--topology hccs: a2a3's own shape) and on
#     a ring of the same devices (--topology ring:8), both with
#     dispatch_lat=0: every rank starts at once (docs/what-if.md says why);
#     and P = 2, 4, 8, 16 at 4 comm and 24 gemm cores on both;
#  2. a2a3 as it is, with the host's 277 us dispatch skew per rank, at
#     P = 2..16, one configuration, overlapped and --sync;
#  3. --order source (each peer's tiles in turn) against the default
#     arrival order, P = 8 on a2a3;
#  4. the timelines of one run, overlapped and --sync (P = 2).
# Writes OUTDIR/ag/: the runs' JSON, grid.txt, skew.txt, order.txt, the
# x-y files and two plots; two runs at a time (the machine has 2 cores).
set -eu
# --run PLDSIM-PY PROGRAM OUTDIR NAME OPTIONS -- ARGS: one run, its summary
# in NAME.json and its output in NAME.log; a failed run (a wrong result, an
# error) stops the study
if [ "${1:-}" = --run ]; then
    py=$2 prog=$3 out=$4 name=$5
    shift 5
    opts=
    while [ "$1" != -- ]; do opts="$opts $1"; shift; done
    shift
    if ! "$py" --no-summary --summary-json "$out/$name.json" $opts "$prog" "$@" > "$out/$name.log" 2>&1 ||
        [ "$(tail -1 "$out/$name.log")" != OK ]; then
        echo "allgather-gemm-study: run $name failed:" >&2
        cat "$out/$name.log" >&2
        exit 255 # xargs stops
    fi
    exit 0
fi
build=${1:-.}
out=${2:-whatif-out}/ag
py="$build/tools/pldsim-py"
plot="$build/tools/pldsim-plot"
src=$(cd "$(dirname "$0")/.." && pwd)
prog="$src/docs/examples/allgather_gemm.py"
mkdir -p "$out"

devices() { seq -s, 0 $(($1 - 1)); }

# one line per run: NAME PLDSIM-OPTIONS -- PROGRAM-OPTIONS
{
    for p in 16 8 4 2; do # the slowest first, so that the two workers end together
        for topo in hccs ring; do
            spec=$topo,dispatch_lat=0
            [ $topo = ring ] && spec=ring:$p,dispatch_lat=0
            for cc in 1 2 4 8; do
                for gc in 4 8 24; do
                    # the whole grid at P = 8; one point of it elsewhere
                    [ $p = 8 ] || [ $cc$gc = 424 ] || continue
                    for mode in overlap sync; do
                        flag=; [ $mode = sync ] && flag=--sync
                        echo "$topo-P$p-c$cc-g$gc-$mode --topology $spec -- -d $(devices $p) --comm-cores $cc --gemm-cores $gc $flag"
                    done
                done
            done
        done
        for mode in overlap sync; do
            flag=; [ $mode = sync ] && flag=--sync
            echo "skew-P$p-c4-g24-$mode --platform a2a3 -- -d $(devices $p) --comm-cores 4 --gemm-cores 24 $flag"
        done
    done
    for cc in 1 2 4 8; do
        echo "source-P8-c$cc-g8-overlap --topology hccs,dispatch_lat=0 -- -d $(devices 8) --comm-cores $cc --gemm-cores 8 --order source"
    done
} | sed "s/ *$//" > "$out/runs.txt"

# each run is this script with --run (above)
xargs -P 2 -L 1 sh "$0" --run "$py" "$prog" "$out" < "$out/runs.txt"

# run.device_wall_us and run.end_time_us of a run
wall() { sed -n 's/^ *"device_wall_us": \([0-9.e+-]*\),\{0,1\}$/\1/p' "$out/$1.json" | head -1; }
end() { sed -n 's/^ *"end_time_us": \([0-9.e+-]*\),\{0,1\}$/\1/p' "$out/$1.json" | head -1; }

{
    printf '%-5s %-3s %-4s %-4s %12s %12s %7s\n' topo P comm gemm "overlap (us)" "sync (us)" "gain %"
    for topo in hccs ring; do
        for p in 2 4 8 16; do
            for cc in 1 2 4 8; do
                for gc in 4 8 24; do
                    [ -f "$out/$topo-P$p-c$cc-g$gc-overlap.json" ] || continue
                    o=$(wall $topo-P$p-c$cc-g$gc-overlap) s=$(wall $topo-P$p-c$cc-g$gc-sync)
                    awk -v t=$topo -v p=$p -v c=$cc -v g=$gc -v o="$o" -v s="$s" \
                        'BEGIN { printf "%-5s %-3s %-4s %-4s %12.1f %12.1f %7.1f\n", t, p, c, g, o, s, 100 * (s - o) / s }'
                done
            done
        done
    done
} > "$out/grid.txt"
{
    printf '%-3s %22s %22s %18s %18s\n' P "overlap wall (us)" "sync wall (us)" "overlap end (us)" "sync end (us)"
    for p in 2 4 8 16; do
        awk -v p=$p -v a="$(wall skew-P$p-c4-g24-overlap)" -v b="$(wall skew-P$p-c4-g24-sync)" \
            -v c="$(end skew-P$p-c4-g24-overlap)" -v d="$(end skew-P$p-c4-g24-sync)" \
            'BEGIN { printf "%-3s %22.1f %22.1f %18.1f %18.1f\n", p, a, b, c, d }'
    done
} > "$out/skew.txt"
{
    printf '%-4s %14s %14s\n' comm "arrival (us)" "source (us)"
    for cc in 1 2 4 8; do
        awk -v c=$cc -v a="$(wall hccs-P8-c$cc-g8-overlap)" -v b="$(wall source-P8-c$cc-g8-overlap)" \
            'BEGIN { printf "%-4s %14.1f %14.1f\n", c, a, b }'
    done
} > "$out/order.txt"
cat "$out/grid.txt" "$out/skew.txt" "$out/order.txt"

# x-y files: time against comm cores (P = 8, a2a3) per gemm cores and mode;
# time against P per topology and mode at 4 comm and 24 gemm cores
for gc in 4 24; do
    for mode in overlap sync; do
        for cc in 1 2 4 8; do echo "$cc $(wall hccs-P8-c$cc-g$gc-$mode)"; done > "$out/cores-g$gc-$mode.xy"
    done
done
for topo in hccs ring; do
    for mode in overlap sync; do
        for p in 2 4 8 16; do echo "$p $(wall $topo-P$p-c4-g24-$mode)"; done > "$out/scale-$topo-$mode.xy"
    done
done
"$plot" --xy --xlabel "comm cores (vector)" --ylabel "device wall (us)" \
    -t "allgather + GEMM, P = 8 on a2a3 (dispatch_lat=0)" -o "$out/cores.svg" \
    "$out/cores-g4-overlap.xy=overlap, 4 gemm cores" "$out/cores-g4-sync.xy=sync, 4 gemm cores" \
    "$out/cores-g24-overlap.xy=overlap, 24 gemm cores" "$out/cores-g24-sync.xy=sync, 24 gemm cores"
"$plot" --xy --xlabel "P (devices)" --ylabel "device wall (us)" \
    -t "allgather + GEMM, 4 comm and 24 gemm cores (dispatch_lat=0)" -o "$out/scaling.svg" \
    "$out/scale-hccs-overlap.xy=a2a3, overlap" "$out/scale-hccs-sync.xy=a2a3, sync" \
    "$out/scale-ring-overlap.xy=ring, overlap" "$out/scale-ring-sync.xy=ring, sync"

# the timelines: P = 2, 2 comm and 4 gemm cores
for mode in overlap sync; do
    flag=; [ $mode = sync ] && flag=--sync
    "$py" --no-summary --topology hccs,dispatch_lat=0 --trace "$out/timeline-$mode.svg" "$prog" \
        -d 0,1 --comm-cores 2 --gemm-cores 4 $flag > /dev/null
done
