#!/bin/sh
# check_summary_schema.sh: --summary-json output validated against
# docs/summary.schema.json (tests/check_summary_schema.py), run by make
# check.  Needs python3 and python3-jsonschema (./bootstrap installs both).
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: no python3 (apt-get install python3, or ./bootstrap)"
    exit 77
fi
exec python3 "$PLDSIM_SRCDIR/tests/check_summary_schema.py"
