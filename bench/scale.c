/* scale.c: one builtin collective, once, for the scale benchmark
 * (tools/bench-scale.sh, docs/performance.md).
 *
 *   pldsim-scale ring|mesh|a2a|hier|barrier [--bytes N] [common pldsim flags]
 *
 * ring and mesh are pld_tensor_allreduce of N bytes of FP32 per rank (in
 * place); a2a is pld_tensor_all_to_all of an [P, N/(4P)] FP32 input per rank.
 * hier is the allreduce of N bytes as a SuperPoD runs it, in nodes of 8
 * ranks (P a multiple of 8): a reduce-scatter inside each node (row i of
 * [8, N/32] to local rank i), a ring allreduce of that row across the
 * nodes among the ranks of the same local index (8 rings of P/8 ranks, at
 * once), and an allgather inside each node.  Groups (pld_group_range,
 * pld_group_of) keep each phase's windows and ranks its own.  barrier is
 * one pld_tensor_barrier: P(P-1) notifies, quadratic in P by its nature
 * (--bytes is not used).
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

enum coll { RING, MESH, A2A, HIER, BARRIER };

enum { NODE = 8 }; /* hier: ranks per node */

static struct {
    enum coll coll;
    int P, check;
    int64_t n; /* FP32 elements per rank (a2a: per destination row; hier: per node row) */
    long wrong;
    double t0, t1; /* the collective: first rank's start, last rank's end */
} S;

struct dev_args {
    pld_dtensor target, input, sig;
    pld_dtensor cross, cross_sig, gather_sig; /* hier */
};

/* hier: node-local reduce-scatter, cross-node ring, node-local allgather. */
static void hierarchical(const struct dev_args *a, int me)
{
    pld_tensor_reduce_scatter(a->target, a->sig);
    /* row me%8 into the cross ring's buffer, 16 KiB a tile (UB holds it) */
    pl_tensor row = pl_at(a->target, me % NODE);
    int64_t s = a->target.shape.dim[1], chunk = 4096;
    for (int64_t off = 0; off < s; off += chunk) {
        int64_t len = s - off < chunk ? s - off : chunk;
        pl_tile t = pl_load(row, PL_IDX(off), PL_SHAPE(len));
        pl_store(t, PL_IDX(off), a->cross);
    }
    pld_tensor_allreduce(a->cross, a->cross_sig, .mode = PLD_ALLREDUCE_RING);
    pld_tensor_allgather(a->cross, a->target, a->gather_sig);
}

static void kernel(const struct dev_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(S.coll == HIER ? a->cross_sig : a->target));
    int rows = S.coll == A2A ? S.P : S.coll == HIER ? NODE : 1;
    if (S.coll == HIER) /* a rank's world rank: its node, then its place in it */
        me = me * NODE + pld_rank(pld_get_comm_ctx(a->target));
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
    case HIER:
        hierarchical(a, me);
        break;
    case BARRIER:
        pld_tensor_barrier(a->sig);
        break;
    }
    if (pld_time() > S.t1)
        S.t1 = pld_time();
    if (!S.check)
        return;
    /* allreduce and hier: the sum of 1..P everywhere; a2a: row s came
     * from rank s */
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

/* hier: a node group's and a cross ring's buffers, dispatched to each rank */
static void host_hier(void)
{
    int nodes = S.P / NODE;
    int64_t s = S.n;
    pl_shape data = PL_SHAPE(NODE, s), row = PL_SHAPE(s), barrier = PL_SHAPE(NODE, 1);
    pl_shape ring = PL_SHAPE(nodes > 1 ? 2 * (nodes - 1) : 1, nodes);
    pld_buffer cross[NODE], cross_sig[NODE];
    int *members = malloc((size_t)nodes * sizeof *members);
    if (!members) {
        fprintf(stderr, "pldsim-scale: out of memory for %d nodes\n", nodes);
        exit(3);
    }
    for (int i = 0; i < NODE; i++) {
        for (int n = 0; n < nodes; n++)
            members[n] = n * NODE + i;
        pld_group g = pld_group_of(nodes, members);
        cross[i] = pld_alloc_window_buffer(row, PL_FP32, .name = "cross", .group = g);
        cross_sig[i] = pld_alloc_window_buffer(ring, PL_INT32, .name = "cross_sig", .group = g);
    }
    free(members);
    for (int n = 0; n < nodes; n++) {
        pld_group g = pld_group_range(n * NODE, (n + 1) * NODE);
        pld_buffer target = pld_alloc_window_buffer(data, PL_FP32, .name = "target", .group = g);
        /* barrier signals of a whole 64-byte line each (pypto#2800) */
        pld_buffer sig = pld_alloc_window_buffer((int64_t)64, .name = "node_sig", .group = g);
        pld_buffer gather = pld_alloc_window_buffer((int64_t)64, .name = "gather_sig", .group = g);
        for (int i = 0; i < NODE; i++) {
            struct dev_args a = {.target = pld_window(target, data, PL_FP32),
                                 .sig = pld_window(sig, barrier, PL_INT32),
                                 .gather_sig = pld_window(gather, barrier, PL_INT32),
                                 .cross = pld_window(cross[i], row, PL_FP32),
                                 .cross_sig = pld_window(cross_sig[i], ring, PL_INT32)};
            pld_dispatch(n * NODE + i, per_device, a);
        }
    }
}

static void host(const void *unused)
{
    (void)unused;
    if (S.coll == HIER) {
        host_hier();
        return;
    }
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
    static const char *const names[] = {"ring", "mesh", "a2a", "hier", "barrier"};
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1) {
        puts("usage: pldsim-scale ring|mesh|a2a|hier|barrier [--bytes N] [common flags]\n"
             "  hier: allreduce in nodes of 8 ranks: reduce-scatter inside each node,\n"
             "  a ring across the nodes, allgather inside each node (P a multiple of 8)\n"
             "  barrier: one pld_tensor_barrier, P(P-1) notifies (--bytes unused)");
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
    for (int k = 0; coll && k < 5; k++)
        if (strcmp(coll, names[k]) == 0)
            S.coll = (enum coll)k;
    if ((int)S.coll < 0) {
        fprintf(stderr, "pldsim-scale: expected ring, mesh, a2a, hier or barrier (see --help)\n");
        return 2;
    }
    S.P = cfg.ndevices;
    S.check = !cfg.no_data && S.coll != BARRIER; /* a barrier moves no data */
    S.n = S.coll == A2A ? bytes / 4 / S.P : S.coll == HIER ? bytes / 4 / NODE : bytes / 4;
    if (S.coll == HIER && (S.P % NODE != 0 || S.P < 2 * NODE)) {
        fprintf(stderr,
                "pldsim-scale: hier runs in nodes of %d ranks: -d must give a multiple "
                "of %d, at least %d (got %d)\n",
                NODE, NODE, 2 * NODE, S.P);
        return 2;
    }
    if (S.coll == HIER && (bytes % (32 * NODE) != 0)) {
        fprintf(stderr,
                "pldsim-scale: hier: --bytes %lld must split into %d rows of whole "
                "32-byte lines (a multiple of %d)\n",
                (long long)bytes, NODE, 32 * NODE);
        return 2;
    }
    if (S.coll == BARRIER)
        S.n = 16; /* the target is not used: one 64-byte line a rank */
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
