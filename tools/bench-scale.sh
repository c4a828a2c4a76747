#!/bin/sh
# bench-scale.sh BUILDDIR SRCDIR [KEY=VALUE ...]: pldsim's builtin
# collectives at scale, and SMPI on the same platform files
# (docs/performance.md).  `make bench-scale BENCH_SCALE_ARGS="P='8 64'"`.
#
#   P='8 64 256 1024'     device counts
#   COLLS='ring mesh a2a' ring and mesh allreduce, all_to_all
#   TOPOS='ring crossbar' ring:P and mesh:P (a link per pair), bw and lat below
#   BW=100GBps LAT=1us    every link
#   BYTES=1048576         per rank
#   NODATA_P='1024'       extra ring allreduce runs with --no-data at these P
#                         (up to PLD_MAX_RANKS, 4096; see docs/performance.md)
#   SKIP='mesh/*/1024 */crossbar/1024'  coll/topo/P patterns not run (why: below)
#   SMPI=yes              also run bench/ring_allreduce_mpi.c under smpirun
#   FLOOR=yes             also run bench/simgrid-floor (SimGrid alone making the
#                         ring allreduce's activities; its simulated time must
#                         equal pldsim's, or the row says "floor differs")
#   TIMEOUT=900           seconds per run; a run over it shows "timeout"
#   OUT=bench-scale.tsv   the table as tab-separated values
#
# Wall time and peak RSS come from /usr/bin/time around the whole process
# (platform generation and loading included).  The default SKIP leaves out
# the mesh allreduce at 1024 (P^2 remote loads of every 16 KiB piece: 1024
# times the ring's data, hours of simulation) and the crossbar at 1024
# (523776 links; SimGrid's Full routing table alone is P^2 routes).
set -u
build=${1:-.}
src=${2:-.}
shift 2 2>/dev/null || shift $#
P='8 64 256 1024'
COLLS='ring mesh a2a'
TOPOS='ring crossbar'
BW=100GBps
LAT=1us
BYTES=1048576
NODATA_P='1024'
SKIP='mesh/*/1024 */crossbar/1024'
SMPI=yes
FLOOR=yes
TIMEOUT=900
OUT=bench-scale.tsv
for kv in "$@"; do
    case $kv in
    P=* | COLLS=* | TOPOS=* | BW=* | LAT=* | BYTES=* | NODATA_P=* | SKIP=* | SMPI=* | FLOOR=* | TIMEOUT=* | OUT=*)
        eval "${kv%%=*}=\${kv#*=}" ;;
    *) echo "bench-scale: unknown setting '$kv'" >&2; exit 2 ;;
    esac
done

scale=$build/bench/pldsim-scale
floor=$build/bench/simgrid-floor
test -x "$scale" || { echo "bench-scale: build $scale first (make)" >&2; exit 2; }
if [ "$FLOOR" = yes ] && ! test -x "$floor"; then
    echo "bench-scale: $floor is not built (make); running without the SimGrid floor" >&2
    FLOOR=no
fi
test -x /usr/bin/time || { echo "bench-scale: needs GNU time (/usr/bin/time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$SMPI" = yes ]; then
    if ! command -v smpicc >/dev/null || ! smpicc -O2 -o "$tmp/ring_mpi" "$src/bench/ring_allreduce_mpi.c" \
        >"$tmp/smpicc.log" 2>&1; then
        echo "bench-scale: smpicc failed; running without SMPI" >&2
        cat "$tmp/smpicc.log" >&2
        SMPI=no
    fi
fi

skipped() { # coll topo P
    for pat in $SKIP; do
        # shellcheck disable=SC2254
        case "$1/$2/$3" in $pat) return 0 ;; esac
    done
    return 1
}

# field KEY LINE: the value of KEY=... in a key=value line
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# timed OUTFILE CMD...: runs CMD under time and timeout; sets wall, rss_mb, ok
timed() {
    o=$1
    shift
    timeout "$TIMEOUT" /usr/bin/time -f 'TIME %e %M' -o "$tmp/time" "$@" >"$o" 2>"$o.err"
    rc=$?
    wall=$(awk '/^TIME/ {print $2}' "$tmp/time")
    rss_mb=$(awk '/^TIME/ {printf "%.0f", $3 / 1024}' "$tmp/time")
    ok=yes
    if [ $rc -eq 124 ]; then
        ok=timeout
    elif [ $rc -ne 0 ]; then
        ok="exit $rc"
    fi
}

printf '# bench-scale: %s bytes per rank, links %s %s, CM02 (crosstraffic 0, TCP-gamma 0); %s\n' \
    "$BYTES" "$BW" "$LAT" "$(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores"
printf '# sim = simulated seconds of the collective; xfer/s = simulated transfers per wall second\n'
printf '# floor = SimGrid alone making the same activities (bench/simgrid_floor.c)\n'
printf '%-5s %-8s %5s %-4s | %8s %7s %12s %9s %9s | %8s %7s %12s %9s | %7s | %8s %7s %7s\n' \
    coll topo P data wall_s rss_MB sim_s transfers xfer/s smpi_wall smpi_MB smpi_sim_s messages \
    pld/smpi flr_wall flr_MB pld/flr
