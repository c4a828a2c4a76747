#!/bin/sh
# check_calibration.sh: the a2a3 model has not drifted from its fit.  Reruns
# the calibration points recorded in bench/measurements/a2a3-fit-record.csv
# (tools/pldsim-calibrate guard) and fails when one moved more than 10 %;
# then shows that the guard does fail, on a model with a slower push; and
# that bad input files are refused (check_calibrate_input.py, and a short
# run of tests/fuzz/fuzz_calibrate.py); and that the runtime figures are
# well-formed and split (check_measurement_files.py).  The
# guard needs only Python's standard library: the interpreter configure
# chose, else Debian's, else the first python3 on PATH.
set -u
py=""
for p in "${PLDSIM_PYTHON:-}" /usr/bin/python3 python3; do
    [ -n "$p" ] && command -v "$p" >/dev/null 2>&1 && { py=$p; break; }
done
if [ -z "$py" ]; then
    echo "SKIP: no Python 3 found (tried configure's, /usr/bin/python3, python3)"
    exit 77
fi
cal="$PLDSIM_SRCDIR/tools/pldsim-calibrate"
# a tolerance that is no fraction from 0 to 1 is one line, exit 2, before
# any point runs (a negative one failed every point, nan passed them all)
for t in -1 nan inf 10 x; do
    out=$("$py" "$cal" --build "$PLDSIM_BUILDDIR" --jobs 2 guard --tolerance "$t" 2>&1)
    status=$?
    want="pldsim-calibrate: --tolerance '$t': expected a fraction from 0 to 1 (0.10 is 10 %)"
    if [ "$status" -ne 2 ] || [ "$out" != "$want" ]; then
        echo "FAIL: guard --tolerance $t: exit $status, expected 2 and one line: $want; got:"
        echo "$out"
        exit 1
    fi
done
# the runtime figures are well-formed and split in two halves
"$py" "$PLDSIM_SRCDIR/tests/scripts/check_measurement_files.py" || {
    echo "FAIL: a runtime figure of bench/measurements is malformed or in both halves (see above)"
    exit 1
}
# every bad file is one line, exit 2, before any point runs
"$py" "$PLDSIM_SRCDIR/tests/scripts/check_calibrate_input.py" || {
    echo "FAIL: pldsim-calibrate let bad input through (see above)"
    exit 1
}
# and its readers take or refuse, in one line, 5000 mutated files (a few
# seconds; make fuzz runs tests/fuzz/fuzz_calibrate.py for FUZZ_SECONDS)
"$py" "$PLDSIM_SRCDIR/tests/fuzz/fuzz_calibrate.py" --count 5000 --artifacts . || {
    echo "FAIL: fuzz_calibrate.py found an input pldsim-calibrate does not refuse cleanly"
    exit 1
}
# the GEMM points run under tools/pldsim-py: not in a build without the
# Python front end, nor in a sanitizer build (Python cannot load it)
nopy=
if [ "${PLDSIM_HAVE_PYTHON:-no}" != yes ] || [ -n "${PLDSIM_SAN_FLAGS:-}" ]; then
    nopy=--no-python
fi
"$py" "$cal" --build "$PLDSIM_BUILDDIR" --jobs 2 guard $nopy || {
    echo "FAIL: the a2a3 model drifted from its fit (see above)"
    exit 1
}
# the guard is not a test that cannot fail: a push twice as dear moves the
# all_to_all_v points well past 10 %
out=$("$py" "$cal" --build "$PLDSIM_BUILDDIR" --jobs 2 guard $nopy --topology hccs,push_lat=1us 2>&1)
status=$?
echo "$out"
if [ "$status" -ne 1 ] || ! echo "$out" | grep -q "^FAIL a2av/uniform"; then
    echo "FAIL: the guard did not catch a model with push_lat=1us (exit $status)"
    exit 1
fi
echo "PASS: the model holds its fit; a changed model is caught"
