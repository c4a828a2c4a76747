#!/bin/sh
# check_dist.sh: every file git tracks is in the tarball.  `make distcheck`
# would find a source missing from Makefile.am, but it builds everything a
# second time, so CI does not run it; a header or a doc that the build
# finds in the source tree but `make dist` leaves out (src/ops.h once) went
# unnoticed.  This writes the distribution directory (make distdir, a few
# seconds) and compares it with `git ls-files`.  Run by make check, in a
# git checkout only (a tarball has no git to compare with: skipped); by
# hand: sh tests/scripts/check_dist.sh BUILDDIR SRCDIR
build=${1:-${PLDSIM_BUILDDIR:-.}}
src=${2:-${PLDSIM_SRCDIR:-$build}}
# tracked on purpose, and not for the tarball
not_distributed='.gitignore'

command -v git >/dev/null 2>&1 || { echo "SKIP: git is not installed"; exit 77; }
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || {
    echo "SKIP: $src is not a git checkout (a tarball: nothing to compare with)"
    exit 77
}
if [ "$(cd "$top" && pwd -P)" != "$(cd "$src" && pwd -P)" ]; then
    echo "SKIP: $src is inside the git checkout $top, not one itself (make distcheck's copy)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# MAKEFLAGS from make check would make this a sub-make of its jobserver
if ! MAKEFLAGS= MFLAGS= make -s -C "$build" distdir distdir="$tmp/dist" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "FAIL: make distdir failed (above)"
    exit 1
fi
git -C "$src" ls-files | sort >"$tmp/tracked"
(cd "$tmp/dist" && find . -type f | sed 's|^\./||' | sort) >"$tmp/shipped"
missing=$(comm -23 "$tmp/tracked" "$tmp/shipped" | grep -vxF "$not_distributed")
if [ -n "$missing" ]; then
    echo "FAIL: tracked by git but missing from the tarball (make dist):"
    echo "$missing" | sed 's/^/  /'
    echo "add each to Makefile.am (its program's _SOURCES, EXTRA_DIST or a dist_ variable)"
    exit 1
fi
echo "PASS: the tarball holds all $(wc -l <"$tmp/tracked") tracked files but $not_distributed"
