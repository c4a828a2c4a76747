#!/bin/sh
# check_bench_instructions.sh: tools/bench-instructions.sh, run by make
# check.  Its argument checks always; its counts only where valgrind is
# installed and the build is not sanitized (valgrind cannot run ASan or
# TSan binaries); elsewhere that half is reported as not run.
set -u
script=$PLDSIM_SRCDIR/tools/bench-instructions.sh
fail() {
    echo "FAIL: $*"
    exit 1
}
# expect_usage ARGS MESSAGE: exit 2 and MESSAGE on stderr
expect_usage() {
    args=$1
    want=$2
    # shellcheck disable=SC2086
    out=$(sh "$script" "$PLDSIM_BUILDDIR" "$PLDSIM_SRCDIR" $args 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] || fail "bench-instructions $args: exit $rc, expected 2 ($out)"
    case $out in *"$want"*) ;; *) fail "bench-instructions $args: said '$out', expected '$want'" ;; esac
}
expect_usage "1" "P 1: expected 2 or more devices"
expect_usage "x" "P 'x': expected a device count"
expect_usage "4 -5" "BYTES '-5': expected a byte count"

if ! command -v valgrind >/dev/null 2>&1 || [ -n "${PLDSIM_SAN_FLAGS:-}" ]; then
    echo "note: the counts were not checked (no valgrind, or a sanitized build)"
    exit 0
fi
out=$(sh "$script" "$PLDSIM_BUILDDIR" "$PLDSIM_SRCDIR" 4 65536 2>&1) || fail "P=4 run: $out"
total=$(echo "$out" | awk '$1 == "total" {print $2}')
pld=$(echo "$out" | awk '/^pldsim/ {print $4}')
echo "$out" | grep -q "rank-rounds: P x 2(P-1) = 24" || fail "no rank-round count: $out"
[ -n "$total" ] && [ -n "$pld" ] || fail "no counts: $out"
# pldsim's own share is real but not the whole: both halves are counted
[ "$pld" -gt 0 ] && [ "$pld" -lt "$total" ] || fail "pldsim $pld of total $total: $out"
echo "ok: $total instructions, $pld of them pldsim's"

# The guard (issue 52): this build against the number kept for its
# toolchain; then against numbers 6 % lower and 6 % higher than this
# build's own count, where it must fail and pass.
guard=$PLDSIM_SRCDIR/tools/instructions-guard.sh
out=$(sh "$guard" "$PLDSIM_BUILDDIR" "$PLDSIM_SRCDIR" 2>&1)
rc=$?
case $rc in
0) echo "$out" ;;
77) echo "note: $out" ;;
*) fail "the guard: $out" ;;
esac
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
PLDSIM_INSTRUCTIONS_BASELINE=$tmp/kept sh "$guard" "$PLDSIM_BUILDDIR" "$PLDSIM_SRCDIR" --update >/dev/null 2>&1 ||
    fail "the guard could not record a number"
line=$(grep -v '^#' "$tmp/kept")
count=$(echo "$line" | awk '{print $4}')
for pct in 94 106; do
    echo "$line" | awk -v pct="$pct" '{ $4 = int($4 * pct / 100); print }' >"$tmp/kept"
    out=$(PLDSIM_INSTRUCTIONS_BASELINE=$tmp/kept sh "$guard" "$PLDSIM_BUILDDIR" "$PLDSIM_SRCDIR" 2>&1)
    rc=$?
    if [ "$pct" = 94 ]; then
        [ "$rc" -eq 1 ] || fail "a count 6 % above the kept number passed ($rc): $out"
        case $out in *"% more than the"*"make update-instructions"*) ;; *) fail "the guard said: $out" ;; esac
    else
        [ "$rc" -eq 0 ] || fail "a count 6 % below the kept number failed ($rc): $out"
        case $out in *"keeps the guard tight"*) ;; *) fail "no note to update: $out" ;; esac
    fi
done
echo "ok: the guard fails 6 % above its number and notes 6 % below ($count instructions)"
