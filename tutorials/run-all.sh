#!/bin/sh
# run-all.sh [--summary] DIR: runs every tutorial step and mode at its
# default P on the simulator and prints one line per run: step, P, mode,
# OK/FAIL, simulated time.  A failed run's output follows its line; with
# --summary (make tutorials TUTORIALS_FLAGS=--summary) each run's summary does too.
# Exits 1 if any run fails.
set -u
summary=0
if [ "${1:-}" = --summary ]; then
    summary=1
    shift
fi
dir=${1:-tutorials}
fail=0
runs=0
printf '%-24s %4s  %-8s %-5s %14s\n' step P mode result "sim time"
run() { # step mode [args...]
    step=$1 mode=$2
    shift 2
    if [ $summary = 1 ]; then
        out=$("$dir/$step" "$@" --summary 2>&1)
    else
        out=$("$dir/$step" "$@" 2>&1)
    fi
    rc=$?
    p=$(printf '%s\n' "$out" | sed -n 's/^\[pldsim\].* P=\([0-9]*\) .*/\1/p' | tail -n 1)
    t=$(printf '%s\n' "$out" | sed -n 's/^\[pldsim\].* time=\([0-9.]*\) us.*/\1/p' | tail -n 1)
    if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qx OK; then
        res=OK
    else
        res=FAIL
        fail=$((fail + 1))
    fi
    runs=$((runs + 1))
    printf '%-24s %4s  %-8s %-5s %11s us\n' "$step" "${p:-?}" "$mode" "$res" "${t:-?}"
    if [ "$res" = FAIL ]; then
        printf '%s\n' "$out" | sed 's/^/    | /'
    elif [ $summary = 1 ]; then
        # the run summary, indented under its line
        printf '%s\n' "$out" | sed -n '/^== run summary/,/^critical path/p' | sed 's/^/      /'
    fi
}
run 01_hello_rank -
run 02_programming_model -
run 03_window_buffer -
run 04_barrier hand
run 04_barrier builtin --use-builtin
run 05_remote_load_store load --mode load
run 05_remote_load_store store --mode store
run 06_put_get put --mode put
run 06_put_get get --mode get
run 07_dynamic_rank_count put --mode put
run 07_dynamic_rank_count get --mode get
run 08_allreduce_mesh -
run 09_allreduce_two_phase -
run 10_allreduce_ring -
run 11_allreduce_reveal mesh --mode mesh
run 11_allreduce_reveal ring --mode ring
for step in 12_broadcast 13_allgather 14_reduce_scatter 15_all_to_all; do
    run $step hand --mode hand
    run $step builtin --mode builtin
done
run 16_putting_it_together -
echo "$((runs - fail)) passed, $fail failed"
[ $fail -eq 0 ]
