/* pldsim-hccl-test: CANN's HCCL Test programs (all_reduce_test, ...) on the
 * simulator, with hccl_test's flags and its table, so that a log from the
 * machine and pldsim's figures read alike.  Usage:
 *
 *   pldsim-hccl-test PROGRAM [hccl_test flags] [pldsim flags]
 *   pldsim-all_reduce_test [hccl_test flags] [pldsim flags]   (installed link)
 *
 * What hccl_test does, and so what this does (CANN oam-tools'
 * src/hccl_test and docs/zh/hccl_test): for each data size from -b to -e,
 * -w untimed calls, then -n calls back to back on rank 0's stream, whose
 * span over -n is aveg_time; alg_bandwidth is the bytes of the operator's
 * buffer over that time, in 10^9 B/s; then one checked call.  Times are
 * simulated.  docs/hccl-test.md has the details. */
#include "hccl.h"
#include "perf_jobs.h"
#include "perf_steady.h"

#include <stdlib.h>
#include <string.h>

struct perf_state S;
struct hccl_state H;
const char *perf_prog = "pldsim-hccl-test";

/* all_reduce_test's send and receive buffers are apart: pld's builtin
 * reduces in place on a window, so the out-of-place half (a local copy of
 * the send buffer into the window, then the builtin) is the call, as HCCL's
 * own copy into its CCL buffer is part of its call.  broadcast_test works
 * on one buffer: the in-place half. */
const struct hccl_prog hccl_progs[] = {
    {"all_gather_test", &perf_allgather, NULL, 1, 1, 0, 0},
    {"all_gatherv_test", NULL, "pld has no all-gather of per-rank counts", 0, 0, 0, 0},
    {"all_reduce_test", &perf_allreduce, NULL, 1, 0, 0, 1},
    {"alltoall_test", &perf_alltoall, NULL, 1, 0, 1, 0},
    {"alltoallv_test", NULL,
     "pld's all_to_all_v takes its counts from a window, not from hccl_test's count "
     "matrix; pldsim-hccl-test has no driver for it yet",
     0, 0, 0, 0},
    {"alltoallvc_test", NULL, "pld has no all-to-all of a count matrix", 0, 0, 0, 0},
    {"broadcast_test", &perf_broadcast, NULL, 2, 0, 0, 0},
    {"reduce_scatter_test", &perf_reduce_scatter, NULL, 1, 1, 0, 1},
    {"reduce_scatterv_test", NULL, "pld has no reduce-scatter of per-rank counts", 0, 0, 0, 0},
    {"reduce_test", NULL, "pld has no reduce to one root (only allreduce)", 0, 0, 0, 0},
    {"scatter_test", NULL, "pld has no scatter from one root", 0, 0, 0, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0},
};

const struct hccl_prog *hccl_prog_by_name(const char *name)
{
    if (strncmp(name, "pldsim-", 7) == 0)
        name += 7;
    for (const struct hccl_prog *p = hccl_progs; p->name; p++)
        if (strcmp(name, p->name) == 0)
            return p;
    return NULL;
}

int main(int argc, char **argv)
{
    pld_config cfg;
    int rc = hccl_setup(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    perf_jobs_catch_interrupts();
    S.rank_time = calloc((size_t)S.nsteps * 2 * (size_t)S.P, sizeof *S.rank_time);
    S.wrong = calloc((size_t)S.nsteps * 2, sizeof *S.wrong);
    S.made = calloc((size_t)S.nsteps * 2, sizeof *S.made);
    if (!S.rank_time || !S.wrong || !S.made || perf_steady_init(S.P)) {
        fprintf(stderr, "%s: out of memory for %d sizes of %d ranks\n", H.prog_name, S.nsteps, S.P);
        return 1;
    }
    cfg.no_data = S.check_iters == 0;
    if (S.check_iters && (rc = perf_check_init()) != 0)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &S.wall0);
    hccl_print_opening(&cfg);
    int jobs = perf_sweep_jobs(&cfg);
    /* only the simulator repeats a call exactly */
    perf_steady_enable(!S.all_iterations && strcmp(cfg.backend, "sim") == 0);
    fflush(stdout);
    rc = perf_run_sweep(&cfg, jobs);
    if (rc)
        return rc;
    return hccl_print_results();
}
