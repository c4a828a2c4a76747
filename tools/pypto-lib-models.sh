#!/bin/sh
# Runs pypto-lib's DeepSeek-V4 model files that upstream's CI runs on its
# simulator (marked "# ci: devices=2" and not "# ci: no-sim") through
# pldsim-py, from pypto-lib's root as its daily CI runs them (python
# models/.../FILE.py -p a2a3sim, here with -d 0,1), and prints one line per
# file: PASS or FAIL, the wall time, the peak memory of the run's processes
# together (tools/peak-memory.py: their proportional set sizes, so the
# tensors the simulation shares with the runner count once), the simulated
# time, and the first error line of a failure.  pypto-lib is fetched by the
# user; pldsim ships none of it.
#
#   sh tools/pypto-lib-models.sh PLDSIM_PY PYPTO_LIB [TIMEOUT_S] [FILTER]
#
# TIMEOUT_S (default 300) bounds each file's wall time; FILTER, a grep
# pattern, picks files by path.  PYPTO_LIB_SET=no-sim runs the files that
# upstream's CI keeps off its simulator instead (every model file marked
# "# ci: no-sim", on as many devices as its "# ci: devices=N" says, else
# one, and with -p a2a3 or a5 where the file takes no simulator name):
# pldsim should run each or stop it in one line that names what it lacks.  PYPTO_LIB_LOGS=DIR keeps each failing
# file's output there.  PYPTO_LIB_TSV=FILE appends a row per file there:
# name, PASS/FAIL, wall s, peak MB, peak MB before the simulated run (the
# file's inputs and golden) and after it, the golden runner's input, golden
# and runtime stages in s, torch's matmul products in s (PLDSIM_PY_PROFILE),
# the simulated time, and the s before the golden runner's first "[RUN]"
# line (the file's own set-up: some build their tensors there).  Exits 1
# when any file failed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 PLDSIM_PY PYPTO_LIB [TIMEOUT_S] [FILTER]" >&2
    exit 2
fi
py=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lib=$(cd "$2" && pwd) || exit 2
limit=${3:-300}
filter=${4:-.}
case $limit in '' | *[!0-9]*) echo "$0: TIMEOUT_S must be a whole number of seconds, got '$limit'" >&2; exit 2 ;; esac
[ -d "$lib/models" ] || { echo "$0: $lib has no models/ directory: is it a pypto-lib checkout?" >&2; exit 2; }
peak=$(cd "$(dirname "$0")" && pwd)/peak-memory.py
log=$(mktemp)
mem=$(mktemp)
trap 'rm -f "$log" "$mem"' EXIT
fails=0
total=0
set_=${PYPTO_LIB_SET:-sim}
case $set_ in
sim) files=$(grep -l '^# ci: devices=2' "$lib"/models/deepseek_v4_*/*.py | sort) ;;
no-sim) files=$(grep -l '^# ci: no-sim' "$lib"/models/*/*.py | sort) ;;
*) echo "$0: PYPTO_LIB_SET must be sim or no-sim, got '$set_'" >&2; exit 2 ;;
esac
for f in $files; do
    [ "$set_" = sim ] && grep -q '^# ci: no-sim' "$f" && continue
    echo "$f" | grep -q -- "$filter" || continue
    ndev=$(sed -n 's/^# ci: devices=\([0-9]*\).*/\1/p' "$f" | head -1)
    # a device-only file's -p takes only hardware names (pldsim runs a2a3 as
    # the a2a3 model, a5 as the a5 model)
    if grep -q '"a2a3sim"' "$f"; then platform=a2a3sim; elif grep -q '"a2a3"' "$f"; then platform=a2a3; else platform=a5; fi
    devices=$(seq -s, 0 $((${ndev:-1} - 1)))
    total=$((total + 1))
    name=$(basename "$(dirname "$f")")/$(basename "$f")
    rel=${f#"$lib"/}
    start=$(date +%s.%N)
    (cd "$lib" && PYTHONPATH="$lib" PLDSIM_PY_PROFILE=1 timeout "$limit" python3 "$peak" --out "$mem" --split '^\[RUN\] runtime \.\.\.' --mark '^\[RUN\]' -- "$py" "$rel" -p "$platform" -d "$devices") >"$log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    wall=$(awk "BEGIN { print $end - $start }")
    sim=$(grep -o 'time=[0-9.]* [mun]*s' "$log" | tail -1)
    mb=$(sed -n 's/.*peak_pss_mb=\([0-9]*\).*/\1/p' "$mem" 2>/dev/null)
    if [ $rc -eq 0 ] && grep -q '\[RUN\] PASS' "$log"; then
        status=PASS
        printf 'PASS %-45s %7.1f s %6s MB  %s\n' "$name" "$wall" "${mb:-?}" "$sim"
    else
        status=FAIL
        fails=$((fails + 1))
        if [ -n "${PYPTO_LIB_LOGS:-}" ]; then
            mkdir -p "$PYPTO_LIB_LOGS" && cp "$log" "$PYPTO_LIB_LOGS/$(echo "$name" | tr / _).log"
        fi
        if [ $rc -eq 124 ]; then
            why="timed out after $limit s"
        elif [ $rc -eq 137 ] || grep -q 'was killed by signal 9' "$log"; then
            why="killed by SIGKILL (on Linux, the OOM killer: see dmesg)"
        else
            why=$( (grep -v ': warning: ' "$log" | grep -E ': (rank [0-9]+|host): |^[A-Za-z.]*(Error|Exception): |: torch\.' || grep -v '^\s*$' "$log") | head -1 | cut -c1-220)
        fi
        printf 'FAIL %-45s %7.1f s %6s MB  %s\n' "$name" "$wall" "${mb:-?}" "$why"
    fi
    if [ -n "${PYPTO_LIB_TSV:-}" ]; then
        # the golden runner's stage times, pldsim's profile and the memory split
        # summed over the runner's cases (a file may validate several)
        stage() { sed -n "s/^\[RUN\] $1 done (\([0-9.]*\)s)/\1/p" "$log" | awk '{ s += $1 } END { if (NR) printf "%.2f", s }'; }
        field() { sed -n "s/.*$1=\([0-9.a-z]*\).*/\1/p" "$mem" 2>/dev/null; }
        products=$(sed -n "s/.*torch's matmul products \([0-9.]*\) s.*/\1/p" "$log" | awk '{ s += $1 } END { if (NR) print s }')
        printf '%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$wall" "${mb:-}" \
            "$(field before_pss_mb)" "$(field after_pss_mb)" "$(stage 'generate inputs')" "$(stage 'compute golden')" \
            "$(stage runtime)" "${products:-}" "$(echo "$sim" | sed 's/time=//')" "$(field mark_s)" >>"$PYPTO_LIB_TSV"
    fi
    : >"$mem"
done
echo "$((total - fails)) of $total passed"
[ $fails -eq 0 ]
