/* pldsim-perf: nccl-tests-style sweeps of the builtin collectives on the
 * simulator.  Usage:
 *
 *   pldsim-perf COLLECTIVE [-b MIN] [-e MAX] [-f FACTOR] [-P N | -d LIST]
 *               [--mode mesh|ring] [--op sum|max|min|prod] [--dtype float|half]
 *               [--root R] [--check] [--csv FILE] [common pldsim flags]
 *
 * COLLECTIVE is allreduce, broadcast, allgather, reduce_scatter or
 * all_to_all.  Every size of the sweep runs in one simulation, each call
 * started from a barrier; the time of a call is from the first rank's start
 * to the last rank's end.  The columns, the busbw factors (allreduce
 * 2(n-1)/n; allgather, reduce_scatter, all_to_all (n-1)/n; broadcast 1) and
 * the meaning of "size" follow nccl-tests (doc/PERFORMANCE.md).  Times are
 * simulated, not measured.  Without --check the run is --no-data (payloads
 * are not kept), so large sweeps fit in memory; --check keeps them and
 * verifies every result, filling the #wrong column. */
#include <pld/pld.h>

#include "size_arg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum coll { ALLREDUCE, BROADCAST, ALLGATHER, REDUCE_SCATTER, ALL_TO_ALL };
static const char *const coll_names[] = {"allreduce", "broadcast", "allgather", "reduce_scatter",
                                         "all_to_all"};

#define MAX_SIZES 64

static struct {
    enum coll coll;
    int P;
    pld_allreduce_mode mode;
    pld_reduce_op op;
    pl_dtype dt;
    int root, check;
    const char *csv;
    int64_t bytes[MAX_SIZES]; /* nccl-tests "size" of each step */
    int nsizes;
    /* results: per size, per phase (0 out-of-place, 1 in-place) */
    double t0[MAX_SIZES][2], t1[MAX_SIZES][2];
    long wrong[MAX_SIZES][2];
    struct timespec wall0;
    double last_progress;
} S;

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - S.wall0.tv_sec) + (double)(t.tv_nsec - S.wall0.tv_nsec) * 1e-9;
}

/* Elements each rank's window row holds for a step of `bytes`. */
static int64_t row_elems(int64_t bytes)
{
    int64_t es = (int64_t)pl_dtype_size(S.dt);
    switch (S.coll) {
    case ALLREDUCE:
    case BROADCAST:
        return bytes / es; /* the whole buffer */
    default:
        return bytes / es / S.P; /* per-rank chunk: size counts all ranks' */
    }
}

/* The value rank r puts at element j: small integers, so every reduction is
 * exact in FP16 too and a wrong element is an error, not rounding. */
static double input_value(int r, int64_t j)
{
    return (double)((r * 7 + j * 3) % 5) - 2;
}

static double reduce_ref(int64_t j)
{
    double acc = input_value(0, j);
    for (int r = 1; r < S.P; r++) {
        double v = input_value(r, j);
        switch (S.op) {
        case PLD_REDUCE_MAX:
            acc = v > acc ? v : acc;
            break;
        case PLD_REDUCE_MIN:
            acc = v < acc ? v : acc;
            break;
        case PLD_REDUCE_PROD:
            acc *= v;
            break;
        default:
            acc += v;
        }
    }
    return acc;
}

struct dev_args {
    int rank;
    pld_dtensor target, input, sig, ring_sig, bar;
};