printf 'coll\ttopo\tP\tdata\twall_s\trss_MB\tsim_s\ttransfers\txfer_per_s\tsmpi_wall_s\tsmpi_rss_MB\tsmpi_sim_s\tsmpi_messages\twall_ratio\tfloor_wall_s\tfloor_rss_MB\tfloor_ratio\n' >"$OUT"
notes=""

run_case() { # coll topo P data(yes|no)
    coll=$1 topo=$2 n=$3 data=$4
    spec=$([ "$topo" = crossbar ] && echo mesh || echo ring):$n,bw=$BW,lat=$LAT
    flags=""
    [ "$data" = no ] && flags=--no-data
    PLD_SAVE_PLATFORM=$tmp/plat.xml timed "$tmp/pld" "$scale" "$coll" -d "0-$((n - 1))" \
        --topology "$spec" --bytes "$BYTES" $flags
    if [ "$ok" != yes ]; then
        printf '%-5s %-8s %5s %-4s | %8s  (%s; %s)\n' "$coll" "$topo" "$n" "$data" "$wall" "$ok" \
            "$(tail -n 1 "$tmp/pld.err")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$coll" "$topo" "$n" "$data" "$wall" "$rss_mb" "$ok" >>"$OUT"
        return
    fi
    line=$(cat "$tmp/pld")
    pw=$wall prss=$rss_mb
    sim=$(field coll_s "$line")
    xf=$(field transfers "$line")
    wrong=$(field wrong "$line")
    [ "$wrong" = 0 ] || notes="$notes\n$coll $topo $n: $wrong WRONG results"
    rate=$(awk -v x="$xf" -v w="$pw" 'BEGIN {printf "%.3g", (w > 0 ? x / w : 0)}')
    sw=- srss=- ssim=- smsg=- ratio=-
    if [ "$SMPI" = yes ] && [ "$coll" = ring ] && [ "$data" = yes ]; then
        i=0
        : >"$tmp/hosts"
        while [ $i -lt "$n" ]; do
            echo "dev$i" >>"$tmp/hosts"
            i=$((i + 1))
        done
        timed "$tmp/smpi" smpirun -np "$n" -platform "$tmp/plat.xml" -hostfile "$tmp/hosts" \
            "$tmp/ring_mpi" "$BYTES" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
            --cfg=network/TCP-gamma:0 --cfg=smpi/simulate-computation:no \
            --log=root.thresh:warning
        if [ "$ok" = yes ]; then
            sline=$(grep '^coll=mpi-ring' "$tmp/smpi")
            sw=$wall srss=$rss_mb
            ssim=$(field coll_s "$sline")
            smsg=$(field messages "$sline")
            ratio=$(awk -v a="$pw" -v b="$sw" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
        else
            sw=$ok
        fi
    fi
    fw=- frss=- fratio=-
    if [ "$FLOOR" = yes ] && [ "$coll" = ring ] && [ "$n" -ge 3 ]; then
        fflags=""
        [ "$data" = no ] && fflags=--no-data
        timed "$tmp/floor" "$floor" "$tmp/plat.xml" "$n" --bytes "$BYTES" $fflags
        if [ "$ok" = yes ]; then
            fline=$(cat "$tmp/floor")
            fw=$wall frss=$rss_mb
            fratio=$(awk -v a="$pw" -v b="$fw" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
            # the same activities give the same simulated time, bit for bit
            [ "$(field coll_s "$fline")" = "$sim" ] && [ "$(field transfers "$fline")" = "$xf" ] ||
                notes="$notes\n$coll $topo $n $data: floor differs: $fline"
        else
            fw=$ok
        fi
    fi
    printf '%-5s %-8s %5s %-4s | %8s %7s %12.6g %9s %9s | %8s %7s %12s %9s | %7s | %8s %7s %7s\n' \
        "$coll" "$topo" "$n" "$data" "$pw" "$prss" "$sim" "$xf" "$rate" "$sw" "$srss" \
        "$([ "$ssim" = - ] && echo - || printf '%.6g' "$ssim")" "$smsg" "$ratio" "$fw" "$frss" "$fratio"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$coll" "$topo" "$n" \
        "$data" "$pw" "$prss" "$sim" "$xf" "$rate" "$sw" "$srss" "$ssim" "$smsg" "$ratio" "$fw" "$frss" \
        "$fratio" >>"$OUT"
}

for topo in $TOPOS; do
    for n in $P; do
        for coll in $COLLS; do
            if skipped "$coll" "$topo" "$n"; then
                notes="$notes\nskipped $coll on $topo at P=$n (SKIP='$SKIP')"
                continue
            fi
            run_case "$coll" "$topo" "$n" yes
        done
    done
done
for n in $NODATA_P; do
    for topo in $TOPOS; do
        if skipped ring "$topo" "$n"; then
            notes="$notes\nskipped ring --no-data on $topo at P=$n (SKIP='$SKIP')"
            continue
        fi
        run_case ring "$topo" "$n" no
    done
done
[ -n "$notes" ] && printf "#$notes\n" | sed 's/^\([^#]\)/# \1/'
echo "# table written to $OUT"
exit 0
