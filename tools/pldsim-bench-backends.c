/* pldsim-bench-backends.c: measured (not simulated) allreduce bandwidth of
 * the real backends, for docs/backends.md.
 *
 *   pldsim-bench-backends [--mode ring|mesh] [-b SIZE] [-e SIZE] [--iters N]
 *                         [common flags: --backend threads|mpi, -d 0-3]
 *   pldsim-bench-backends --memcpy [-b SIZE] [-e SIZE] [--iters N]
 *
 * The first form times pld_tensor_allreduce (FP32, Sum) at each size from -b
 * to -e (x4 per step): every rank meets at a barrier, then runs the
 * allreduce and a barrier N times; rank 0 reads the clock before and after,
 * so the time covers every rank's work.  The barrier between calls keeps a
 * fast rank from overwriting data a slow one still reads (the builtins end
 * at their last barrier).  The second form times single-thread memcpy of
 * each size, the yardstick for one core's memory bandwidth.
 * Prints one line per size: bytes, microseconds per call, algbw and busbw
 * in GB/s (nccl-tests' definitions: busbw = algbw * 2(P-1)/P). */
#include <pld/pld.h>

#include "size_arg.h"

#include "usage_error.h"

#include <getopt.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SIZES = 32 };

static struct {
    int P, iters, nsizes, ring;
    int64_t bytes[MAX_SIZES];
    double seconds[MAX_SIZES]; /* per call, measured by rank 0 */
} B;

struct dev_args {
    int rank;
    pld_dtensor data, sig, bar;
};

static void sweep(const struct dev_args *a)
{
    for (int k = 0; k < B.nsizes; k++) {
        int64_t n = B.bytes[k] / 4;
        pld_dtensor v = pld_window((pld_buffer){a->data.win}, PL_SHAPE(1, n), PL_FP32);
        pld_tensor_barrier(a->bar);
        double t0 = pld_time();
        for (int it = 0; it < B.iters; it++) {
            pld_tensor_allreduce(v, a->sig, .op = PLD_REDUCE_SUM,
                                 .mode = B.ring ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH);
            pld_tensor_barrier(a->bar);
        }
        if (a->rank == 0)
            B.seconds[k] = (pld_time() - t0) / B.iters;
    }
}

static void per_device(const struct dev_args *a)
{
    pl_incore(sweep, a);
}

