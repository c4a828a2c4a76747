#!/bin/sh
# whatif-study.sh BUILDDIR OUTDIR: the study of docs/what-if.md.
#  1. Mesh against ring allreduce on a2a3 at P = 4, 8, 16, 32: where does
#     the ring start to win?
#  2. What a 2x faster link buys, against a core that pulls twice as fast
#     and a notify half as dear: a2a3 against the same platform with
#     112 GB/s links, pull_bw doubled, signal_lat halved, both modes, P = 8.
# Writes the CSVs, the crossover table (crossover.txt) and two SVG plots.
set -eu
build=${1:-.}
out=${2:-whatif-out}
perf="$build/tools/pldsim-perf"
plot="$build/tools/pldsim-plot"
mkdir -p "$out"
# The what-ifs scale a2a3's own keys, read from its model file, so that a
# refit moves them too: pull_bw (written in GBps by the fit) doubled,
# signal_lat (written in ns) halved.
model="$(dirname "$0")/../models/a2a3.model"
key() { # key NAME UNIT FACTOR: the key's value times FACTOR, in UNIT
    awk -v k="$1" -v u="$2" -v f="$3" -F' *= *' '$1 == k && $2 ~ u "$" {
        sub(u "$", "", $2); printf "%.10g%s\n", $2 * f, u; found = 1 }
        END { if (!found) { print "whatif-study.sh: no " k " in " u " in the a2a3 model" > "/dev/stderr"; exit 1 } }' "$model"
}
pull2=$(key pull_bw GBps 2)
sig2=$(key signal_lat ns 0.5)

for p in 4 8 16 32; do
    for mode in mesh ring; do
        "$perf" allreduce --mode $mode -g $p -b 1K -e 16M -f 4 -n 1 \
            --csv "$out/a2a3-$mode-P$p.csv" > "$out/a2a3-$mode-P$p.txt"
    done
done
for mode in mesh ring; do
    "$perf" allreduce --mode $mode -g 8 -b 1K -e 16M -f 4 -n 1 --topology hccs,bw=112GBps \
        --csv "$out/a2a3x2-$mode-P8.csv" > "$out/a2a3x2-$mode-P8.txt"
    "$perf" allreduce --mode $mode -g 8 -b 1K -e 16M -f 4 -n 1 \
        --topology "hccs,pull_bw=$pull2" --csv "$out/a2a3pull-$mode-P8.csv" \
        > "$out/a2a3pull-$mode-P8.txt"
    "$perf" allreduce --mode $mode -g 8 -b 1K -e 16M -f 4 -n 1 \
        --topology "hccs,signal_lat=$sig2" --csv "$out/a2a3sig-$mode-P8.csv" \
        > "$out/a2a3sig-$mode-P8.txt"
done

# The crossover: the smallest size at which ring's in-place time is below
# mesh's (column 13 of the CSV).
{
    printf '%-4s %-14s %s\n' P "crossover (B)" "mesh/ring time at 16 MiB"
    for p in 4 8 16 32; do
        paste -d, "$out/a2a3-mesh-P$p.csv" "$out/a2a3-ring-P$p.csv" | awk -F, -v p=$p '
            NR > 1 { if (!found && $29 < $13) { found = $4 } last = $13 / $29 }
            END { printf "%-4s %-14s %.2f\n", p, found ? found : "none", last }'
    done
} > "$out/crossover.txt"
cat "$out/crossover.txt"

"$plot" -t "allreduce on a2a3: mesh vs ring at P = 8 and 32" \
    -o "$out/mesh-vs-ring.svg" \
    "$out/a2a3-mesh-P8.csv=mesh P=8" "$out/a2a3-ring-P8.csv=ring P=8" \
    "$out/a2a3-mesh-P32.csv=mesh P=32" "$out/a2a3-ring-P32.csv=ring P=32"
"$plot" -y busbw -t "allreduce on a2a3, P = 8: 2x link bandwidth, 2x pull rate, notify/2" \
    -o "$out/faster-links.svg" \
    "$out/a2a3-mesh-P8.csv=mesh a2a3" "$out/a2a3x2-mesh-P8.csv=mesh 2x link" \
    "$out/a2a3pull-mesh-P8.csv=mesh 2x pull" "$out/a2a3sig-mesh-P8.csv=mesh notify/2" \
    "$out/a2a3-ring-P8.csv=ring a2a3" "$out/a2a3x2-ring-P8.csv=ring 2x link" \
    "$out/a2a3pull-ring-P8.csv=ring 2x pull" "$out/a2a3sig-ring-P8.csv=ring notify/2"
