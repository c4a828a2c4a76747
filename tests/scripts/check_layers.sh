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
# every edge is checked, run.c's, error.c's and ops.c's included.  Nor may
# files call each other round a circle, within a layer or across.
# Then the includes (none from a layer above), and the files' length: none
# of src/ or sim/ over 600 lines.
# Run by make check with PLDSIM_BUILDDIR set; by hand: sh tests/scripts/check_layers.sh BUILDDIR
build=${1:-${PLDSIM_BUILDDIR:-.}}

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
done | awk '
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
            return rank[b] <= rank["backend"] || d == "src/observe/deadlock.c"
        return rank[b] <= rank[a]
    }
    # "file addr T sym" defines; "file U sym" uses
    NF == 4 && $3 ~ /^[TDBRCV]$/ { if (!($4 in def)) def[$4] = $1 }
    NF == 3 && $2 == "U" { use[++nu] = $1 " " $3 }
    END {
        n = split("core model mem backend observe api collectives top", order, " ")
        for (i = 1; i <= n; i++) rank[order[i]] = i
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
            if (!((u, d) in via)) via[u, d] = s
            file[u] = file[d] = 1
        }
        # No circle within a layer either: the files that reach each other
        # (a transitive closure; some 80 files, so cubic is cheap)
        for (k in file)
            for (i in file)
                if ((i, k) in via)
                    for (j in file)
                        if ((k, j) in via && !((i, j) in via)) via[i, j] = "(through " k ")"
        for (i in file)
            for (j in file)
                if (i < j && (i, j) in via && (j, i) in via) {
                    printf "FAIL: %s and %s call each other, round a circle (%s -> %s: %s; %s -> %s: %s)\n",
                        i, j, i, j, via[i, j], j, i, via[j, i]
                    bad = 1
                }
        if (!bad) printf "ok: %d calls between files, none up a layer, no circle\n", edges
        exit bad
    }'
status=$?

# Nor does a file include a header of a layer above its own: the layer
# below compiles without the one above (a header's layer is its folder).
src=${PLDSIM_SRCDIR:-$(dirname "$0")/../..}
ups=$(cd "$src" && for f in src/*/*.[ch]; do
    grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "\(.*\)"$/\1/' |
        while read -r h; do
            for d in src/*/"$h"; do [ -f "$d" ] && echo "$f $d"; done
        done
done | awk '
    BEGIN { n = split("core model mem backend observe api collectives", o, " ")
            for (i = 1; i <= n; i++) rank[o[i]] = i }
    { split($1, a, "/"); split($2, b, "/")
      if ((a[2] in rank) && (b[2] in rank) && rank[b[2]] > rank[a[2]])
          printf "FAIL: %s includes %s (%s may not include %s)\n", $1, $2, a[2], b[2] }')
if [ -n "$ups" ]; then
    echo "$ups"
    status=1
else
    echo "ok: no header included from a layer below its own"
fi

# One idea per file, and so no source file over 600 lines (DESIGN.md):
# past that a file holds two ideas, and the second wants a file of its
# own.  The layers, the backends, the public headers, the tools and the
# Python front end (the tests are not product source); the generated
# models_builtin.c is not written by hand.
long=$({ find "$src/src" "$src/sim" "$src/include" "$src/tools" "$src/python" \
    \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.py' \) -not -path '*/.libs/*'
    find "$src/tools" -maxdepth 1 -name 'pldsim-*' -type f -exec grep -l '^#!.*python' {} +; } |
    grep -v '/models_builtin\.c$' | xargs wc -l | awk '$2 != "total" && $1 > 600')
if [ -n "$long" ]; then
    echo "$long" | while read -r n f; do
        echo "FAIL: ${f#"$src"/} has $n lines; a source file holds at most 600 (move a group of its declarations or functions to a file of its own)"
    done
    status=1
else
    echo "ok: no source file over 600 lines (src, sim, include, tools, python)"
fi
exit $status