static void one_call(const struct dev_args *a, int k, int phase)
{
    int64_t n = row_elems(S.bytes[k]);
    int me = a->rank, rows = S.coll >= ALLGATHER ? S.P : 1;
    pld_dtensor tgt = pld_window((pld_buffer){a->target.win}, PL_SHAPE(rows, n), S.dt);
    pld_dtensor in = pld_window((pld_buffer){a->input.win}, PL_SHAPE(rows, n), S.dt);

    if (S.check) {
        /* every rank fills its input: row d of all_to_all / reduce_scatter is
         * the data for rank d, elsewhere one row */
        for (int row = 0; row < rows; row++)
            for (int64_t j = 0; j < n; j++)
                pl_write(in, PL_IDX(row, j), input_value(me, row * n + j));
    }
    pld_tensor_barrier(a->bar); /* every rank starts together */
    double t0 = pld_time();
    if (phase == 0 || S.coll == ALLGATHER || S.coll == ALL_TO_ALL) {
        /* out-of-place: the data starts in a separate buffer */
        if (S.coll != ALLGATHER && S.coll != ALL_TO_ALL)
            pld_tensor_put(tgt, .peer = me, .src = in, .chunk_cols = 16384 / 4);
    } else if (S.check) {
        pld_tensor_put(tgt, .peer = me, .src = in, .chunk_cols = 16384 / 4);
        t0 = pld_time(); /* in-place: staging is not part of the call */
    }
    switch (S.coll) {
    case ALLREDUCE:
        pld_tensor_allreduce(tgt, S.mode == PLD_ALLREDUCE_RING ? a->ring_sig : a->sig, .op = S.op,
                             .mode = S.mode);
        break;
    case BROADCAST:
        pld_tensor_broadcast(tgt, a->sig, .root = S.root);
        break;
    case ALLGATHER:
        pld_tensor_allgather(pld_window((pld_buffer){a->input.win}, PL_SHAPE(1, n), S.dt), tgt,
                             a->sig);
        break;
    case REDUCE_SCATTER:
        pld_tensor_reduce_scatter(tgt, a->sig, .op = S.op);
        break;
    case ALL_TO_ALL:
        pld_tensor_all_to_all(in, tgt, a->sig);
        break;
    }
    double t1 = pld_time();
    if (t0 < S.t0[k][phase] || S.t0[k][phase] < 0)
        S.t0[k][phase] = t0;
    if (t1 > S.t1[k][phase])
        S.t1[k][phase] = t1;

    if (S.check) {
        long wrong = 0;
        for (int row = 0; row < rows; row++)
            for (int64_t j = 0; j < n; j++) {
                double got = pl_read(tgt, PL_IDX(row, j)), want = 0;
                int check_it = 1;
                switch (S.coll) {
                case ALLREDUCE:
                    want = reduce_ref(j);
                    break;
                case BROADCAST:
                    want = input_value(S.root, j);
                    break;
                case ALLGATHER:
                    want = input_value(row, j); /* rank row's first row */
                    break;
                case REDUCE_SCATTER:
                    check_it = row == me;
                    if (check_it) {
                        double acc = input_value(0, (int64_t)me * n + j);
                        for (int r = 1; r < S.P; r++) {
                            double v = input_value(r, (int64_t)me * n + j);
                            acc = S.op == PLD_REDUCE_MAX    ? (v > acc ? v : acc)
                                  : S.op == PLD_REDUCE_MIN  ? (v < acc ? v : acc)
                                  : S.op == PLD_REDUCE_PROD ? acc * v
                                                            : acc + v;
                        }
                        want = acc;
                    }
                    break;
                case ALL_TO_ALL:
                    want = input_value(row, (int64_t)me * n + j); /* rank row's row `me` */
                    break;
                }
                if (check_it && got != want)
                    wrong++;
            }
        S.wrong[k][phase] += wrong;
    }
    /* results are read (or ignored); line everyone up before the next call
     * writes into the same windows */
    pld_tensor_barrier(a->bar);
    if (me == 0 && phase == 1 && wall_now() - S.last_progress > 1.0) {
        S.last_progress = wall_now();
        fprintf(stderr, "pldsim-perf: %lld bytes done (%d of %d sizes), %.1f s\n",
                (long long)S.bytes[k], k + 1, S.nsizes, S.last_progress);
    }
}

static void sweep_kernel(const struct dev_args *a)
{
    for (int k = 0; k < S.nsizes; k++)
        for (int phase = 0; phase < 2; phase++)
            one_call(a, k, phase);
}

static void per_device(const struct dev_args *a)
{
    pl_incore(sweep_kernel, a);
}

