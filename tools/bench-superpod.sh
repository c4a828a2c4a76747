#!/bin/sh
# bench-superpod.sh BUILDDIR OUTDIR: the size of a SuperPoD (issue 52,
# item 3).  Runs bench/pldsim-scale --no-data, 1 MiB a rank, on
# `--topology superpod` (nodes of 8 joined by a second-level switch) for
#   hier  the allreduce as a SuperPoD runs it: reduce-scatter inside each
#         node, a ring across the nodes, allgather inside each node;
#   ring  the flat ring allreduce over all P ranks;
# at each P of HIER_P and RING_P, one run at a time, and writes
# OUTDIR/superpod.tsv (wall s, peak RSS MB, simulated s, transfers) and two
# charts, OUTDIR/superpod-wall.svg and OUTDIR/superpod-rss.svg.
#
#   make bench-superpod
#   make bench-superpod BENCH_SUPERPOD_ARGS="HIER_P='8192 16384' RING_P=''"
#
# Defaults: HIER_P='512 1024 2048 4096 8192 16384', RING_P='512 1024 2048
# 4096', TIMEOUT=3600 s a run.  The ring's rounds grow as P and its ranks as
# P, so its transfers (6P(P-1)) and live signal cells (4P(P-1)) grow as P^2:
# at P = 16384 that is 1.6 G transfers and 1.07 G cells (about 22 GB), more
# than this 24 GB machine holds beside the rest; docs/performance.md says so
# with the measured growth.  A run that times out or fails is a row with
# its status, never a number.
set -u
build=${1:-.}
out=${2:-superpod-out}
shift 2 2>/dev/null || true
HIER_P='512 1024 2048 4096 8192 16384'
RING_P='512 1024 2048 4096'
TIMEOUT=3600
for a in "$@"; do
    case $a in
    HIER_P=* | RING_P=* | TIMEOUT=*) eval "${a%%=*}=\${a#*=}" ;;
    *) echo "bench-superpod: unknown setting '$a'; expected HIER_P=, RING_P= or TIMEOUT=" >&2; exit 2 ;;
    esac
done
for p in $HIER_P $RING_P; do
    case $p in '' | *[!0-9]*) echo "bench-superpod: P '$p': expected a device count" >&2; exit 2 ;; esac
    if [ "$p" -lt 16 ] || [ "$p" -gt 16384 ] || [ $((p % 8)) -ne 0 ]; then
        echo "bench-superpod: P $p: expected a multiple of 8 from 16 to 16384" >&2
        exit 2
    fi
done
case $TIMEOUT in '' | *[!0-9]*) echo "bench-superpod: TIMEOUT '$TIMEOUT': expected seconds" >&2; exit 2 ;; esac
prog=$build/bench/pldsim-scale
plot=$build/tools/pldsim-plot
for f in "$prog" "$plot"; do
    if [ ! -x "$f" ]; then
        echo "bench-superpod: $f is missing: run make first" >&2
        exit 2
    fi
done
mkdir -p "$out" || exit 1
tsv=$out/superpod.tsv
printf 'coll\tP\tstatus\twall_s\trss_MB\tsim_s\ttransfers\n' >"$tsv"
for coll in hier ring; do
    list=$HIER_P
    [ "$coll" = ring ] && list=$RING_P
    : >"$out/$coll-wall.txt"
    : >"$out/$coll-rss.txt"
    for p in $list; do
        echo "bench-superpod: $coll P=$p (started $(date -u +%H:%M:%S)Z)" >&2
        line=$(timeout "$TIMEOUT" "$prog" "$coll" -d "0-$((p - 1))" --topology superpod \
            --bytes 1048576 --no-data 2>"$out/$coll-$p.err")
        rc=$?
        case $line in
        coll=*)
            # key=value fields of pldsim-scale's line
            get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
            wall=$(get wall_s) rss=$(get rss_kb) sim=$(get sim_s) xfers=$(get transfers)
            mb=$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')
            printf '%s\t%s\tok\t%s\t%s\t%s\t%s\n' "$coll" "$p" "$wall" "$mb" "$sim" "$xfers" >>"$tsv"
            echo "$p $wall" >>"$out/$coll-wall.txt"
            echo "$p $mb" >>"$out/$coll-rss.txt"
            echo "bench-superpod: $coll P=$p: $wall s, $mb MB, $xfers transfers" >&2
            ;;
        *)
            status=failed
            [ "$rc" -eq 124 ] && status="timeout_${TIMEOUT}s"
            printf '%s\t%s\t%s\t-\t-\t-\t-\n' "$coll" "$p" "$status" >>"$tsv"
            echo "bench-superpod: $coll P=$p: $status (exit $rc; $out/$coll-$p.err)" >&2
            ;;
        esac
    done
done
set --
for coll in hier ring; do
    [ -s "$out/$coll-wall.txt" ] && set -- "$@" "$coll"
done
if [ $# -gt 0 ]; then
    w= r=
    for c in "$@"; do
        w="$w $out/$c-wall.txt=$c"
        r="$r $out/$c-rss.txt=$c"
    done
    # shellcheck disable=SC2086 # the lists are words
    "$plot" --xy --xlabel 'devices P' --ylabel 'wall s' -t 'superpod, 1 MiB allreduce, --no-data' \
        -o "$out/superpod-wall.svg" $w &&
        "$plot" --xy --xlabel 'devices P' --ylabel 'peak RSS MB' \
            -t 'superpod, 1 MiB allreduce, --no-data' -o "$out/superpod-rss.svg" $r || exit 1
fi
cat "$tsv"
