/* pldsim-perf: nccl-tests' perf programs (all_reduce_perf, ...) on the
 * simulator, with their flags, their output and their JSON (-J), so that
 * scripts and parsers written for nccl-tests logs read ours.  Usage:
 *
 *   pldsim-perf COLLECTIVE [nccl-tests flags] [pldsim flags]
 *   pldsim-all_reduce_perf [nccl-tests flags] [pldsim flags]   (installed link)
 *
 * COLLECTIVE is an nccl-tests name (all_reduce_perf, all_gather_perf,
 * broadcast_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf) or a
 * pldsim one (allreduce, allgather, broadcast, reduce_scatter, all_to_all,
 * sendrecv).  The format follows nccl-tests 2.19 (src/util.cu); sizes,
 * counts and bus-bandwidth factors follow its src/<coll>.cu.  Times are
 * simulated.  Out-of-place: pld's builtins work in place on a window, so the
 * out-of-place half times a local copy of a separate send buffer into the
 * window plus the in-place builtin; allgather, alltoall and sendrecv always
 * read a separate buffer, so their two halves time the same call.
 * docs/pldsim-perf.md has the details; perf.h says which file does what. */
#include "perf.h"
#include "perf_jobs.h"
#include "perf_steady.h"

#include <stdlib.h>
#include <string.h>

struct perf_state S;
const char *perf_prog = "pldsim-perf";

#ifndef PLDSIM_PERF_NO_MAIN
int main(int argc, char **argv)
{
    pld_config cfg;
    struct cli cli;
    int rc = perf_setup(argc, argv, &cfg, &cli);
    if (rc >= 0)
        return rc;
    perf_jobs_catch_interrupts();
    int rows = S.cycles * S.nsteps;
    S.rank_time = calloc((size_t)rows * 2 * (size_t)S.P, sizeof *S.rank_time);
    S.wrong = calloc((size_t)rows * 2, sizeof *S.wrong);
    S.made = calloc((size_t)rows * 2, sizeof *S.made);
    if (!S.rank_time || !S.wrong || !S.made || perf_steady_init(S.P))
        return perf_fail_usage("out of memory for %s rows", "the");
    struct perf_outputs out;
    if ((rc = perf_open_outputs(&cli, &out)) != 0)
        return rc;
    cfg.no_data = S.check_iters == 0;
    if (S.check_iters && (rc = perf_check_init()) != 0)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &S.wall0);

    perf_print_opening(&cfg, argc, argv, &out);
    int jobs = perf_sweep_jobs(&cfg);
    int shortcut = !S.all_iterations && strcmp(cfg.backend, "sim") == 0;
    perf_print_setup(&cfg, jobs, shortcut);

    /* only the simulator repeats a call exactly */
    perf_steady_enable(shortcut);
    rc = perf_run_sweep(&cfg, jobs);
    if (rc)
        return perf_done(rc);
    return perf_print_results(&out);
}
#endif
