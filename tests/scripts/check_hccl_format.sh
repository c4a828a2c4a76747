#!/bin/sh
# check_hccl_format.sh: pldsim-hccl-test's table and flags against CANN's
# hccl_test (tests/scripts/check_hccl_format.py), run by make check.  Needs
# only python3.
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: no python3 (apt-get install python3, or ./bootstrap)"
    exit 77
fi
exec python3 "$PLDSIM_SRCDIR/tests/scripts/check_hccl_format.py"
