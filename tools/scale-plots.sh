#!/bin/sh
# scale-plots.sh BUILDDIR TSV OUTDIR: the three scaling plots of
# docs/performance.md (wall time, peak RSS, wall time per simulated
# transfer, each against P, pldsim beside SMPI), from a table written by
# tools/bench-scale.sh.  Only the ring allreduce on ring:P rows with data.
set -eu
build=$1
tsv=$2
out=$3
plot=$build/tools/pldsim-plot
test -x "$plot" || { echo "scale-plots: build $plot first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# columns: coll topo P data wall_s rss_MB sim_s transfers xfer_per_s
#          smpi_wall_s smpi_rss_MB smpi_sim_s smpi_messages wall_ratio
rows() { awk -F'\t' '$1 == "ring" && $2 == "ring" && $4 == "yes"' "$tsv"; }
rows | awk -F'\t' '{print $3, $5}' >"$tmp/wall"
rows | awk -F'\t' '$10 != "" {print $3, $10}' >"$tmp/smpi_wall"
rows | awk -F'\t' '{print $3, $6}' >"$tmp/rss"
rows | awk -F'\t' '$11 != "" {print $3, $11}' >"$tmp/smpi_rss"
rows | awk -F'\t' '{printf "%s %.6g\n", $3, $5 / $8 * 1e6}' >"$tmp/per"
rows | awk -F'\t' '$13 > 0 {printf "%s %.6g\n", $3, $10 / $13 * 1e6}' >"$tmp/smpi_per"
"$plot" --xy --xlabel "devices P (log scale)" --ylabel "wall seconds (log scale)" \
    -t "ring allreduce of 1 MiB on ring:P: wall time" -o "$out/performance-wall.svg" \
    "$tmp/wall=pldsim" "$tmp/smpi_wall=SMPI (MPI_Sendrecv ring)"
"$plot" --xy --xlabel "devices P (log scale)" --ylabel "peak RSS, MB (log scale)" \
    -t "ring allreduce of 1 MiB on ring:P: memory" -o "$out/performance-rss.svg" \
    "$tmp/rss=pldsim" "$tmp/smpi_rss=SMPI"
"$plot" --xy --xlabel "devices P (log scale)" --ylabel "wall us per simulated transfer (log)" \
    -t "cost per simulated transfer (SMPI: per message)" -o "$out/performance-per-transfer.svg" \
    "$tmp/per=pldsim" "$tmp/smpi_per=SMPI"