static void host(const void *unused)
{
    (void)unused;
    int64_t max_row = 0;
    for (int k = 0; k < S.nsizes; k++)
        if (row_elems(S.bytes[k]) > max_row)
            max_row = row_elems(S.bytes[k]);
    int rows = S.coll >= ALLGATHER ? S.P : 1;
    pld_buffer target = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "target");
    pld_buffer input = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "input");
    /* signals on whole cache lines of their own (pypto#2800) */
    int64_t sig_bytes = ((int64_t)S.P * 4 + 63) / 64 * 64;
    pld_buffer sig = pld_alloc_window_buffer(sig_bytes, .name = "signal");
    pld_buffer bar = pld_alloc_window_buffer(sig_bytes, .name = "barrier");
    pld_buffer ring = pld_alloc_window_buffer(PL_SHAPE(2 * (S.P - 1) > 0 ? 2 * (S.P - 1) : 1, S.P),
                                              PL_INT32, .name = "ring_signal");
    for (int r = 0; r < S.P; r++) {
        struct dev_args a = {
            .rank = r,
            .target = pld_window(target, PL_SHAPE(rows, max_row), S.dt),
            .input = pld_window(input, PL_SHAPE(rows, max_row), S.dt),
            .sig = pld_window(sig, PL_SHAPE(S.P, 1), PL_INT32),
            .ring_sig =
                pld_window(ring, PL_SHAPE(2 * (S.P - 1) > 0 ? 2 * (S.P - 1) : 1, S.P), PL_INT32),
            .bar = pld_window(bar, PL_SHAPE(S.P, 1), PL_INT32),
        };
        pld_dispatch(r, per_device, a);
    }
}

static double busbw_factor(void)
{
    double n = S.P;
    switch (S.coll) {
    case ALLREDUCE:
        return 2 * (n - 1) / n;
    case BROADCAST:
        return 1;
    default:
        return (n - 1) / n;
    }
}

/* Is `a` the flag s1, or its other spelling s2 (may be NULL)? */
static int is_flag(const char *a, const char *s1, const char *s2)
{
    return strcmp(a, s1) == 0 || (s2 && strcmp(a, s2) == 0);
}

static void usage(FILE *out)
{
    fputs("usage: pldsim-perf COLLECTIVE [options]\n"
          "  COLLECTIVE           allreduce, broadcast, allgather, reduce_scatter, all_to_all\n"
          "  -b, --minbytes SIZE  smallest size (default 8; K, M, G suffixes)\n"
          "  -e, --maxbytes SIZE  largest size (default 64M)\n"
          "  -f, --stepfactor N   multiply the size by N each step (default 2)\n"
          "  -P N                 devices 0..N-1 (or the common -d LIST; default 8)\n"
          "      --mode M         allreduce: mesh (default) or ring\n"
          "      --op OP          sum (default), max, min, prod\n"
          "      --dtype T        float (default) or half\n"
          "      --root R         broadcast root (default 0)\n"
          "      --check          keep payloads and verify every result (#wrong)\n"
          "      --csv FILE       also write the table as CSV\n"
          "Sizes follow nccl-tests: allreduce and broadcast move SIZE bytes per rank;\n"
          "allgather, reduce_scatter and all_to_all count all ranks' parts in SIZE.\n"
          "Times are simulated by pldsim, not measured.\n\n",
          out);
    pld_print_common_usage(out);
}

