#!/bin/sh
# bench-python.sh BUILDDIR SRCDIR [REPEATS]: wall time of the Python steps
# under pldsim-py against their C twins, side by side in one run (the
# machine is shared: compare ratios, not absolute times).  For each step
# and P it prints the median over REPEATS (default 3) of the C step, of the
# Python step, of the Python step with --compile-only (the start-up:
# Python, torch and the front end, without the run), and the ratio of the
# Python run beyond start-up to the C run; then the same Python step on
# SimGrid's thread contexts (PLDSIM_PY_CONTEXTS=thread, the fallback) and
# its ratio.  `make bench-python` runs it.
set -u
build=$1
src=$2
repeats=${3:-3}
runner=$build/tools/pldsim-py

now() { date +%s.%N; }
# median wall seconds of REPEATS runs of "$@" (output discarded)
median() {
    i=0
    times=""
    while [ $i -lt "$repeats" ]; do
        t0=$(now)
        "$@" >/dev/null 2>&1 || { echo "bench-python: failed: $*" >&2; exit 1; }
        t1=$(now)
        times="$times $(echo "$t1 - $t0" | bc -l)"
        i=$((i + 1))
    done
    echo $times | tr ' ' '\n' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

devices() { seq -s, 0 $(($1 - 1)); }

printf '%-26s %5s %10s %10s %10s %8s %10s %8s\n' step P "C (s)" "Py (s)" "start (s)" "run/C" \
    "thread (s)" "run/C"
for case in "05_remote_load_store 2" "08_allreduce_mesh 8" "10_allreduce_ring 8" \
    "11_allreduce_reveal 16 --mode ring" "13_allgather 16 --mode builtin" \
    "08_allreduce_mesh 64" "16_putting_it_together 64" "08_allreduce_mesh 256"; do
    set -- $case
    step=$1
    p=$2
    shift 2
    d=$(devices "$p")
    c=$(median "$build/tutorials/$step" -d "$d" --no-cacheline-check "$@")
    py=$(median "$runner" --no-cacheline-check "$src/tutorials/$step.py" -d "$d" "$@")
    start=$(median "$runner" "$src/tutorials/$step.py" -d "$d" --compile-only "$@")
    thr=$(median env PLDSIM_PY_CONTEXTS=thread "$runner" --no-cacheline-check \
        "$src/tutorials/$step.py" -d "$d" "$@")
    ratio=$(echo "($py - $start) / $c" | bc -l)
    tratio=$(echo "($thr - $start) / $c" | bc -l)
    printf '%-26s %5s %10.3f %10.3f %10.3f %8.1f %10.3f %8.1f\n' "$step $*" "$p" "$c" "$py" "$start" \
        "$ratio" "$thr" "$tratio"
done