static void host(const void *unused)
{
    (void)unused;
    int P = B.P, sig_rows = B.ring ? 2 * (P - 1) : P;
    pld_buffer data =
        pld_alloc_window_buffer(PL_SHAPE(1, B.bytes[B.nsizes - 1] / 4), PL_FP32, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(sig_rows, P), PL_INT32, .name = "signal");
    pld_buffer bar = pld_alloc_window_buffer(PL_SHAPE(P, 1), PL_INT32, .name = "barrier");
    for (int r = 0; r < P; r++) {
        struct dev_args a = {
            .rank = r,
            .data = pld_window(data, PL_SHAPE(1, B.bytes[B.nsizes - 1] / 4), PL_FP32),
            .sig = pld_window(sig, B.ring ? PL_SHAPE(sig_rows, P) : PL_SHAPE(P, 1), PL_INT32),
            .bar = pld_window(bar, PL_SHAPE(P, 1), PL_INT32),
        };
        pld_dispatch(r, per_device, a);
    }
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median time of `iters` memcpy calls of each size, after one warm-up. */
static int bench_memcpy(void)
{
    size_t max = (size_t)B.bytes[B.nsizes - 1];
    char *src = malloc(max), *dst = malloc(max);
    double *t = malloc((size_t)B.iters * sizeof *t);
    if (!src || !dst || !t) {
        fprintf(stderr, "pldsim-bench-backends: out of memory for two %zu-byte buffers\n", max);
        return 3;
    }
    memset(src, 1, max);
    memset(dst, 2, max);
    printf("# memcpy, one thread, median of %d\n# %12s %12s %10s\n", B.iters, "bytes", "time(us)",
           "GB/s");
    for (int k = 0; k < B.nsizes; k++) {
        size_t n = (size_t)B.bytes[k];
        memcpy(dst, src, n);
        for (int i = 0; i < B.iters; i++) {
            double t0 = wall();
            memcpy(dst, src, n);
            t[i] = wall() - t0;
            src[i % n] ^= dst[(i * 7) % n]; /* keep the copies observable */
        }
        qsort(t, (size_t)B.iters, sizeof *t, cmp_double);
        double med = t[B.iters / 2];
        printf("  %12lld %12.2f %10.2f\n", (long long)n, med * 1e6, (double)n / med / 1e9);
    }
    free(src);
    free(dst);
    free(t);
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: pldsim-bench-backends [--mode ring|mesh] [-b SIZE] [-e SIZE] [--iters N]\n"
          "                             [--backend threads|mpi] [-d LIST]\n"
          "       pldsim-bench-backends --memcpy [-b SIZE] [-e SIZE] [--iters N]\n"
          "Measures allreduce (FP32, Sum) on a real backend, or memcpy, from -b (default\n"
          "4K) to -e (default 64M), x4 per step; N calls per size (default 20).\n"
          "With --backend mpi, start it as mpirun -np P ... --backend mpi -d 0-(P-1).\n\n",
          out);
    pld_print_common_usage(out);
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.no_cacheline_check = 1;
    int64_t minb = 4096, maxb = 64 << 20;
    int memcpy_only = 0, rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc == 2) /* --version */
        return 0;
    if (rc < 0)
        return 2;
    B.iters = 20;
    B.ring = 1;
    static const struct option opts[] = {{"memcpy", no_argument, NULL, 'M'},
                                         {"mode", required_argument, NULL, 'm'},
                                         {"iters", required_argument, NULL, 'n'},
                                         {0}};
    optind = 0; /* glibc: start afresh, pld_parse_args used getopt too */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":b:e:", opts, NULL)) != -1;) {
        char *end;
        long n;
        switch (c) {
        case 'M':
            memcpy_only = 1;
            break;
        case 'm':
            if (strcmp(optarg, "ring") != 0 && strcmp(optarg, "mesh") != 0)
                return usage_error("pldsim-bench-backends",
                                   "bad --mode '%s'; expected ring or mesh", optarg);
            B.ring = strcmp(optarg, "ring") == 0;
            break;
        case 'b':
        case 'e':
            if (parse_size_arg(optarg, c == 'b' ? &minb : &maxb) != 0)
                return usage_error("pldsim-bench-backends",
                                   c == 'b' ? "bad size '%s' for -b; expected 1..1P (K, M, G)"
                                            : "bad size '%s' for -e; expected 1..1P (K, M, G)",
                                   optarg);
            break;
        case 'n':
            errno = 0;
            n = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || n < 1 || n > 1000000)
                return usage_error("pldsim-bench-backends",
                                   "bad count '%s' for --iters; expected 1..1000000", optarg);
            B.iters = (int)n;
            break;
        case ':':
            return usage_error("pldsim-bench-backends", "%s needs a value", argv[optind - 1]);
        default:
            return usage_error("pldsim-bench-backends", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("pldsim-bench-backends", "unexpected argument '%s'", argv[optind]);
    if (minb < 4 || maxb < minb) {
        fprintf(stderr, "pldsim-bench-backends: need 4 <= -b <= -e\n");
        return 2;
    }
    for (int64_t b = minb; b <= maxb && B.nsizes < MAX_SIZES; b *= 4)
        B.bytes[B.nsizes++] = b / 4 * 4;
    if (memcpy_only)
        return bench_memcpy();
    B.P = cfg.ndevices;
    if (B.P < 2) {
        fprintf(stderr, "pldsim-bench-backends: an allreduce needs at least 2 devices (-d)\n");
        return 2;
    }
    rc = pld_run(&cfg, host, NULL);
    if (rc)
        return pld_exit_code(rc);
    double factor = 2.0 * (B.P - 1) / B.P;
    printf("# pld_tensor_allreduce mode=%s backend=%s P=%d, FP32 sum, %d calls per size\n"
           "# %12s %12s %10s %10s\n",
           B.ring ? "ring" : "mesh", cfg.backend, B.P, B.iters, "bytes", "time(us)", "algbw",
           "busbw");
    for (int k = 0; k < B.nsizes; k++) {
        double alg = (double)B.bytes[k] / B.seconds[k] / 1e9;
        printf("  %12lld %12.2f %10.2f %10.2f\n", (long long)B.bytes[k], B.seconds[k] * 1e6, alg,
               alg * factor);
    }
    return 0;
}
