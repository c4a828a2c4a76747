#!/bin/sh
# check_layers.sh: the layering of libpld's source files, read from the
# symbols of the built objects (nm), so a call that climbs back up a layer
# fails make check, not just a review.  Each rule "A > B" says that B, and
# everything B calls, directly or not, never calls A:
#   - the trace writers never call back into the event log that drives them;
#   - the host-write registry sits below host tensors;
#   - shapes are a leaf; windows are built on shapes and sparse storage;
#     region copies sit above windows, and the element arithmetic below all.
# Paths through the files every layer uses are not followed: run.c (the
# run's state, pld__R), error.c (pld__fail) and ops.c (the op table), since
# run.c calls everything, and so would put every file above every other.
# Run by make check with PLDSIM_BUILDDIR set; by hand: sh tests/check_layers.sh BUILDDIR
build=${1:-${PLDSIM_BUILDDIR:-.}}
rules='events>trace_text events>trace_json events>trace_svg
tensor>host_writes
region>window region>sparse region>shape region>dtype
window>sparse window>shape window>dtype sparse>shape sparse>dtype shape>dtype'

objs=$(ls "$build"/src/libpld_la-*.o "$build"/src/collectives/libpld_la-*.o \
    "$build"/sim/libpld_la-*.o 2>/dev/null)
if [ -z "$objs" ]; then
    echo "check_layers: no libpld objects under $build (build first: make)" >&2
    exit 99
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is not installed"; exit 77; }

for o in $objs; do
    m=${o##*/libpld_la-}
    nm "$o" | sed "s|^|${m%.o} |"
done | awk -v rules="$rules" '
    # "module addr T sym" defines; "module U sym" uses
    NF == 4 && $3 ~ /^[TDBR]$/ { def[$4] = $1 }
    NF == 3 && $2 == "U" { use[++nu] = $1 " " $3 }
    function reach(from, to, seen,   k, n, parts) {
        if (from == to) return 1
        seen[from] = 1
        for (k in edge) {
            split(k, parts, " ")
            if (parts[2] in hub) continue
            if (parts[1] == from && !(parts[2] in seen) && reach(parts[2], to, seen))
                return 1
        }
        return 0
    }
    END {
        hub["run"] = hub["error"] = hub["ops"] = 1
        for (i = 1; i <= nu; i++) {
            split(use[i], p, " ")
            if ((p[2] in def) && def[p[2]] != p[1]) {
                edge[p[1] " " def[p[2]]] = 1
                via[p[1] " " def[p[2]]] = p[2]
            }
        }
        n = split(rules, r, /[ \n]+/)
        bad = 0
        for (i = 1; i <= n; i++) {
            if (r[i] == "") continue
            split(r[i], ab, ">")
            if (!(ab[1] in seenmod)) { for (k in def) if (def[k] == ab[1]) seenmod[ab[1]] = 1 }
            if (!(ab[2] in seenmod)) { for (k in def) if (def[k] == ab[2]) seenmod[ab[2]] = 1 }
            if (!(ab[1] in seenmod) || !(ab[2] in seenmod)) {
                printf "check_layers: rule %s names a file that defines nothing\n", r[i]
                bad = 1
                continue
            }
            delete seen
            if (reach(ab[2], ab[1], seen)) {
                printf "FAIL: %s.c reaches %s.c (rule %s):", ab[2], ab[1], r[i]
                for (k in edge) {
                    split(k, e, " ")
                    if (e[1] == ab[2] && !(e[2] in hub)) printf " %s->%s via %s", e[1], e[2], via[k]
                }
                printf "\n"
                bad = 1
            } else
                printf "ok: %s > %s\n", ab[1], ab[2]
        }
        exit bad
    }'
