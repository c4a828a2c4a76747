/* pldsim-shmem-perf: NVSHMEM's device point-to-point perftests
 * (shmem_put_bw, shmem_put_signal_ping_pong_latency, ...) on pld's put,
 * get, notify and wait, with the perftests' flags and tables, so that a
 * user of NVSHMEM reads pld's one-sided figures in the form they know.
 * Usage:
 *
 *   pldsim-shmem-perf PROGRAM [perftest flags] [pldsim flags]
 *   pldsim-shmem_put_bw [perftest flags] [pldsim flags]   (installed link)
 *
 * The perftests (perftest/device/pt-to-pt, perftest/common/utils.cu's
 * print_table_basic) time -n iterations after -w untimed ones, size by
 * size: bandwidth is size x iterations / seconds / 10^9 ("GB/sec"),
 * latency the microseconds per iteration, not halved (a ping-pong's is the
 * round trip).  Times here are simulated.  docs/shmem-perf.md has the
 * details and the mapping to pld's calls. */
#include "shmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shmem_state M;

const struct shmem_prog shmem_progs[] = {
    {"shmem_put_bw", "shmem_put_bw", SHMEM_PUT_BW},
    {"shmem_get_bw", "shmem_get_bw", SHMEM_GET_BW},
    {"shmem_put_latency", "shmem_put_latency", SHMEM_PUT_LAT},
    {"shmem_get_latency", "shmem_get_latency", SHMEM_GET_LAT},
    {"shmem_put_ping_pong_latency", "shmem_put_ping_lat", SHMEM_PP_PUT},
    {"shmem_put_signal_ping_pong_latency", "shmem_put_ping_lat", SHMEM_PP_PUT_SIG},
    {"shmem_signal_ping_pong_latency", "shmem_sig_ping_lat", SHMEM_PP_SIG},
    {NULL, NULL, 0},
};

/* What every PE prints after parsing (read_args): once here, one process. */
static void print_options(void)
{
    printf("Runtime options after parsing command line arguments \n");
    printf("min_size: %lld, max_size: %lld, step_factor: %lld, iterations: %lld, warmup "
           "iterations: %lld, number of ctas: %lld, threads per cta: %lld stride: %lld, "
           "datatype: %s, reduce_op: %s, threadgroup_scope: %s, atomic_op: %s, dir: %s, "
           "report_msgrate: %d, bidirectional: %d, putget_issue :%s, use_graph: %d, use_mmap: "
           "%d, mem_handle_type: %lld, use_egm: %d\n",
           (long long)M.minb, (long long)M.maxb, (long long)M.step, (long long)M.iters,
           (long long)M.warmup, (long long)M.ctas, (long long)M.threads, (long long)M.stride,
           M.datatype, M.reduce_op, M.scope, M.atomic_op, M.dir, M.msgrate, M.bidir, M.issue,
           M.cudagraph, M.mmap, (long long)M.mem_handle, M.egm);
    printf("Note: Above is full list of options, any given test will use only a subset of these "
           "variables.\n");
}

/* One table: print_table_basic's job line, header and rows; a row of size
 * 0 or value 0 is left out, as there. */
static void print_table(const char *job, const char *subjob, const char *var, const char *units)
{
    char head[256];
    snprintf(head, sizeof head, "%s (%s)", var, units);
    printf("#%10s\n", job);
    printf("%-10s  %-8s  %-16s\n", "size(B)", "scope", head);
    int bw = M.prog->kind == SHMEM_PUT_BW || M.prog->kind == SHMEM_GET_BW;
    for (int k = 0; k < M.nsizes; k++) {
        double value = 0;
        for (int pe = 0; pe < (M.bidir ? 2 : 1); pe++) {
            double s = M.elapsed[pe][k];
            value += bw ? (s > 0 ? (double)M.sizes[k] * (double)M.iters / s / 1e9 : 0)
                        : s * 1e6 / (double)M.iters;
        }
        unsigned long size = M.prog->kind == SHMEM_PP_SIG ? 8 : (unsigned long)M.sizes[k];
        if (size == 0 || value == 0.00)
            continue;
        printf("%-10lu  %-8s  %-16.6lf\n", size, subjob, value);
        if (M.prog->kind == SHMEM_PP_SIG) /* one row: its size is the flag's */
            break;
    }
}

int main(int argc, char **argv)
{
    pld_config cfg;
    int rc = shmem_setup(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    for (int pe = 0; pe < 2; pe++)
        if (!(M.elapsed[pe] = calloc((size_t)M.nsizes, sizeof *M.elapsed[pe]))) {
            fprintf(stderr, "%s: out of memory for %d sizes\n", M.prog_name, M.nsizes);
            return 1;
        }
    fprintf(stderr,
            "%s: 2 PEs on the %s backend%s%s; times are %s; one core puts the whole "
            "size (-c and -t do not split it)\n",
            M.prog_name, cfg.backend, cfg.topology ? ", topology " : "",
            cfg.topology ? cfg.topology : "",
            strcmp(cfg.backend, "sim") == 0 ? "simulated" : "measured");
    print_options();
    fflush(stdout);
    rc = pld_run(&cfg, shmem_host, NULL);
    if (rc)
        return pld_exit_code(rc); /* pld_run has said why */
    enum shmem_kind kind = M.prog->kind;
    if (kind == SHMEM_PUT_BW || kind == SHMEM_GET_BW) {
        char job[64];
        snprintf(job, sizeof job, "%s_%s", M.prog->job, M.bidir ? "bidi" : "uni");
        print_table(job, "None", "BW", "GB/sec");
    } else if (kind == SHMEM_PUT_LAT || kind == SHMEM_GET_LAT) {
        /* the perftest's thread, warp and block tables: one pld call, so
         * the same times in each */
        static const char *const scopes[] = {"Thread", "Warp", "Block"};
        for (int s = 0; s < 3; s++)
            print_table(M.prog->job, scopes[s], "latency", "us");
    } else {
        printf("Note: This test measures full round-trip latency\n");
        print_table(M.prog->job, "None", "latency", "us");
    }
    return 0;
}
