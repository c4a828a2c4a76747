#!/bin/sh
# bench-perf.sh BUILDDIR [REPEATS]: wall time of the sweep that issue 4 bounds,
#   pldsim-perf allreduce -b 8 -e 64M -f 2 -g 8 -n 1 -w 0   (mesh, then ring)
# (one call per size and half, as the sweep had before -n and -w)
# median of REPEATS runs (default 3); fails above the 30 s budget.  Then the
# race detector's cost on a run that keeps payloads (issue 18):
#   pldsim-perf allreduce --mode ring -b 4M -e 4M -g 8 -n 1 -w 0 -c 1 [--races off]
# side by side, median of REPEATS each; fails when the detector makes it
# more than 3x slower.
set -u
build=${1:-.}
reps=${2:-3}
budget_ms=30000
status=0
median() {
    printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
for mode in mesh ring; do
    times=""
    i=0
    while [ $i -lt "$reps" ]; do
        t0=$(date +%s%N)
        "$build/tools/pldsim-perf" allreduce --mode $mode -b 8 -e 64M -f 2 -g 8 -n 1 -w 0 >/dev/null 2>&1 ||
            { echo "pldsim-perf --mode $mode failed"; exit 1; }
        t1=$(date +%s%N)
        times="$times $(((t1 - t0) / 1000000))"
        i=$((i + 1))
    done
    med=$(median $times)
    flag=""
    if [ "$med" -gt $budget_ms ]; then
        flag="  OVER BUDGET"
        status=1
    fi
    printf 'pldsim-perf allreduce --mode %-4s -b 8 -e 64M -f 2 -g 8 -n 1 -w 0: %6s ms (median of %s; budget %s ms)%s\n' \
        $mode "$med" "$reps" $budget_ms "$flag"
done
on=""
off=""
i=0
while [ $i -lt "$reps" ]; do
    for races in error off; do
        t0=$(date +%s%N)
        "$build/tools/pldsim-perf" allreduce --mode ring -b 4M -e 4M -g 8 -n 1 -w 0 -c 1 --races $races \
            >/dev/null 2>&1 || { echo "pldsim-perf --check --races $races failed"; exit 1; }
        t1=$(date +%s%N)
        if [ $races = error ]; then on="$on $(((t1 - t0) / 1000000))"; else off="$off $(((t1 - t0) / 1000000))"; fi
    done
    i=$((i + 1))
done
on=$(median $on)
off=$(median $off)
ratio=$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2f", a / b}')
flag=""
if awk -v r="$ratio" 'BEGIN {exit !(r > 3)}'; then
    flag="  OVER BUDGET"
    status=1
fi
printf 'pldsim-perf allreduce --mode ring -b 4M -e 4M -g 8 -n 1 -w 0 -c 1: races on %6s ms, off %6s ms: %sx (median of %s; budget 3x)%s\n' \
    "$on" "$off" "$ratio" "$reps" "$flag"
exit $status