static int fail_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "pldsim-perf: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see --help)\n");
    return 2;
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    int64_t minb = 8, maxb = 64 << 20, factor = 2;
    int P = 8, have_d = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "--device") == 0 ||
            strncmp(argv[i], "--device=", 9) == 0)
            have_d = 1;
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc < 0)
        return 2;
    S.mode = PLD_ALLREDUCE_MESH;
    S.op = PLD_REDUCE_SUM;
    S.dt = PL_FP32;
    const char *coll = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKES_VALUE(s1, s2) (is_flag(a, s1, s2) && v && ++i)
        if (TAKES_VALUE("-b", "--minbytes")) {
            if (parse_size_arg(v, &minb))
                return fail_usage("bad size '%s' for -b; expected 1 byte to 1P, with an "
                                  "optional K, M or G",
                                  v);
        } else if (TAKES_VALUE("-e", "--maxbytes")) {
            if (parse_size_arg(v, &maxb))
                return fail_usage("bad size '%s' for -e; expected 1 byte to 1P, with an "
                                  "optional K, M or G",
                                  v);
        } else if (TAKES_VALUE("-f", "--stepfactor")) {
            if (parse_size_arg(v, &factor) || factor < 2)
                return fail_usage("bad factor '%s' for -f; expected an integer >= 2", v);
        } else if (TAKES_VALUE("-P", NULL)) {
            char *end;
            P = (int)strtol(v, &end, 10);
            if (*end || end == v || P < 1 || P > PLD_MAX_RANKS) {
                fprintf(stderr,
                        "pldsim-perf: bad device count '%s' for -P; expected 1..%d (see --help)\n",
                        v, PLD_MAX_RANKS);
                return 2;
            }
        } else if (TAKES_VALUE("--mode", NULL)) {
            if (strcmp(v, "mesh") == 0)
                S.mode = PLD_ALLREDUCE_MESH;
            else if (strcmp(v, "ring") == 0)
                S.mode = PLD_ALLREDUCE_RING;
            else
                return fail_usage("bad --mode '%s'; expected mesh or ring", v);
        } else if (TAKES_VALUE("--op", NULL)) {
            static const char *const ops[] = {"sum", "max", "min", "prod"};
            S.op = 0;
            for (int k = 0; k < 4; k++)
                if (strcmp(v, ops[k]) == 0)
                    S.op = (pld_reduce_op)(k + 1);
            if (!S.op)
                return fail_usage("bad --op '%s'; expected sum, max, min or prod", v);
        } else if (TAKES_VALUE("--dtype", NULL)) {
            if (strcmp(v, "float") == 0)
                S.dt = PL_FP32;
            else if (strcmp(v, "half") == 0)
                S.dt = PL_FP16;
            else
                return fail_usage("bad --dtype '%s'; expected float or half", v);
        } else if (TAKES_VALUE("--root", NULL)) {
            char *end;
            long r = strtol(v, &end, 10);
            if (end == v || *end || r < 0 || r > PLD_MAX_RANKS)
                return fail_usage("bad --root '%s'; expected a rank number", v);
            S.root = (int)r;
        } else if (TAKES_VALUE("--csv", NULL)) {
            S.csv = v;
        } else if (strcmp(a, "--check") == 0) {
            S.check = 1;
        } else if (a[0] != '-' && !coll) {
            coll = a;
        } else if (!v && (is_flag(a, "-b", "--minbytes") || is_flag(a, "-e", "--maxbytes") ||
                          is_flag(a, "-f", "--stepfactor") || is_flag(a, "-P", NULL) ||
                          is_flag(a, "--mode", NULL) || is_flag(a, "--op", NULL) ||
                          is_flag(a, "--dtype", NULL) || is_flag(a, "--root", NULL) ||
                          is_flag(a, "--csv", NULL))) {
            return fail_usage("%s needs a value", a);
        } else {
            return fail_usage("unknown option or missing value: '%s'", a);
        }
