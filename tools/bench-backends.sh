#!/bin/sh
# bench-backends.sh BUILDDIR [REPEATS]: measured allreduce bandwidth of the
# real backends against this machine's yardsticks, all in one run:
#   - single-thread memcpy (one core's copy bandwidth),
#   - pld_tensor_allreduce (ring, FP32 sum) on --backend threads, P = 2 and 4,
#   - the same through --backend mpi (mpirun -np P), if it was built,
#   - plain MPI_Allreduce at the same P (mpirun -np P), if MPI was found.
# Sizes 4 KiB .. 64 MiB (x4).  Each figure is the median of REPEATS runs
# (default 3), each run averaging ITERS calls (default 20).  Prints busbw in
# GB/s and the ratios docs/backends.md quotes.
set -u
build=${1:-.}
reps=${2:-3}
iters=${ITERS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun="mpirun --oversubscribe --allow-run-as-root"

# run NAME CMD...: REPEATS runs of CMD; keeps "bytes value" of the median
# per size (value: busbw, or GB/s for memcpy: the last column).
run() {
    name=$1
    shift
    i=0
    while [ $i -lt "$reps" ]; do
        "$@" </dev/null 2>"$tmp/err" | awk '!/^#/ {print $1, $NF}' >>"$tmp/$name.all" ||
            { echo "bench-backends: $name failed:"; cat "$tmp/err"; exit 1; }
        i=$((i + 1))
    done
    sort -n -k1,1 -k2,2 "$tmp/$name.all" |
        awk -v r="$reps" '{v[$1] = v[$1] " " $2; n[$1]++}
            END {for (b in v) {split(v[b], a, " "); print b, a[int((n[b] + 1) / 2)]}}' |
        sort -n >"$tmp/$name"
}

have_mpi=0
[ -x "$build/tools/mpi-allreduce-bench" ] && command -v mpirun >/dev/null 2>&1 && have_mpi=1

run memcpy "$build/tools/pldsim-bench-backends" --memcpy --iters "$iters"
for p in 2 4; do
    run "threads$p" "$build/tools/pldsim-bench-backends" --backend threads -d "0-$((p - 1))" \
        --iters "$iters"
    if [ $have_mpi = 1 ]; then
        run "pldmpi$p" $mpirun -np $p "$build/tools/pldsim-bench-backends" --backend mpi \
            -d "0-$((p - 1))" --iters "$iters"
        run "mpi$p" $mpirun -np $p "$build/tools/mpi-allreduce-bench" --iters "$iters"
    fi
done

# table FILE...: one row per size of the first file, one column per file
table() {
    awk '{v[FILENAME, $1] = $2; if (FILENAME == ARGV[1]) size[++n] = $1}
         END {for (i = 1; i <= n; i++) {
                  line = sprintf("  %14d", size[i])
                  for (f = 1; f < ARGC; f++) line = line sprintf(" %9.2f", v[ARGV[f], size[i]])
                  print line, ratios(size[i])}}
         function ratios(b,   m, t, pm, mp) {
             m = v[ARGV[1], b]; t = v[ARGV[2], b]
             if (ARGC == 3) return sprintf("%12.2f", t / m)
             pm = v[ARGV[3], b]; mp = v[ARGV[4], b]
             return sprintf("%12.2f %9.2f %12.2f", t / m, t / mp, pm / mp)}' "$@"
}

echo "# allreduce busbw, GB/s (ring, FP32 sum; median of $reps runs of $iters calls);"
echo "# memcpy: one thread's copy bandwidth; MPI: Open MPI's MPI_Allreduce"
for p in 2 4; do
    echo
    if [ $have_mpi = 1 ]; then
        printf '# P=%d %10s %9s %9s %9s %9s %12s %9s %12s\n' $p bytes memcpy threads pld-mpi MPI \
            thr/memcpy thr/MPI pld-mpi/MPI
        table "$tmp/memcpy" "$tmp/threads$p" "$tmp/pldmpi$p" "$tmp/mpi$p"
    else
        printf '# P=%d %10s %9s %9s %12s   (mpi not built)\n' $p bytes memcpy threads thr/memcpy
        table "$tmp/memcpy" "$tmp/threads$p"
    fi
done
