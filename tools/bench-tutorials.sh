#!/bin/sh
# bench-tutorials.sh DIR [REPEATS]: wall time of every tutorial step and mode
# at every P its tests use (median of REPEATS runs, default 5), step 07 at
# P = 1024 for scale, and every step that takes P devices at P = 64 against
# issue 8's 200 ms target.  Fails if any run fails or any median of the
# supported runs exceeds the 1 s budget.  Wall time on a shared machine is noisy, so this is
# a benchmark (make bench), not part of make check.
set -u
dir=${1:-tutorials}
reps=${2:-5}
budget_ms=1000
over=0

now_ns() { date +%s%N; }

median_ms() { # cmd...: prints the median wall time in ms of $reps runs
    i=0
    times=""
    while [ $i -lt "$reps" ]; do
        t0=$(now_ns)
        "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
        t1=$(now_ns)
        times="$times $(((t1 - t0) / 1000000))"
        i=$((i + 1))
    done
    printf '%s\n' $times | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

bench() { # budget(1|0) label cmd...
    check=$1
    label=$2
    shift 2
    ms=$(median_ms "$@") || { over=$((over + 1)); return; }
    flag=""
    if [ "$check" = 1 ] && [ "$ms" -gt $budget_ms ]; then
        flag="  OVER BUDGET"
        over=$((over + 1))
    fi
    printf '%-44s %8s ms%s\n' "$label" "$ms" "$flag"
}

printf '%-44s %11s   (median of %s runs; budget %s ms)\n' run "wall" "$reps" "$budget_ms"
bench 1 "01_hello_rank" "$dir/01_hello_rank"
bench 1 "02_programming_model" "$dir/02_programming_model"
bench 1 "03_window_buffer" "$dir/03_window_buffer"
bench 1 "04_barrier" "$dir/04_barrier"
bench 1 "04_barrier --use-builtin" "$dir/04_barrier" --use-builtin
bench 1 "05_remote_load_store --mode load" "$dir/05_remote_load_store" --mode load
bench 1 "05_remote_load_store --mode store" "$dir/05_remote_load_store" --mode store
bench 1 "06_put_get --mode put" "$dir/06_put_get" --mode put
bench 1 "06_put_get --mode get" "$dir/06_put_get" --mode get
for p in 2 3 4 8; do
    for m in put get; do
        bench 1 "07_dynamic_rank_count -d 0-$((p - 1)) --mode $m" \
            "$dir/07_dynamic_rank_count" -d "0-$((p - 1))" --mode "$m"
    done
done
for p in 2 3 4 8 16; do
    for step in "08_allreduce_mesh" "11_allreduce_reveal --mode mesh" \
        "11_allreduce_reveal --mode ring" "12_broadcast --mode builtin" \
        "13_allgather --mode builtin" "14_reduce_scatter --mode builtin" \
        "15_all_to_all --mode builtin" "16_putting_it_together"; do
        # shellcheck disable=SC2086
        bench 1 "$step -d 0-$((p - 1))" $dir/$step -d "0-$((p - 1))"
    done
done
for p in 2 4 8 16; do
    bench 1 "09_allreduce_two_phase -d 0-$((p - 1))" "$dir/09_allreduce_two_phase" -d "0-$((p - 1))"
    bench 1 "10_allreduce_ring -d 0-$((p - 1))" "$dir/10_allreduce_ring" -d "0-$((p - 1))"
done
bench 0 "07_dynamic_rank_count -d 0-1023 (scale)" "$dir/07_dynamic_rank_count" -d 0-1023

# Issue 8's speed target: every step that takes P devices (07-16; 01-06 are
# written for exactly 2), every mode, at P = 64 within 200 ms.  Reported,
# not enforced: docs/performance.md says which runs miss it, and why.
target_ms=200
missed=0
runs=0
echo "P = 64, every step and mode (target ${target_ms} ms; median of $reps runs)"
for step in "07_dynamic_rank_count --mode put" "07_dynamic_rank_count --mode get" \
    "08_allreduce_mesh" "09_allreduce_two_phase" "10_allreduce_ring" \
    "11_allreduce_reveal --mode mesh" "11_allreduce_reveal --mode ring" \
    "12_broadcast --mode hand" "12_broadcast --mode builtin" \
    "13_allgather --mode hand" "13_allgather --mode builtin" \
    "14_reduce_scatter --mode hand" "14_reduce_scatter --mode builtin" \
    "15_all_to_all --mode hand" "15_all_to_all --mode builtin" "16_putting_it_together"; do
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    if ! ms=$(median_ms $dir/$step -d 0-63); then
        printf '%-44s   FAILED\n' "$step -d 0-63"
        over=$((over + 1)) # a failure fails the benchmark, as above
        missed=$((missed + 1))
        continue
    fi
    flag=""
    if [ "$ms" -gt $target_ms ]; then
        flag="  over the target"
        missed=$((missed + 1))
    fi
    printf '%-44s %8s ms%s\n' "$step -d 0-63" "$ms" "$flag"
done
echo "$missed of $runs P = 64 runs over the ${target_ms} ms target"
if [ $over -gt 0 ]; then
    echo "$over run(s) over the ${budget_ms} ms budget or failed"
    exit 1
fi
echo "every supported run is within ${budget_ms} ms"
