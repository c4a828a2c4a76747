/* scale.c: one builtin collective, once, for the scale benchmark
 * (tools/bench-scale.sh, docs/performance.md).
 *
 *   pldsim-scale ring|mesh|a2a [--bytes N] [common pldsim flags]
 *
 * ring and mesh are pld_tensor_allreduce of N bytes of FP32 per rank (in
 * place); a2a is pld_tensor_all_to_all of an [P, N/(4P)] FP32 input per rank.
 * No barrier or warm-up surrounds the call, so the run is the collective
 * plus one dispatch per rank.  With payloads kept (no --no-data) every rank
 * puts rank+1 at both ends of its row and the result is checked there.
 * Prints one key=value line: the simulated seconds of the run and of the
 * collective alone (%.17g, so two runs can be compared bit for bit), the inter-rank transfers and
 * bytes, the wall seconds of pld_run and the peak RSS. */
#include <pld/pld.h>

#include "../tools/size_arg.h"
#include "../tools/usage_error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum coll { RING, MESH, A2A };

static struct {
    enum coll coll;
    int P, check;
    int64_t n; /* FP32 elements per rank (a2a: per destination row) */
    long wrong;
    double t0, t1; /* the collective: first rank's start, last rank's end */
} S;

struct dev_args {
    pld_dtensor target, input, sig;
};

static void kernel(const struct dev_args *a)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(a->target);
    int me = pld_rank(ctx), rows = S.coll == A2A ? S.P : 1;
    if (S.check)
        for (int r = 0; r < rows; r++) {
            pl_tensor t = S.coll == A2A ? a->input : a->target;
            pl_write(t, PL_IDX(r, 0), me + 1);
            pl_write(t, PL_IDX(r, S.n - 1), me + 1);
        }
    double t0 = pld_time();
    if (t0 < S.t0)
        S.t0 = t0;
    switch (S.coll) {
    case RING:
    case MESH:
        pld_tensor_allreduce(a->target, a->sig,
                             .mode = S.coll == RING ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH);
        break;
    case A2A:
        pld_tensor_all_to_all(a->input, a->target, a->sig);
        break;
    }
    if (pld_time() > S.t1)
        S.t1 = pld_time();
    if (!S.check)
        return;
    /* allreduce: the sum of 1..P everywhere; a2a: row s came from rank s */
    for (int r = 0; r < rows; r++) {
        double want = S.coll == A2A ? r + 1 : (double)S.P * (S.P + 1) / 2;
        if (pl_read(a->target, PL_IDX(r, 0)) != want ||
            pl_read(a->target, PL_IDX(r, S.n - 1)) != want)
            S.wrong++;
    }
}

static void per_device(const struct dev_args *a)
{
    pl_incore(kernel, a);
}

static void host(const void *unused)
{
    (void)unused;
    int rows = S.coll == A2A ? S.P : 1;
    pl_shape data = PL_SHAPE(rows, S.n);
    pl_shape sig = S.coll == RING ? PL_SHAPE(S.P > 1 ? 2 * (S.P - 1) : 1, S.P) : PL_SHAPE(S.P, 1);
    pld_buffer target = pld_alloc_window_buffer(data, PL_FP32, .name = "target");
    pld_buffer input = {0};
    if (S.coll == A2A)
        input = pld_alloc_window_buffer(data, PL_FP32, .name = "input");
    pld_buffer signal = pld_alloc_window_buffer(sig, PL_INT32, .name = "signal");
    for (int r = 0; r < S.P; r++) {
        struct dev_args a = {.target = pld_window(target, data, PL_FP32),
                             .sig = pld_window(signal, sig, PL_INT32)};
        if (S.coll == A2A)
            a.input = pld_window(input, data, PL_FP32);
        pld_dispatch(r, per_device, a);
    }
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"ring", "mesh", "a2a"};
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1) {
        puts("usage: pldsim-scale ring|mesh|a2a [--bytes N] [common flags]");
        pld_print_common_usage(stdout);
        return 0;
    }
    if (rc == 2) /* --version */
        return 0;
    if (rc < 0)
        return 2;
    int64_t bytes = 1 << 20;
    const char *coll = NULL;
    static const struct option opts[] = {{"bytes", required_argument, NULL, 'B'}, {0}};
    optind = 0; /* glibc: start afresh, pld_parse_args used getopt too */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        if (c == 'B' && parse_size_arg(optarg, &bytes) != 0)
            return usage_error("pldsim-scale",
                               "bad size '%s' for --bytes; expected 1..1P (K, M, G)", optarg);
        if (c == ':')
            return usage_error("pldsim-scale", "%s needs a value", argv[optind - 1]);
        if (c != 'B')
            return usage_error("pldsim-scale", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        coll = argv[optind++];
    if (optind < argc)
        return usage_error("pldsim-scale", "unexpected argument '%s'", argv[optind]);
    S.coll = (enum coll) - 1;
    for (int k = 0; coll && k < 3; k++)
        if (strcmp(coll, names[k]) == 0)
            S.coll = (enum coll)k;
    if ((int)S.coll < 0) {
        fprintf(stderr, "pldsim-scale: expected ring, mesh or a2a (see --help)\n");
        return 2;
    }
    S.P = cfg.ndevices;
    S.check = !cfg.no_data;
    S.n = S.coll == A2A ? bytes / 4 / S.P : bytes / 4;
    if (S.n < 1) {
        fprintf(stderr, "pldsim-scale: --bytes %lld is too small for %d ranks\n", (long long)bytes,
                S.P);
        return 2;
    }
    S.t0 = 1e300;
    double w0 = wall();
    rc = pld_run(&cfg, host, NULL);
    double w1 = wall();
    if (rc)
        return pld_exit_code(rc);
    pld_run_stats st;
    pld_last_run_stats(&st);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("coll=%s P=%d bytes=%lld data=%s sim_s=%.17g coll_s=%.17g transfers=%llu moved=%llu "
           "wall_s=%.3f "
           "rss_kb=%ld wrong=%ld\n",
           names[S.coll], S.P, (long long)bytes, S.check ? "yes" : "no", st.time_s, S.t1 - S.t0,
           (unsigned long long)st.transfers, (unsigned long long)st.bytes_moved, w1 - w0,
           ru.ru_maxrss, S.wrong);
    return S.wrong ? 1 : 0;
}