#undef TAKES_VALUE
    }
    if (!coll) {
        usage(stderr);
        return 2;
    }
    S.coll = (enum coll) - 1;
    for (int k = 0; k < 5; k++)
        if (strcmp(coll, coll_names[k]) == 0)
            S.coll = (enum coll)k;
    if ((int)S.coll < 0)
        return fail_usage("unknown collective '%s'; expected allreduce, broadcast, allgather, "
                          "reduce_scatter or all_to_all",
                          coll);
    if (!have_d) {
        char list[32];
        snprintf(list, sizeof list, "0-%d", P - 1);
        if (pld_config_set_devices(&cfg, list))
            return 2;
    }
    S.P = cfg.ndevices;
    if (S.root < 0 || S.root >= S.P) {
        fprintf(stderr, "pldsim-perf: --root %d is outside the ranks 0..%d (see --help)\n", S.root,
                S.P - 1);
        return 2;
    }
    if (minb > maxb)
        return fail_usage("-b is larger than -e%s", "");
    int64_t es = (int64_t)pl_dtype_size(S.dt), unit = S.coll >= ALLGATHER ? es * S.P : es;
    for (int64_t b = minb; b <= maxb && S.nsizes < MAX_SIZES; b *= factor) {
        int64_t size = b / unit * unit; /* whole elements (per rank) */
        if (size < unit)
            size = unit;
        if (S.nsizes && S.bytes[S.nsizes - 1] == size)
            continue;
        S.bytes[S.nsizes++] = size;
    }
    for (int k = 0; k < S.nsizes; k++)
        for (int p = 0; p < 2; p++) {
            S.t0[k][p] = -1;
            S.t1[k][p] = 0;
        }
    cfg.no_data = !S.check;
    clock_gettime(CLOCK_MONOTONIC, &S.wall0);

    printf("# pldsim-perf %s: P = %d, platform %s%s%s, mode %s, times SIMULATED by pldsim "
           "(SimGrid %s model), not measured\n",
           coll_names[S.coll], S.P, cfg.platform, cfg.topology ? ", topology " : "",
           cfg.topology ? cfg.topology : "",
           S.coll == ALLREDUCE ? (S.mode == PLD_ALLREDUCE_RING ? "ring" : "mesh") : "builtin",
           cfg.network_model);
    printf("# busbw = algbw x %s (nccl-tests' factor); %s\n",
           S.coll == ALLREDUCE   ? "2(n-1)/n"
           : S.coll == BROADCAST ? "1"
                                 : "(n-1)/n",
           S.check ? "--check: every result verified"
                   : "payloads not kept (--no-data), #wrong N/A");
    fflush(stdout);
    rc = pld_run(&cfg, host, NULL);
    if (rc)
        return pld_exit_code(rc);

    static const char *const type_names[] = {"?", "float", "half"};
    static const char *const op_names[] = {"?", "sum", "max", "min", "prod"};
    int has_op = S.coll == ALLREDUCE || S.coll == REDUCE_SCATTER;
    printf("#\n#%53s%33s\n", "out-of-place", "in-place");
    printf("# %10s %12s %8s %6s %6s %9s %8s %8s %6s %9s %8s %8s %6s\n", "size", "count", "type",
           "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    printf("# %10s %12s %8s %6s %6s %9s %8s %8s %6s %9s %8s %8s %6s\n", "(B)", "(elements)", "", "",
           "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    FILE *csv = S.csv ? fopen(S.csv, "w") : NULL;
    if (S.csv && !csv) {
        fprintf(stderr, "pldsim-perf: cannot write %s: %s\n", S.csv, strerror(errno));
        return 2;
    }
    if (csv)
        fprintf(csv, "collective,mode,P,size_B,count,type,redop,root,oop_time_us,oop_algbw_GBps,"
                     "oop_busbw_GBps,oop_wrong,ip_time_us,ip_algbw_GBps,ip_busbw_GBps,ip_wrong\n");
    double sum_busbw = 0;
    long total_wrong = 0;
    for (int k = 0; k < S.nsizes; k++) {
        int64_t count = S.bytes[k] / es;
        double t[2], alg[2], bus[2];
        char wrong[2][16];
        for (int p = 0; p < 2; p++) {
            t[p] = (S.t1[k][p] - S.t0[k][p]) * 1e6;
            /* a collective that moves nothing (P = 1) takes no time: 0, not inf */
            alg[p] = t[p] > 0 ? (double)S.bytes[k] / (t[p] * 1e-6) / 1e9 : 0;
            bus[p] = alg[p] * busbw_factor();
            if (S.check)
                snprintf(wrong[p], sizeof wrong[p], "%ld", S.wrong[k][p]);
            else
                snprintf(wrong[p], sizeof wrong[p], "N/A");
            total_wrong += S.wrong[k][p];
        }
        sum_busbw += bus[1];
        printf("  %10lld %12lld %8s %6s %6d %9.2f %8.2f %8.2f %6s %9.2f %8.2f %8.2f %6s\n",
               (long long)S.bytes[k], (long long)count, type_names[S.dt == PL_FP16 ? 2 : 1],
               has_op ? op_names[S.op] : "none", S.coll == BROADCAST ? S.root : -1, t[0], alg[0],
               bus[0], wrong[0], t[1], alg[1], bus[1], wrong[1]);
        if (csv)
            fprintf(
                csv, "%s,%s,%d,%lld,%lld,%s,%s,%d,%.6f,%.6f,%.6f,%s,%.6f,%.6f,%.6f,%s\n",
                coll_names[S.coll],
                S.coll == ALLREDUCE ? (S.mode == PLD_ALLREDUCE_RING ? "ring" : "mesh") : "builtin",
                S.P, (long long)S.bytes[k], (long long)count, type_names[S.dt == PL_FP16 ? 2 : 1],
                has_op ? op_names[S.op] : "none", S.coll == BROADCAST ? S.root : -1, t[0], alg[0],
                bus[0], wrong[0], t[1], alg[1], bus[1], wrong[1]);
    }
    if (csv && (ferror(csv) | fclose(csv))) {
        fprintf(stderr, "pldsim-perf: writing %s failed: %s\n", S.csv, strerror(errno));
        return 1;
    }
    printf("# Out of bounds values : %ld %s\n", total_wrong, total_wrong ? "FAILED" : "OK");
    printf("# Avg bus bandwidth    : %g\n", S.nsizes ? sum_busbw / S.nsizes : 0.0);
    printf("#\n");
    return total_wrong ? 1 : 0;
}
