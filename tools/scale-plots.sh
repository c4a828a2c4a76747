#!/bin/sh
# scale-plots.sh BUILDDIR TSV OUTDIR: the three scaling plots of
# docs/performance.md (wall time, peak RSS, wall time per simulated
# transfer, each against P, pldsim beside SMPI and the SimGrid floor), from a
# table written by tools/bench-scale.sh: the ring allreduce on ring:P, with
# data, and the --no-data rows as a series of their own.
set -eu
build=$1
tsv=$2
out=$3
plot=$build/tools/pldsim-plot
test -x "$plot" || { echo "scale-plots: build $plot first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# columns: 1 coll 2 topo 3 P 4 data 5 wall_s 6 rss_MB 7 sim_s 8 transfers
#          9 xfer_per_s 10 smpi_wall_s 11 smpi_rss_MB 12 smpi_sim_s
#          13 smpi_messages 14 wall_ratio 15 floor_wall_s 16 floor_rss_MB
#          17 floor_ratio (older tables stop at 14)
# the runs that completed (a failed or timed-out run has no simulated time)
rows() {
    awk -F'\t' -v d="$1" '$1 == "ring" && $2 == "ring" && $4 == d && $7 ~ /^[0-9.e+-]+$/' "$tsv"
}
# col N [DIV]: "P value" for the rows where column N is a positive number;
# with DIV, the value in us per unit of column DIV (which must be one too)
col() {
    awk -F'\t' -v c="$1" -v d="${2:-0}" '
        function pos(x) { return x ~ /^[0-9.e+-]+$/ && x + 0 > 0 }
        pos($c) && (!d || pos($d)) {
            if (d) printf "%s %.6g\n", $3, $c / $d * 1e6; else print $3, $c }'
}
rows yes | col 5 >"$tmp/wall"
rows yes | col 10 >"$tmp/smpi_wall"
rows yes | col 15 >"$tmp/floor_wall"
rows no | col 5 >"$tmp/nd_wall"
rows yes | col 6 >"$tmp/rss"
rows yes | col 11 >"$tmp/smpi_rss"
rows yes | col 16 >"$tmp/floor_rss"
rows no | col 6 >"$tmp/nd_rss"
rows yes | col 5 8 >"$tmp/per"
rows yes | col 10 13 >"$tmp/smpi_per"
rows yes | col 15 8 >"$tmp/floor_per"
rows no | col 5 8 >"$tmp/nd_per"

# plot FILE TITLE YLABEL SERIES=LABEL...: the series that have points
plot() {
    file=$1 title=$2 ylabel=$3
    shift 3
    for s in "$@"; do
        [ -s "${s%%=*}" ] && set -- "$@" "$s"
        shift
    done
    "$plot" --xy --xlabel "devices P (log scale)" --ylabel "$ylabel" -t "$title" \
        -o "$out/$file" "$@"
}
plot performance-wall.svg "ring allreduce of 1 MiB on ring:P: wall time" \
    "wall seconds (log scale)" "$tmp/wall=pldsim" "$tmp/smpi_wall=SMPI (MPI_Sendrecv ring)" \
    "$tmp/floor_wall=SimGrid floor" "$tmp/nd_wall=pldsim --no-data"
plot performance-rss.svg "ring allreduce of 1 MiB on ring:P: memory" \
    "peak RSS, MB (log scale)" "$tmp/rss=pldsim" "$tmp/smpi_rss=SMPI" \
    "$tmp/floor_rss=SimGrid floor" "$tmp/nd_rss=pldsim --no-data"
plot performance-per-transfer.svg "cost per simulated transfer (SMPI: per message)" \
    "wall us per simulated transfer (log)" "$tmp/per=pldsim" "$tmp/smpi_per=SMPI" \
    "$tmp/floor_per=SimGrid floor" "$tmp/nd_per=pldsim --no-data"
