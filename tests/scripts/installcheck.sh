#!/bin/sh
# installcheck.sh: `make installcheck` (and so `make distcheck`) proves that
# an installed pldsim works on its own, as a user meets it.  The Makefile
# passes the install directories; DESTDIR may be set (a staged install), in
# which case pkg-config is pointed into it with PKG_CONFIG_SYSROOT_DIR.
# Each check that fails says what it expected; the script exits 1 if any did.
set -u
: "${DESTDIR:=}" "${srcdir:?}" "${libdir:?}" "${includedir:?}" "${bindir:?}" "${pkgdatadir:?}"
: "${mandir:?}" "${docdir:?}" "${CC:?}" "${PKG_CONFIG:=pkg-config}" "${MPIRUN_CMD:=}"
: "${have_python:=no}" "${python_man:=no}" "${pldpydir:=}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "installcheck: FAIL: $*" >&2
    fails=$((fails + 1))
}
PKG_CONFIG_PATH="$DESTDIR$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
if [ -n "$DESTDIR" ]; then
    PKG_CONFIG_SYSROOT_DIR=$DESTDIR
    export PKG_CONFIG_SYSROOT_DIR
fi

# pkg-config gives what a user's program needs, and no MPI (the mpi backend
# is a module that loads libmpi itself).
flags=$($PKG_CONFIG --cflags --libs pld) || fail "pkg-config --cflags --libs pld failed"
case "$flags" in
*mpi* | *MPI*) fail "pkg-config --cflags --libs pld names MPI: $flags" ;;
esac

# A program built against the installed headers and library runs.
if $CC -std=gnu11 $($PKG_CONFIG --cflags pld) "$srcdir/tests/support/installcheck.c" \
    -o "$tmp/installcheck" $($PKG_CONFIG --libs pld) -Wl,-rpath,"$DESTDIR$libdir"; then
    out=$("$tmp/installcheck" -d 0-3 --no-summary 2>&1)
    [ "$out" = OK ] || fail "the installed-library program printed '$out', expected OK"
    if [ -n "$MPIRUN_CMD" ]; then
        out=$($MPIRUN_CMD "$tmp/installcheck" -d 0-1 --backend mpi --no-summary </dev/null 2>&1)
        printf '%s\n' "$out" | grep -qx OK || fail "--backend mpi under mpirun printed: $out"
    fi
else
    fail "could not build tests/support/installcheck.c with pkg-config's flags"
fi
[ -f "$DESTDIR$pkgdatadir/models/a2a3.model" ] || fail "no models in $pkgdatadir/models"
[ -f "$DESTDIR$includedir/pld/pld.h" ] || fail "no $includedir/pld/pld.h"

if [ "$have_python" = yes ]; then
    # pldsim-py names its modules' installed place; a staged install has
    # them under DESTDIR instead (and libpld, which the extension links)
    if [ -n "$DESTDIR" ]; then
        PYTHONPATH="$DESTDIR$pldpydir${PYTHONPATH:+:$PYTHONPATH}" LD_LIBRARY_PATH="$DESTDIR$libdir"
        export PYTHONPATH LD_LIBRARY_PATH
    fi
    out=$("$DESTDIR$bindir/pldsim-py" --no-summary "$srcdir/tutorials/05_remote_load_store.py" \
        --mode store 2>&1)
    [ "$out" = OK ] || fail "the installed pldsim-py ran step 5 and printed: $out"
fi

# The installed links run the program they name: hccl_test's and GIN's.
out=$(LD_LIBRARY_PATH="$DESTDIR$libdir" "$DESTDIR$bindir/pldsim-all_reduce_test" -p 2 -b 1K \
    -e 1K -n 1 -w 0 2>&1)
printf '%s\n' "$out" | grep -q '^1024  *| .* | success$' ||
    fail "the installed pldsim-all_reduce_test printed: $out"
out=$(LD_LIBRARY_PATH="$DESTDIR$libdir" "$DESTDIR$bindir/pldsim-ginSignalLatency_ping_perf" \
    -e 4 -n 1 -w 0 2>&1)
printf '%s\n' "$out" | grep -q '^# GIN SIGNAL PING LATENCY' ||
    fail "the installed pldsim-ginSignalLatency_ping_perf printed: $out"
out=$(LD_LIBRARY_PATH="$DESTDIR$libdir" "$DESTDIR$bindir/pldsim-shmem_signal_ping_pong_latency" \
    -n 1 -w 0 2>&1)
printf '%s\n' "$out" | grep -q '^#shmem_sig_ping_lat' ||
    fail "the installed pldsim-shmem_signal_ping_pong_latency printed: $out"

# `man PROGRAM` works for every installed program and for the suites' names.
progs="pldsim-perf pldsim-hccl-test pldsim-gin-perf pldsim-shmem-perf pldsim-plot
    pldsim-timeline pldsim-all_reduce_perf pldsim-all_reduce_test pldsim-ginPutBW_perf
    pldsim-shmem_put_bw"
[ "$python_man" = yes ] && progs="$progs pldsim-py"
if command -v man >/dev/null 2>&1; then
    for p in $progs; do
        page=$(MANWIDTH=100 man -M "$DESTDIR$mandir" -P cat "$p" 2>&1)
        printf '%s\n' "$page" | grep -q -- '--version' ||
            fail "man $p: no page listing --version: $(printf '%s\n' "$page" | head -n 3)"
    done
else
    for p in $progs; do
        [ -s "$DESTDIR$mandir/man1/$p.1" ] || fail "no man page $mandir/man1/$p.1"
    done
    echo "installcheck: man(1) is not installed; checked that the pages exist only"
fi

# Every file under docs/, and the README, is in $(docdir).
for f in README.md $(cd "$srcdir" && find docs -type f | LC_ALL=C sort); do
    [ -f "$DESTDIR$docdir/$f" ] || fail "$f is not installed in $docdir (add it to pld_doc_files in Makefile.am)"
done

# The installed tutorials build against the installed library and run.
cp -R "$DESTDIR$docdir/tutorials" "$tmp/tutorials" || fail "no tutorials in $docdir"
if make -s -C "$tmp/tutorials" 05_remote_load_store >"$tmp/make.log" 2>&1; then
    out=$(LD_LIBRARY_PATH="$DESTDIR$libdir" "$tmp/tutorials/05_remote_load_store" --no-summary 2>&1)
    printf '%s\n' "$out" | grep -qx OK || fail "the installed step 5 printed: $out"
else
    fail "the installed tutorials' Makefile failed: $(cat "$tmp/make.log")"
fi

if [ "$fails" -ne 0 ]; then
    echo "installcheck: $fails check(s) failed" >&2
    exit 1
fi
echo "installcheck: pkg-config (no MPI), a C program and a tutorial step built against the install," \
    "pldsim-py, man pages and docs: OK"
