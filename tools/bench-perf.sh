#!/bin/sh
# bench-perf.sh BUILDDIR [REPEATS]: wall time of the sweep that issue 4 bounds,
#   pldsim-perf allreduce -b 8 -e 64M -f 2 -g 8 -n 1 -w 0   (mesh, then ring)
# (one call per size and half, as the sweep had before -n and -w)
# median of REPEATS runs (default 3); fails above the 30 s budget.
set -u
build=${1:-.}
reps=${2:-3}
budget_ms=30000
status=0
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
    med=$(printf '%s\n' $times | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    flag=""
    if [ "$med" -gt $budget_ms ]; then
        flag="  OVER BUDGET"
        status=1
    fi
    printf 'pldsim-perf allreduce --mode %-4s -b 8 -e 64M -f 2 -g 8 -n 1 -w 0: %6s ms (median of %s; budget %s ms)%s\n' \
        $mode "$med" "$reps" $budget_ms "$flag"
done
exit $status
