#!/bin/sh
# update-goldens.sh BUILDDIR SRCDIR: rewrites SRCDIR/traces/*.txt from the
# tutorials, on purpose (`make update-goldens`).  Review the diff before
# committing: a change in model numbers shows up there.
set -eu
build=$1
src=$2
mkdir -p "$src/traces"
grep -v '^#' "$src/tools/golden-runs.txt" | while read -r name prog args; do
    # shellcheck disable=SC2086
    "$build/tutorials/$prog" $args --no-summary --trace "$src/traces/$name.txt" >/dev/null
    echo "traces/$name.txt"
done
