#!/bin/sh
# upstream-matrix.sh RUNNER DIR [PLDSIM OPTIONS...]: runs upstream PyPTO's
# distributed tutorial programs (examples/distributed/NN_*.py, fetched by
# the user into DIR; never part of this tree) through upstream CI's matrix
# (the 39 distributed invocations of its tests/docs/run_examples.py, each
# with the arguments that script gives, defaults left to the program)
# under RUNNER (pldsim-py), one line per run: the program, its arguments,
# OK or FAIL, the exit status and the simulated (or wall) time.  Extra
# arguments go to pldsim-py (for example --backend threads).  Exits 1 if any
# run fails, 2 if DIR lacks a program.
set -u
runner=$1
dir=$2
shift 2
if [ ! -x "$runner" ]; then
    echo "upstream-matrix: $runner is not there: build it with make (it needs the Python front end)" >&2
    exit 2
fi
fail=0
runs=0
printf '%-28s %-36s %-5s %4s %14s\n' program arguments result rc time
run() { # program args...
    prog=$1
    shift
    if [ ! -f "$dir/$prog" ]; then
        echo "upstream-matrix: $dir/$prog is missing" >&2
        exit 2
    fi
    out=$("$runner" $opts "$dir/$prog" "$@" 2>&1)
    rc=$?
    t=$(printf '%s\n' "$out" | sed -n 's/^\[pldsim\].* \(time\|wall\)=\([0-9.]*\) us.*/\2/p' | tail -n 1)
    if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qx OK; then
        res=OK
    else
        res=FAIL
        fail=$((fail + 1))
    fi
    runs=$((runs + 1))
    printf '%-28s %-36s %-5s %4s %11s us\n' "$prog" "$*" "$res" "$rc" "${t:-?}"
    [ "$res" = OK ] || printf '%s\n' "$out" | tail -n 15 | sed 's/^/    | /'
}
opts="$*"
two="-p a2a3sim -d 0,1"
four="-p a2a3sim -d 0,1,2,3"
for f in 01_hello_rank 02_programming_model 03_window_buffer 04_barrier 05_remote_load_store \
    06_put_get 07_dynamic_rank_count 08_allreduce_mesh 09_allreduce_two_phase 10_allreduce_ring \
    11_allreduce_reveal 12_broadcast 13_allgather 14_reduce_scatter 15_all_to_all \
    16_putting_it_together; do
    run $f.py $two
done
run 04_barrier.py $two --use-builtin
run 05_remote_load_store.py $two --mode store
run 06_put_get.py $two --mode get
run 07_dynamic_rank_count.py -p a2a3sim -d 0,1,2
run 07_dynamic_rank_count.py $four
for f in 08_allreduce_mesh 09_allreduce_two_phase 10_allreduce_ring; do
    run $f.py $four
done
run 11_allreduce_reveal.py $four
run 11_allreduce_reveal.py $four --mode ring
for f in 12_broadcast 13_allgather 14_reduce_scatter 15_all_to_all; do
    run $f.py $two --mode builtin
    run $f.py $four
    run $f.py $four --mode builtin
done
run 16_putting_it_together.py $four
echo "$((runs - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
