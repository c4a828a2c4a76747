#!/bin/sh
# check_shmem_format.sh: pldsim-shmem-perf's tables and flags against NVSHMEM's
# perftests (tests/scripts/check_shmem_format.py), run by make check.  Needs
# only python3.
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: no python3 (apt-get install python3, or ./bootstrap)"
    exit 77
fi
exec python3 "$PLDSIM_SRCDIR/tests/scripts/check_shmem_format.py"
