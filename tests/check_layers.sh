#!/bin/sh
# check_layers.sh: the layering of libpld, read from the symbols of the
# built objects (nm), so that a call that climbs back up a layer fails make
# check, not just a review.  The folders of src/ are the layers, in call
# order (docs/architecture.md draws them):
#   core < model < mem < backend < observe < api < collectives < top
# where top is the files at src/ itself (run.c, options.c).  A file may call
# its own layer and any layer below it, never one above.  The backends,
# sim/ and src/hw/, sit beside backend/: they may call core, model, mem and
# backend, and of observe only the deadlock report (observe/deadlock.c);
# only top (run.c, which selects them) may call them.  There are no hubs:
# every edge is checked, run.c's, error.c's and ops.c's included.
# Run by make check with PLDSIM_BUILDDIR set; by hand: sh tests/check_layers.sh BUILDDIR
build=${1:-${PLDSIM_BUILDDIR:-.}}

# The backends' calls up into the API that are still there until issue 29
# item 2 lands (the run hook will be handed these as a struct of front-end
# callbacks instead of calling them by link name).  Only these symbols, and
# only from sim/ and src/hw/: anything else up is a failure.
allow='pld__run_task pld__kstate_size pld__kstate_save pld__kstate_load pld__kstate_fork
pld__kstate_release'

objs=$(find "$build/src" "$build/sim" -name 'libpld_la-*.o' -o -name 'pld_mpi_la-*.o' 2>/dev/null |
    grep -v '/\.libs/')
if [ -z "$objs" ]; then
    echo "check_layers: no libpld objects under $build (build first: make)" >&2
    exit 99
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is not installed"; exit 77; }

for o in $objs; do
    rel=${o#"$build"/}
    dir=${rel%/*}
    base=${rel##*/}
    base=${base#libpld_la-}
    base=${base#pld_mpi_la-}
    name=$dir/${base%.o}.c
    [ "$name" = sim/shim.c ] && name=sim/shim.cpp
    nm "$o" | sed "s|^|$name |"
done | awk -v allow="$allow" '
    # the layer of a file, from its folder
    function layer(f) {
        if (f ~ /^src\/(core|model|mem|backend|observe|api|collectives)\//) {
            split(f, p, "/")
            return p[2]
        }
        if (f ~ /^(sim|src\/hw)\//) return "backends"
        if (f ~ /^src\/[^\/]+$/) return "top"
        return "?"
    }
    # may file u (layer a) call file d (layer b)?
    function allowed(u, d, a, b, sym) {
        if (a == "?" || b == "?") return 0
        if (b == "backends") return a == "backends" || a == "top"
        if (a == "backends")
            return rank[b] <= rank["backend"] || d == "src/observe/deadlock.c" || (sym in ok)
        return rank[b] <= rank[a]
    }
    # "file addr T sym" defines; "file U sym" uses
    NF == 4 && $3 ~ /^[TDBRCV]$/ { if (!($4 in def)) def[$4] = $1 }
    NF == 3 && $2 == "U" { use[++nu] = $1 " " $3 }
    END {
        n = split("core model mem backend observe api collectives top", order, " ")
        for (i = 1; i <= n; i++) rank[order[i]] = i
        split(allow, a, /[ \n]+/)
        for (i in a) if (a[i] != "") ok[a[i]] = 1
        bad = 0
        for (i = 1; i <= nu; i++) {
            split(use[i], p, " ")
            u = p[1]; s = p[2]
            if (!(s in def) || def[s] == u) continue
            d = def[s]
            edges++
            if (!allowed(u, d, layer(u), layer(d), s)) {
                printf "FAIL: %s -> %s: %s (%s may not call %s)\n", u, d, s, layer(u), layer(d)
                bad = 1
            }
        }
        if (!bad) printf "ok: %d calls between files, none up a layer\n", edges
        exit bad
    }'
