#!/bin/sh
# check_python.sh: the Python front end's tests (tests/python/), run by
# make check.  Skipped, saying why, when the build has no Python front end,
# and in sanitizer builds: an ASan- or TSan-instrumented extension cannot
# be loaded into a Python interpreter that is not instrumented itself.
if [ "${PLDSIM_HAVE_PYTHON:-no}" != yes ]; then
    echo "SKIP: the Python front end was not built (configure found no Python 3 that can import torch;"
    echo "      apt-get install python3-torch python3-dev, or ./configure PYTHON=...)"
    exit 77
fi
if [ -n "${PLDSIM_SAN_FLAGS:-}" ]; then
    echo "SKIP: the Python tests do not run in sanitizer builds ($PLDSIM_SAN_FLAGS): the instrumented"
    echo "      extension cannot load into an uninstrumented Python; the plain build runs them"
    exit 77
fi
exec "$PLDSIM_PYTHON" "$PLDSIM_SRCDIR/tests/python/run.py"
