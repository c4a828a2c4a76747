#!/bin/sh
# bench-perf.sh BUILDDIR [REPEATS]: wall time of the sweep that issue 4 bounds,
#   pldsim-perf allreduce -b 8 -e 64M -f 2 -g 8 -n 1 -w 0   (mesh, then ring)
# (one call per size and half, as the sweep had before -n and -w)
# median of REPEATS runs (default 3); fails above the 30 s budget.  Then the
# race detector's cost on a run that keeps payloads (issue 18):
#   pldsim-perf allreduce --mode ring -b 4M -e 4M -g 8 -n 1 -w 0 -c 1 [--races off]
# side by side, median of REPEATS each; fails when the detector makes it
# more than 3x slower.  Last, the checked sweep (issue 18):
#   pldsim-perf allreduce --mode MODE -b 1M -e 64M -f 2 -g 8 -n 1 -w 0 -c 1
# (ring, then mesh) with the detector on, median of REPEATS; fails above
# its 60 s budget.  Then issue 30's standard nccl-tests command, with its
# default iterations (-n 20 -w 1: repeating calls derived, sizes on every
# core), median of REPEATS; fails above its 30 s budget:
#   pldsim-perf all_reduce_perf -b 8 -e 128M -f 2 -g 8
set -u
build=${1:-.}
reps=${2:-3}
status=0
median() {
    printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
# ms ARGS...: milliseconds of wall time of one pldsim-perf run; exits the
# script when the run fails
ms() {
    t0=$(date +%s%N)
    "$build/tools/pldsim-perf" "$@" >/dev/null 2>&1 || { echo "pldsim-perf $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
# budget BUDGET_MS ARGS...: the median of REPEATS runs against a budget
budget() {
    limit=$1
    shift
    times=""
    i=0
    while [ $i -lt "$reps" ]; do
        t=$(ms "$@") || exit 1
        times="$times $t"
        i=$((i + 1))
    done
    med=$(median $times)
    flag=""
    if [ "$med" -gt "$limit" ]; then
        flag="  OVER BUDGET"
        status=1
    fi
    printf 'pldsim-perf %s: %6s ms (median of %s; budget %s ms)%s\n' "$*" "$med" "$reps" "$limit" "$flag"
}
for mode in mesh ring; do
    budget 30000 allreduce --mode $mode -b 8 -e 64M -f 2 -g 8 -n 1 -w 0
done
on=""
off=""
i=0
while [ $i -lt "$reps" ]; do
    for races in error off; do
        t=$(ms allreduce --mode ring -b 4M -e 4M -g 8 -n 1 -w 0 -c 1 --races $races) || exit 1
        if [ $races = error ]; then on="$on $t"; else off="$off $t"; fi
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
for mode in ring mesh; do
    budget 60000 allreduce --mode $mode -b 1M -e 64M -f 2 -g 8 -n 1 -w 0 -c 1
done
budget 30000 all_reduce_perf -b 8 -e 128M -f 2 -g 8
exit $status
