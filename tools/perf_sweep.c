/* perf_sweep.c: the sizes of a sweep, and the simulations that time them:
 * the whole sweep as one, or each size as one of its own in a child process
 * (perf_jobs.c), whose results come back into S. */
#include "perf.h"
#include "perf_jobs.h"

#include <stdlib.h>
#include <string.h>

double *perf_rank_time(int row, int half, int r)
{
    return &S.rank_time[((size_t)row * 2 + (size_t)half) * (size_t)S.P + (size_t)r];
}

double perf_wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - S.wall0.tv_sec) + (double)(t.tv_nsec - S.wall0.tv_nsec) * 1e-9;
}

/* The printed size is the larger of send and receive bytes, the count the
 * call's count argument; per-rank parts are rounded down to 16 bytes. */
struct step perf_make_step(int64_t bytes)
{
    int64_t es = (int64_t)pl_dtype_size(S.dt), count = bytes / es;
    struct step st = {count * es, count, count};
    if (perf_window_rows() > 1) {
        int64_t base = (count / S.P) & ~(16 / es - 1);
        st = (struct step){base * S.P * es, base, base};
    }
    return st;
}

int perf_make_sweep(void)
{
    if (S.minb > S.maxb) {
        fprintf(stderr, "%s: -b is larger than -e (see --help)\n", perf_prog);
        return 2;
    }
    S.steps = malloc(MAX_SIZES * sizeof *S.steps);
    S.warm = malloc(64 * sizeof *S.warm);
    if (!S.steps || !S.warm)
        return perf_fail_usage("out of memory%s", "");
    for (int64_t b = S.minb; b <= S.maxb;) {
        if (S.nsteps == MAX_SIZES) {
            fprintf(stderr,
                    "%s: more than %d sizes from -b to -e; use a larger -i or "
                    "-f (see --help)\n",
                    perf_prog, MAX_SIZES);
            return 2;
        }
        S.steps[S.nsteps++] = perf_make_step(b);
        if (S.factor > 1 ? b > S.maxb / S.factor : b > S.maxb - S.stepb)
            break;
        b = S.factor > 1 ? b * S.factor : b + S.stepb;
    }
    for (int64_t b = S.minb; b <= S.maxb && S.nwarm < 64; b *= 2)
        S.warm[S.nwarm++] = perf_make_step(b).n;
    return 0;
}

/* The configuration every size's simulation runs with. */
static pld_config *run_cfg;

/* What one size's own simulation (a child of perf_jobs_run) hands back, for
 * each cycle: every rank's time of each half, the wrong elements and the
 * calls made. */
static int size_job(int k, FILE *out)
{
    S.only = k;
    if (k != 0)
        perf_corrupt_for_test = 0; /* the hook's one element is the first size's */
    int rc = pld_run(run_cfg, perf_host, NULL);
    if (rc)
        return pld_exit_code(rc); /* pld_run has said why */
    for (int c = 0; c < S.cycles; c++) {
        int row = c * S.nsteps + k;
        fwrite(perf_rank_time(row, 0, 0), sizeof(double), 2 * (size_t)S.P, out);
        fwrite(&S.wrong[row * 2], sizeof *S.wrong, 2, out);
        fwrite(&S.made[row * 2], sizeof *S.made, 2, out);
    }
    return 0;
}

/* The parent's side of size_job. */
static int size_collect(int k, FILE *in)
{
    for (int c = 0; c < S.cycles; c++) {
        int row = c * S.nsteps + k;
        if (fread(perf_rank_time(row, 0, 0), sizeof(double), 2 * (size_t)S.P, in) !=
                2 * (size_t)S.P ||
            fread(&S.wrong[row * 2], sizeof *S.wrong, 2, in) != 2 ||
            fread(&S.made[row * 2], sizeof *S.made, 2, in) != 2) {
            fprintf(stderr, "%s: the results of size %lld B are cut short\n", perf_prog,
                    (long long)S.steps[k].size);
            return 1;
        }
    }
    return 0;
}

/* A size, for messages about its simulation. */
static const char *size_what(int k)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "size %lld B", (long long)S.steps[k].size);
    return buf;
}

/* A line on stderr at most every second while sizes finish. */
static void size_progress(int done, int n)
{
    if (done < n && perf_wall_now() - S.last_progress > 1.0) {
        S.last_progress = perf_wall_now();
        fprintf(stderr, "%s: %d of %d sizes done, %.1f s\n", perf_prog, done, n, S.last_progress);
    }
}

/* Why the sweep must be one simulation, or NULL: the real backends time
 * real calls, and the outputs that record a run would be written once per
 * size. */
static const char *one_simulation_because(const pld_config *cfg)
{
    return strcmp(cfg->backend, "sim") != 0        ? "the backend is not the simulator"
           : cfg->trace                            ? "--trace records one run"
           : cfg->summary_json                     ? "--summary-json records one run"
           : cfg->summary || cfg->detailed_summary ? "--summary describes one run"
           : cfg->dump_outputs                     ? "--dump-outputs records one run"
           : cfg->save_platform                    ? "--save-platform writes one file"
           : cfg->keep_windows                     ? "kept windows carry from run to run"
                                                   : NULL;
}

/* Each size is a simulation of its own, so that a row's time does not
 * depend on which sizes came before it, unless what the run records must
 * be one run. */
int perf_sweep_jobs(const pld_config *cfg)
{
    const char *because = one_simulation_because(cfg);
    if (because && S.jobs > 1)
        fprintf(stderr, "%s: -j %d ignored: one simulation for the whole sweep, as %s\n", perf_prog,
                S.jobs, because);
    int jobs = S.jobs ? S.jobs : perf_jobs_cores();
    return because ? 0 : jobs < S.nsteps ? jobs : S.nsteps;
}

/* A single size runs in this process: a child would only add a fork. */
int perf_run_sweep(pld_config *cfg, int jobs)
{
    if (jobs == 0 || S.nsteps == 1) {
        S.only = jobs == 0 ? -1 : 0;
        int rc = pld_run(cfg, perf_host, NULL);
        return rc ? pld_exit_code(rc) : 0;
    }
    int *order = malloc((size_t)S.nsteps * sizeof *order);
    if (!order) {
        fprintf(stderr, "%s: out of memory for the order of %d sizes\n", perf_prog, S.nsteps);
        return 1;
    }
    /* largest first: the long simulations start early, the short ones fill in */
    for (int k = 0; k < S.nsteps; k++)
        order[k] = S.nsteps - 1 - k;
    run_cfg = cfg;
    fflush(stdout);
    int rc = perf_jobs_run(S.nsteps, order, jobs, size_job, size_collect, size_what, size_progress);
    free(order);
    return rc;
}
