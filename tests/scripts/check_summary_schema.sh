#!/bin/sh
# check_summary_schema.sh: --summary-json output validated against
# docs/summary.schema.json (tests/scripts/check_summary_schema.py), run by make
# check.  Needs a Python 3 that can import jsonschema (./bootstrap installs
# python3-jsonschema): the interpreter configure chose, else Debian's, else
# the first python3 on PATH, which on some machines is not Debian's and
# cannot see Debian's packages.  Without one, SKIP, naming what was tried.
tried=""
for py in "${PLDSIM_PYTHON:-}" /usr/bin/python3 python3; do
    [ -n "$py" ] || continue
    command -v "$py" >/dev/null 2>&1 || continue
    if "$py" -c 'import jsonschema' >/dev/null 2>&1; then
        exec "$py" "$PLDSIM_SRCDIR/tests/scripts/check_summary_schema.py"
    fi
    tried="$tried $py"
done
echo "SKIP: no Python 3 here can import jsonschema (tried:${tried:- none});" \
    "apt-get install python3-jsonschema, or ./bootstrap"
exit 77
