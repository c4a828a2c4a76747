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
 * docs/pldsim-perf.md has the details. */
#include <pld/pld.h>

#include "perf_jobs.h"
#include "perf_steady.h"
#include "size_arg.h"
#include "usage_error.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The nccl-tests release whose output format this matches. */
#define NCCL_TESTS_FORMAT "2.19.6"

enum coll { ALLREDUCE, BROADCAST, ALLGATHER, REDUCE_SCATTER, ALL_TO_ALL, SENDRECV, NCOLLS };

/* Each collective's pldsim name and nccl-tests program name. */
static const struct {
    const char *name, *nccl;
} colls[NCOLLS] = {
    {"allreduce", "all_reduce_perf"}, {"broadcast", "broadcast_perf"},
    {"allgather", "all_gather_perf"}, {"reduce_scatter", "reduce_scatter_perf"},
    {"all_to_all", "alltoall_perf"},  {"sendrecv", "sendrecv_perf"},
};

/* The most sizes one sweep may have (-i steps can ask for millions). */
#define MAX_SIZES 65536

/* One row of the table: nccl-tests' size and count columns, and the
 * elements of each rank's window row (0: nothing to move). */
struct step {
    int64_t size, count, n;
};

static struct {
    enum coll coll;
    int P;
    pld_allreduce_mode mode;
    pld_reduce_op op;
    pl_dtype dt;
    int root, check_iters, iters, warmup, blocking, average, cycles;
    int64_t minb, maxb, stepb, factor;
    struct step *steps; /* the sweep, once */
    int nsteps;
    int64_t *warm; /* row elements of each warm-up size (factor 2, as nccl-tests) */
    int nwarm;
    /* per row (cycle-major), per half (0 out-of-place, 1 in-place), per rank */
    double *rank_time;
    long *wrong;           /* per row and half */
    int *made;             /* per row and half: timed calls simulated (the rest derived) */
    int all_iterations;    /* --all-iterations: no steady-state shortcut */
    int jobs;              /* -j: simulations at once (0: one per core) */
    int only;              /* in a size's own simulation: that size's index; -1: all */
    pl_tensor *check_bufs; /* -c: per rank, made before the run as host tensors must be */
    double ref[5];         /* reduce_ref's table */
    struct timespec wall0;
    double last_progress;
    json_t *json, *results; /* -J's document, and its rows until they join it */
} S;

/* Where rank r's time of row `row`, half `half` is kept. */
static double *rank_time(int row, int half, int r)
{
    return &S.rank_time[((size_t)row * 2 + (size_t)half) * (size_t)S.P + (size_t)r];
}

/* Wall-clock seconds since the run began, for the progress lines. */
static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - S.wall0.tv_sec) + (double)(t.tv_nsec - S.wall0.tv_nsec) * 1e-9;
}

/* Window rows per rank: one per peer where each rank has a part per peer. */
static int coll_rows(void)
{
    return S.coll == ALLGATHER || S.coll == REDUCE_SCATTER || S.coll == ALL_TO_ALL ? S.P : 1;
}

/* nccl-tests' setupArgs and <coll>GetCollByteCount for `bytes`: the printed
 * size is the larger of send and receive bytes, the count the call's count
 * argument; per-rank parts are rounded down to 16 bytes. */
static struct step make_step(int64_t bytes)
{
    int64_t es = (int64_t)pl_dtype_size(S.dt), count = bytes / es;
    struct step st = {count * es, count, count};
    if (coll_rows() > 1) {
        int64_t base = (count / S.P) & ~(16 / es - 1);
        st = (struct step){base * S.P * es, base, base};
    }
    return st;
}

/* The value rank r puts at element j: small integers, so every reduction is
 * exact in FP16 too and a wrong element is an error, not rounding. */
static double input_value(int r, int64_t j)
{
    return (double)((r * 7 + j * 3) % 5) - 2;
}

/* The reduction over ranks of element j of each rank's input. */
static double reduce_over_ranks(int64_t j)
{
    double acc = input_value(0, j);
    for (int r = 1; r < S.P; r++) {
        double v = input_value(r, j);
        acc = S.op == PLD_REDUCE_MAX    ? (v > acc ? v : acc)
              : S.op == PLD_REDUCE_MIN  ? (v < acc ? v : acc)
              : S.op == PLD_REDUCE_PROD ? acc * v
                                        : acc + v;
    }
    return acc;
}

/* The same, from a table: input_value depends on j only through j % 5, and
 * -c asks for every element of every rank (a P-step loop each was a quarter
 * of a 16 MiB -c run's time, once the copies were bulk). */
static double reduce_ref(int64_t j)
{
    return S.ref[j % 5];
}

struct dev_args {
    int rank;
    pld_dtensor target, input, sig, ring_sig, bar;
    pld_dtensor target2; /* broadcast's second target (one_call says why) */
    pl_tensor check_buf; /* -c: this rank's host tensor of [1, CHECK_COLS] at most */
};

/* The views one call of `n` row elements uses. */
struct views {
    pld_dtensor tgt, in, tgt2;
    int rows;
    int64_t n;
};

/* Rank a's views of the window rows for a call of n elements each. */
static struct views views_of(const struct dev_args *a, int64_t n)
{
    int rows = coll_rows();
    return (struct views){pld_window((pld_buffer){a->target.win}, PL_SHAPE(rows, n), S.dt),
                          pld_window((pld_buffer){a->input.win}, PL_SHAPE(rows, n), S.dt),
                          S.coll == BROADCAST
                              ? pld_window((pld_buffer){a->target2.win}, PL_SHAPE(rows, n), S.dt)
                              : (pld_dtensor){0},
                          rows, n};
}

/* One collective call, the `it`-th in a row; `half` 0 is out-of-place: the
 * reducing and broadcasting builtins work in place, so their send buffer is
 * first copied into the window, and that copy is part of the call.  A
 * broadcast ends when its receivers are done, not its readers of root's
 * window, so back to back, root's copy would overwrite what a late
 * receiver still pulls: out-of-place broadcasts take turns between two
 * windows (the next call's opening barrier orders the one after). */
static void one_call(const struct dev_args *a, const struct views *views, int half, int it)
{
    int me = a->rank;
    int staged = S.coll == ALLREDUCE || S.coll == BROADCAST || S.coll == REDUCE_SCATTER;
    struct views alt = *views;
    const struct views *v = views;
    if (S.coll == BROADCAST && half == 0 && it % 2) {
        alt.tgt = views->tgt2;
        v = &alt;
    }
    if (staged && half == 0)
        pld_tensor_put(v->tgt, .peer = me, .src = v->in, .chunk_cols = 4096);
    switch (S.coll) {
    case ALLREDUCE:
        pld_tensor_allreduce(v->tgt, S.mode == PLD_ALLREDUCE_RING ? a->ring_sig : a->sig,
                             .op = S.op, .mode = S.mode);
        break;
    case BROADCAST:
        pld_tensor_broadcast(v->tgt, a->sig, .root = S.root);
        break;
    case ALLGATHER:
        pld_tensor_allgather(pld_window((pld_buffer){a->input.win}, PL_SHAPE(1, v->n), S.dt),
                             v->tgt, a->sig);
        break;
    case REDUCE_SCATTER:
        pld_tensor_reduce_scatter(v->tgt, a->sig, .op = S.op);
        break;
    case ALL_TO_ALL:
        pld_tensor_all_to_all(v->in, v->tgt, a->sig);
        break;
    case SENDRECV:
        /* nccl-tests' pattern: send to the next rank, receive from the
         * previous; the barrier is the receiver's "it has arrived" */
        pld_tensor_put(v->tgt, .peer = (me + 1) % S.P, .src = v->in, .chunk_cols = 4096);
        pld_tensor_barrier(a->sig);
        break;
    case NCOLLS:
        break;
    }
}

/* What element j of row `row` of rank me's target must hold after a call. */
static int expected(int me, int row, int64_t n, int64_t j, double *want)
{
    switch (S.coll) {
    case ALLREDUCE:
        *want = reduce_ref(j);
        return 1;
    case BROADCAST:
        *want = input_value(S.root, j);
        return 1;
    case ALLGATHER:
        *want = input_value(row, j); /* rank row's first row */
        return 1;
    case REDUCE_SCATTER:
        *want = reduce_ref((int64_t)me * n + j);
        return row == me;
    case ALL_TO_ALL:
        *want = input_value(row, (int64_t)me * n + j); /* rank row's row `me` */
        return 1;
    case SENDRECV:
        *want = input_value((me + S.P - 1) % S.P, j);
        return 1;
    case NCOLLS:
        break;
    }
    return 0;
}

/* -c moves its data through a host tensor per rank, one row chunk of up to
 * CHECK_COLS elements at a time: filled and compared on the host side,
 * copied to and from the window by pld_tensor_put and pld_tensor_get.  One
 * bounds-checked, race-recorded copy per chunk instead of a pl_write or
 * pl_read per element (a 64 MiB row made 16.8 M of those per rank, in
 * each of the two phases: nearly all of a --check sweep's time). */
#define CHECK_COLS ((int64_t)1 << 20)

/* A test hook (PLDSIM_PERF_TEST_CORRUPT set): rank 0 adds 1 to the first
 * element it checks, as if the collective had got it wrong, so that a test
 * can see -c count it and the run fail (tests/model/check_whatif.c); only the
 * first checked call is touched. */
static int corrupt_for_test;

/* Rank me's fill of row `row` of its input, j0 .. j0+w of n, through `buf`. */
static void fill_chunk(pl_tensor buf, const struct views *v, int me, int row, int64_t j0, int64_t w)
{
    float *f = S.dt == PL_FP32 ? buf.data : NULL; /* the common case, without a call per element */
    for (int64_t j = 0; j < w; j++) {
        double x = input_value(me, row * v->n + j0 + j);
        if (f)
            f[j] = (float)x;
        else
            pl_tensor_set(buf, j, x);
    }
    pld_tensor_put(v->in, .peer = me, .src = buf, .dst_offsets = PL_IDX(row, j0),
                   .src_offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, w), .chunk_rows = 1,
                   .chunk_cols = 4096);
}

/* The wrong elements of row `row` of rank me's target, j0 .. j0+w of n. */
static long check_chunk(pl_tensor buf, const struct views *v, int me, int row, int64_t j0,
                        int64_t w)
{
    pld_tensor_get(buf, .peer = me, .src = v->tgt, .dst_offsets = PL_IDX(0, 0),
                   .src_offsets = PL_IDX(row, j0), .shape = PL_SHAPE(1, w), .chunk_rows = 1,
                   .chunk_cols = 4096);
    if (corrupt_for_test && me == 0) {
        pl_tensor_set(buf, 0, pl_tensor_get(buf, 0) + 1);
        corrupt_for_test = 0;
    }
    const float *f = S.dt == PL_FP32 ? buf.data : NULL;
    long wrong = 0;
    for (int64_t j = 0; j < w; j++) {
        double want;
        expected(me, row, v->n, j0 + j, &want);
        wrong += (f ? f[j] : pl_tensor_get(buf, j)) != want;
    }
    return wrong;
}

/* -c: fresh inputs, one call, and a count of the elements that are wrong
 * (nccl-tests checks in a call of its own after the timed ones). */
static long checked_call(const struct dev_args *a, const struct views *v, int64_t n, int half)
{
    int me = a->rank;
    for (int row = 0; row < v->rows; row++)
        for (int64_t j0 = 0; j0 < n; j0 += CHECK_COLS)
            fill_chunk(a->check_buf, v, me, row, j0, n - j0 < CHECK_COLS ? n - j0 : CHECK_COLS);
    if (half == 1 && S.coll != ALLGATHER && S.coll != ALL_TO_ALL && S.coll != SENDRECV)
        pld_tensor_put(v->tgt, .peer = me, .src = v->in, .chunk_cols = 4096);
    pld_tensor_barrier(a->bar);
    one_call(a, v, half, 0);
    long wrong = 0;
    double want;
    for (int row = 0; row < v->rows; row++)
        if (expected(me, row, n, 0, &want)) /* rows that hold a result, the only ones read */
            for (int64_t j0 = 0; j0 < n; j0 += CHECK_COLS)
                wrong += check_chunk(a->check_buf, v, me, row, j0,
                                     n - j0 < CHECK_COLS ? n - j0 : CHECK_COLS);
    /* the next call writes into windows that peers may still read */
    pld_tensor_barrier(a->bar);
    return wrong;
}

/* nccl-tests' BenchTime for one half of one row: -n calls back to back
 * (-z 1 and 3: a barrier after each), this rank's time per call, then -c
 * checked calls. */
static void bench_half(const struct dev_args *a, int row, const struct step *st, int half)
{
    int me = a->rank;
    if (st->n == 0) { /* nothing to move: pld has no empty collective */
        *rank_time(row, half, me) = 0;
        return;
    }
    struct views v = views_of(a, st->n);
    pld_tensor_barrier(a->bar); /* every rank starts together */
    double excluded = 0;
    perf_steady_begin(me, S.iters, pld_time());
    for (int it = 0; it < S.iters && perf_steady_go(me, it); it++) {
        one_call(a, &v, half, it);
        if (S.blocking == 1 || S.blocking == 3) {
            double b0 = pld_time();
            pld_tensor_barrier(a->bar);
            if (S.blocking == 3)
                excluded += pld_time() - b0;
        }
        perf_steady_done(me, it, pld_time(), excluded);
    }
    int made;
    *rank_time(row, half, me) = perf_steady_end(me, pld_time(), excluded, &made) / S.iters;
    if (me == 0)
        S.made[row * 2 + half] = made;
    /* results are read (or ignored); line everyone up before the next call
     * writes into the same windows */
    pld_tensor_barrier(a->bar);
    for (int c = 0; c < S.check_iters; c++) {
        long w = checked_call(a, &v, st->n, half);
        S.wrong[row * 2 + half] += w;
        if (w)
            break;
    }
}

/* -w out-of-place calls of n row elements, untimed. */
static void warm_up(const struct dev_args *a, int64_t n)
{
    int me = a->rank;
    if (n == 0 || S.warmup == 0)
        return;
    struct views v = views_of(a, n);
    pld_tensor_barrier(a->bar);
    /* untimed, so the shortcut only has to leave the clocks as a full
     * warm-up would: the same offsets, later or earlier */
    perf_steady_begin(me, S.warmup, pld_time());
    for (int it = 0; it < S.warmup && perf_steady_go(me, it); it++) {
        one_call(a, &v, 0, it);
        perf_steady_done(me, it, pld_time(), 0);
    }
    int made;
    perf_steady_end(me, pld_time(), 0, &made);
    pld_tensor_barrier(a->bar);
}

/* What each rank runs: the warm-up, then every row of every cycle; in a
 * size's own simulation (-j), that size's warm-up and rows only. */
static void sweep_kernel(const struct dev_args *a)
{
    int me = a->rank;
    /* nccl-tests' warm-up: -w out-of-place calls of every size from -b to
     * -e by factor 2, before anything is timed */
    if (S.only >= 0)
        warm_up(a, S.steps[S.only].n);
    else
        for (int k = 0; k < S.nwarm; k++)
            warm_up(a, S.warm[k]);
    for (int c = 0; c < S.cycles; c++)
        for (int k = 0; k < S.nsteps; k++) {
            if (S.only >= 0 && k != S.only)
                continue;
            int row = c * S.nsteps + k;
            for (int half = 0; half < 2; half++)
                bench_half(a, row, &S.steps[k], half);
            if (me == 0 && S.only < 0 && wall_now() - S.last_progress > 1.0) {
                S.last_progress = wall_now();
                fprintf(stderr, "pldsim-perf: %lld bytes done (row %d of %d), %.1f s\n",
                        (long long)S.steps[k].size, row + 1, S.cycles * S.nsteps, S.last_progress);
            }
        }
}

/* Each device's orchestrator: the sweep as one kernel. */
static void per_device(const struct dev_args *a)
{
    pl_incore(sweep_kernel, a);
}

/* The host: windows big enough for the largest row, one task per rank. */
static void host(const void *unused)
{
    (void)unused;
    int64_t max_row = 1;
    for (int k = 0; k < S.nsteps; k++)
        if (S.steps[k].n > max_row && (S.only < 0 || k == S.only))
            max_row = S.steps[k].n;
    for (int k = 0; k < S.nwarm && S.only < 0; k++)
        if (S.warm[k] > max_row)
            max_row = S.warm[k];
    /* whole 64-byte lines, so that no two buffers share one (pypto#2800) */
    int64_t line = 64 / (int64_t)pl_dtype_size(S.dt);
    max_row = (max_row + line - 1) / line * line;
    int rows = coll_rows(), ring_rows = 2 * (S.P - 1) > 0 ? 2 * (S.P - 1) : 1;
    pld_buffer target = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "target");
    pld_buffer input = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "input");
    int64_t t2_row = S.coll == BROADCAST ? max_row : line;
    pld_buffer target2 = pld_alloc_window_buffer(PL_SHAPE(rows, t2_row), S.dt, .name = "target2");
    /* signals on whole cache lines of their own (pypto#2800) */
    int64_t sig_bytes = ((int64_t)S.P * 4 + 63) / 64 * 64;
    pld_buffer sig = pld_alloc_window_buffer(sig_bytes, .name = "signal");
    pld_buffer bar = pld_alloc_window_buffer(sig_bytes, .name = "barrier");
    pld_buffer ring =
        pld_alloc_window_buffer(PL_SHAPE(ring_rows, S.P), PL_INT32, .name = "ring_signal");
    for (int r = 0; r < S.P; r++) {
        struct dev_args a = {
            .rank = r,
            .target = pld_window(target, PL_SHAPE(rows, max_row), S.dt),
            .input = pld_window(input, PL_SHAPE(rows, max_row), S.dt),
            .target2 = pld_window(target2, PL_SHAPE(rows, t2_row), S.dt),
            .sig = pld_window(sig, PL_SHAPE(S.P, 1), PL_INT32),
            .ring_sig = pld_window(ring, PL_SHAPE(ring_rows, S.P), PL_INT32),
            .bar = pld_window(bar, PL_SHAPE(S.P, 1), PL_INT32),
            .check_buf = S.check_bufs ? S.check_bufs[r] : (pl_tensor){0},
        };
        pld_dispatch(r, per_device, a);
    }
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
        corrupt_for_test = 0; /* the hook's one element is the first size's */
    int rc = pld_run(run_cfg, host, NULL);
    if (rc)
        return pld_exit_code(rc); /* pld_run has said why */
    for (int c = 0; c < S.cycles; c++) {
        int row = c * S.nsteps + k;
        fwrite(rank_time(row, 0, 0), sizeof(double), 2 * (size_t)S.P, out);
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
        if (fread(rank_time(row, 0, 0), sizeof(double), 2 * (size_t)S.P, in) != 2 * (size_t)S.P ||
            fread(&S.wrong[row * 2], sizeof *S.wrong, 2, in) != 2 ||
            fread(&S.made[row * 2], sizeof *S.made, 2, in) != 2) {
            fprintf(stderr, "pldsim-perf: the results of size %lld B are cut short\n",
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
    if (done < n && wall_now() - S.last_progress > 1.0) {
        S.last_progress = wall_now();
        fprintf(stderr, "pldsim-perf: %d of %d sizes done, %.1f s\n", done, n, S.last_progress);
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

/* How many sizes are simulated at once (each size is a simulation of its
 * own, so that a row's time does not depend on which sizes came before
 * it), or 0 for the sweep as one simulation: what must be one run (said on
 * stderr when -j was given). */
static int sweep_jobs(const pld_config *cfg)
{
    const char *because = one_simulation_because(cfg);
    if (because && S.jobs > 1)
        fprintf(stderr, "pldsim-perf: -j %d ignored: one simulation for the whole sweep, as %s\n",
                S.jobs, because);
    int jobs = S.jobs ? S.jobs : perf_jobs_cores();
    return because ? 0 : jobs < S.nsteps ? jobs : S.nsteps;
}

/* Runs the sweep: each size a simulation of its own, `jobs` at once in
 * child processes (a single size in this one), or, for 0, the whole sweep
 * as one.  Returns 0 or the exit status. */
static int run_sweep(pld_config *cfg, int jobs)
{
    if (jobs == 0 || S.nsteps == 1) {
        S.only = jobs == 0 ? -1 : 0;
        int rc = pld_run(cfg, host, NULL);
        return rc ? pld_exit_code(rc) : 0;
    }
    int *order = malloc((size_t)S.nsteps * sizeof *order);
    if (!order) {
        fprintf(stderr, "pldsim-perf: out of memory for the order of %d sizes\n", S.nsteps);
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

/* nccl-tests' <coll>GetBw factor from algbw to busbw. */
static double busbw_factor(void)
{
    double n = S.P;
    switch (S.coll) {
    case ALLREDUCE:
        return 2 * (n - 1) / n;
    case BROADCAST:
    case SENDRECV:
        return 1;
    default:
        return (n - 1) / n;
    }
}

/* nccl-tests' getFloatStr: 2 decimals if they fit in `width`, then 1, then
 * none, then an exponent. */
static void float_str(double v, int width, char *out, size_t size)
{
    static const char *const fmts[] = {"%*.2f", "%*.1f", "%*.0f"};
    for (int i = 0; i < 3; i++)
        if (snprintf(out, size, fmts[i], width, v) <= width)
            return;
    snprintf(out, size, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/* The time of one half as -a asks: rank 0's, or the mean, min or max over
 * ranks (nccl-tests' Allreduce of deltaSec). */
static double half_time(int row, int half)
{
    double acc = *rank_time(row, half, 0);
    for (int r = 1; r < S.P && S.average != 0; r++) {
        double t = *rank_time(row, half, r);
        acc = S.average == 1 ? acc + t : S.average == 2 ? (t < acc ? t : acc) : (t > acc ? t : acc);
    }
    return S.average == 1 ? acc / S.P : acc;
}

/* --help; also on stderr when no collective is named. */
static void usage(FILE *out)
{
    fputs("usage: pldsim-perf COLLECTIVE [options]    (or pldsim-all_reduce_perf [options] ...)\n"
          "  COLLECTIVE  all_reduce_perf, all_gather_perf, broadcast_perf, reduce_scatter_perf,\n"
          "              alltoall_perf, sendrecv_perf; or allreduce, allgather, broadcast,\n"
          "              reduce_scatter, all_to_all, sendrecv\n"
          "nccl-tests' flags, with its meanings and defaults:\n"
          "  -b, --minbytes SIZE     smallest size (default 32M; K, M, G suffixes)\n"
          "  -e, --maxbytes SIZE     largest size (default 32M)\n"
          "  -i, --stepbytes SIZE    add SIZE each step when -f is 0 or 1 (default 1M)\n"
          "  -f, --stepfactor N      multiply the size by N each step (default 1: use -i)\n"
          "  -g, --ngpus N           devices, one rank each: P = N (default 1)\n"
          "  -n, --iters N           timed calls per row and half, averaged (default 20)\n"
          "  -w, --warmup_iters N    untimed calls of each size first (default 1)\n"
          "  -c, --check N           checked calls after the timed ones (default 0 here,\n"
          "                          1 in nccl-tests: checking keeps every payload)\n"
          "  -o, --op OP             sum (default), prod, max, min\n"
          "  -d, --datatype T        float (default) or half\n"
          "  -r, --root R            broadcast root (default 0)\n"
          "  -a, --average 0-3       time of rank 0, the mean (default), min or max over ranks\n"
          "  -z, --blocking 0-3      1 and 3: a barrier after every call (3: not timed)\n"
          "  -N, --run_cycles N      run the sweep N times, printing each (default 1)\n"
          "  -J, --output_file F     also write the results as JSON to F.json\n"
          "  -t -m -p -G -C -R -T -S -M -x -u -k -y -D -V -I -K (and long forms) are accepted\n"
          "  and ignored, each with one line on stderr.  NCCL_TESTS_MIN_BW=X fails the run\n"
          "  (exit 1) when the average bus bandwidth is below 0.9 X, as nccl-tests does.\n"
          "pldsim's own:\n"
          "      --devices LIST      device ids instead of -g: 0-7 or 0,2,4,6\n"
          "      --mode M            allreduce: mesh (default) or ring\n"
          "      --check             as -c 1\n"
          "      --csv FILE          also write the table as CSV\n"
          "  -j, --jobs N            simulate N sizes at once, each size a simulation (and a\n"
          "                          process) of its own (default: one per core)\n"
          "      --all-iterations    simulate every -n and -w call; by default, once the\n"
          "                          calls repeat exactly, the rest are derived (simulator\n"
          "                          only; the table's last comment line says how many)\n"
          "      --dtype T, -P N     as -d and -g\n"
          "Out-of-place: pld's builtins reduce and broadcast in place on a window, so the\n"
          "out-of-place half of allreduce, reduce_scatter and broadcast times a local copy\n"
          "of a separate send buffer into the window plus the builtin; allgather, alltoall\n"
          "and sendrecv read a separate buffer in both halves, which time the same call.\n"
          "Times are simulated by pldsim, not measured.  docs/pldsim-perf.md has more.\n\n"
          "pldsim's common flags follow; here -p and -d are nccl-tests' (ignored, and the\n"
          "datatype), so give the platform as --platform and the devices as --devices.\n",
          out);
    pld_print_common_usage(out);
}

/* One refusal line on stderr; returns the usage status, 2. */
static int fail_usage(const char *fmt, const char *arg)
{
    return usage_error("pldsim-perf", fmt, arg);
}

/* Parses a whole decimal integer in [lo, hi] into *out; -1 if it is not one. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* The nccl-tests flags that have no meaning here: consumed, reported. */
static const char ignored_flags[] = "tmpGCRTSMxukyDVIK";

/* Options that are ours; the common pldsim ones go on to pld_parse_args. */
enum { OPT_DEVICES = 256, OPT_MODE, OPT_CSV, OPT_ALL_ITERATIONS };
static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"stepbytes", required_argument, 0, 'i'},
    {"stepfactor", required_argument, 0, 'f'},
    {"ngpus", required_argument, 0, 'g'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"op", required_argument, 0, 'o'},
    {"datatype", required_argument, 0, 'd'},
    {"dtype", required_argument, 0, 'd'},
    {"root", required_argument, 0, 'r'},
    {"average", required_argument, 0, 'a'},
    {"blocking", required_argument, 0, 'z'},
    {"run_cycles", required_argument, 0, 'N'},
    {"output_file", required_argument, 0, 'J'},
    {"nthreads", required_argument, 0, 't'},
    {"agg_iters", required_argument, 0, 'm'},
    {"parallel_init", required_argument, 0, 'p'},
    {"cudagraph", required_argument, 0, 'G'},
    {"report_cputime", required_argument, 0, 'C'},
    {"local_register", required_argument, 0, 'R'},
    {"timeout", required_argument, 0, 'T'},
    {"report_timestamps", required_argument, 0, 'S'},
    {"memory", required_argument, 0, 'M'},
    {"cta_policy", required_argument, 0, 'x'},
    {"unalign", required_argument, 0, 'u'},
    {"stream_null", required_argument, 0, 'y'},
    {"device_implementation", required_argument, 0, 'D'},
    {"device_cta_count", required_argument, 0, 'V'},
    {"per_iter_timing", required_argument, 0, 'I'},
    {"per_iter_skip", required_argument, 0, 'K'},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"device", required_argument, 0, OPT_DEVICES}, /* the common flag's name */
    {"mode", required_argument, 0, OPT_MODE},
    {"csv", required_argument, 0, OPT_CSV},
    {"jobs", required_argument, 0, 'j'},
    {"all-iterations", no_argument, 0, OPT_ALL_ITERATIONS},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* Settings that main needs after parsing. */
struct cli {
    const char *devices, *csv, *json, *ngpus_arg;
    int ngpus;
};

/* The options that take a whole number: its range, where it goes, and the
 * refusal of anything else. */
static const struct {
    int c;
    long lo, hi;
    int *to;
    const char *refusal;
} int_opts[] = {
    {'n', 1, INT_MAX, &S.iters,
     "bad iteration count '%s' for -n; expected a whole number from 1 to 2147483647"},
    {'w', 0, INT_MAX, &S.warmup,
     "bad warm-up count '%s' for -w; expected a whole number from 0 to 2147483647"},
    {'c', 0, INT_MAX, &S.check_iters,
     "bad check count '%s' for -c; expected a whole number from 0 to 2147483647"},
    {'r', 0, PLD_MAX_RANKS, &S.root, "bad --root '%s'; expected a rank number"},
    {'a', 0, 3, &S.average,
     "bad --average '%s'; expected 0 (rank 0), 1 (mean), 2 (min) or 3 (max)"},
    {'z', 0, 3, &S.blocking, "bad --blocking '%s'; expected 0, 1, 2 or 3"},
    {'j', 1, 4096, &S.jobs, "bad job count '%s' for -j; expected 1 to 4096 simulations at once"},
    {'N', 1, INT_MAX, &S.cycles,
     "bad --run_cycles '%s'; expected a whole number from 1 to 2147483647 (a simulation "
     "cannot run forever, so no 0)"},
};

/* One of our options; returns 0, or the exit status of a refusal. */
static int take_option(int c, const char *v, const char *flag, struct cli *cli)
{
    long n;
    for (size_t i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++)
        if (int_opts[i].c == c) {
            if (parse_int(v, int_opts[i].lo, int_opts[i].hi, &n))
                return fail_usage(int_opts[i].refusal, v);
            *int_opts[i].to = (int)n;
            return 0;
        }
    switch (c) {
    case 'b':
    case 'e':
    case 'i':
        if (parse_size_arg(v, c == 'b' ? &S.minb : c == 'e' ? &S.maxb : &S.stepb)) {
            char fmt[128];
            snprintf(fmt, sizeof fmt,
                     "bad size '%%s' for -%c; expected 1 byte to 1P, with an optional K, M or G",
                     c);
            return fail_usage(fmt, v);
        }
        return 0;
    case 'f':
        if (parse_int(v, 0, INT_MAX, &n))
            return fail_usage("bad factor '%s' for -f; expected a whole number from 0 to "
                              "2147483647 (0 or 1: step by -i)",
                              v);
        S.factor = n;
        return 0;
    case 'g':
    case 'P':
        if (parse_int(v, 1, PLD_MAX_RANKS, &n)) {
            fprintf(stderr,
                    "pldsim-perf: bad device count '%s' for %s; expected 1..%d (see --help)\n", v,
                    flag, PLD_MAX_RANKS);
            return 2;
        }
        cli->ngpus = (int)n;
        cli->ngpus_arg = v;
        return 0;
    case 'o': {
        static const char *const ops[] = {"sum", "max", "min", "prod"};
        S.op = 0;
        for (int k = 0; k < 4; k++)
            if (strcmp(v, ops[k]) == 0)
                S.op = (pld_reduce_op)(k + 1);
        if (!S.op)
            return fail_usage("bad --op '%s'; expected sum, prod, max or min (pld has no avg, "
                              "mulsum or all)",
                              v);
        return 0;
    }
    case 'd':
        if (strcmp(v, "float") == 0)
            S.dt = PL_FP32;
        else if (strcmp(v, "half") == 0)
            S.dt = PL_FP16;
        else
            return fail_usage("bad --datatype '%s'; expected float or half (the types of pld's "
                              "builtins)",
                              v);
        return 0;
    case 'J':
        cli->json = v;
        return 0;
    case OPT_DEVICES:
        cli->devices = v;
        return 0;
    case OPT_MODE:
        if (strcmp(v, "mesh") == 0)
            S.mode = PLD_ALLREDUCE_MESH;
        else if (strcmp(v, "ring") == 0)
            S.mode = PLD_ALLREDUCE_RING;
        else
            return fail_usage("bad --mode '%s'; expected mesh or ring", v);
        return 0;
    case OPT_CSV:
        cli->csv = v;
        return 0;
    case OPT_ALL_ITERATIONS:
        S.all_iterations = 1;
        return 0;
    default:
        fprintf(stderr,
                "pldsim-perf: ignoring %s %s: nccl-tests' flag has no meaning on the "
                "simulator\n",
                flag, v);
        return 0;
    }
}

/* Which collective `name` is (either spelling, or pldsim-<nccl name>); -1 if none. */
static int coll_by_name(const char *name)
{
    if (strncmp(name, "pldsim-", 7) == 0)
        name += 7;
    for (int k = 0; k < NCOLLS; k++)
        if (strcmp(name, colls[k].name) == 0 || strcmp(name, colls[k].nccl) == 0)
            return k;
    return -1;
}

/* Parses argv: our options here, the common ones through pld_parse_args.
 * Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, pld_config *cfg, struct cli *cli)
{
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int first = 1, k = coll_by_name(base);
    if (k < 0 && argc > 1 && argv[1][0] != '-') {
        k = coll_by_name(argv[1]);
        if (k < 0)
            return fail_usage("unknown collective '%s'; expected all_reduce_perf, "
                              "all_gather_perf, broadcast_perf, reduce_scatter_perf, "
                              "alltoall_perf, sendrecv_perf (or allreduce, allgather, "
                              "broadcast, reduce_scatter, all_to_all, sendrecv)",
                              argv[1]);
        first = 2;
    }
    /* the rest for pld_parse_args: argv[0], then what is not ours, in order */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0, rc = -1, help = 0;
    if (!rest)
        return fail_usage("out of memory%s", "");
    rest[nrest++] = argv[0];
    char shorts[128] = "-:hP:b:e:i:f:g:n:w:c:o:d:r:a:z:N:J:j:";
    size_t ns = strlen(shorts);
    for (const char *f = ignored_flags; *f; f++) {
        shorts[ns++] = *f;
        shorts[ns++] = ':';
    }
    shorts[ns] = 0;
    /* pldsim-perf's --check takes no value; nccl-tests' --check N does */
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--check") == 0 &&
            (i + 1 >= argc || argv[i + 1][0] < '0' || argv[i + 1][0] > '9'))
            argv[i] = "--check=1";
    optind = 1;
    opterr = 0;
    int sub_argc = argc - first + 1;
    char **sub = argv + first - 1; /* getopt starts at sub[1] */
    while (rc < 0) {
        int at = optind, idx = -1, c = getopt_long(sub_argc, sub, shorts, long_opts, &idx);
        if (c == -1)
            break;
        if (c == 'h') {
            help = 1;
        } else if (c == 1 || c == '?') {
            if (optind > at || c == 1)
                rest[nrest++] = c == 1 ? optarg : sub[at];
        } else if (c == ':') {
            rc = fail_usage("%s needs a value", sub[optind - 1]);
        } else {
            char flag[64];
            if (idx >= 0)
                snprintf(flag, sizeof flag, "--%s", long_opts[idx].name);
            else
                snprintf(flag, sizeof flag, "-%c", c);
            int r = take_option(c, optarg, flag, cli);
            if (r)
                rc = r;
        }
    }
    for (int i = optind; rc < 0 && i < sub_argc; i++) /* after "--" */
        rest[nrest++] = sub[i];
    rest[nrest] = NULL;
    optind = 1;
    if (rc < 0 && help) {
        usage(stdout);
        rc = 0;
    }
    if (rc < 0) {
        int prc = pld_parse_args(cfg, &nrest, rest);
        if (prc < 0)
            rc = 2;
        else if (prc == 2) /* --version */
            rc = 0;
        else if (nrest > 1)
            rc = fail_usage(rest[1][0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'",
                            rest[1]);
    }
    free(rest);
    if (rc < 0 && k < 0) {
        usage(stderr);
        rc = 2;
    }
    if (rc < 0)
        S.coll = (enum coll)k;
    return rc;
}

/* Opens -J's FILE as nccl-tests does: never over an existing file, trying
 * FILE.0, FILE.1, ... instead.  NULL after a message. */
static FILE *open_json(const char *path, char *used, size_t size)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && slash > dot) || strcasecmp(dot, ".json") != 0) {
        fprintf(stderr,
                "pldsim-perf: -J %s: only JSON output is supported: name the file "
                "*.json (see --help)\n",
                path);
        return NULL;
    }
    snprintf(used, size, "%s", path);
    for (int i = 0; i < 1000; i++) {
        int fd = open(used, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            return fdopen(fd, "w");
        if (errno != EEXIST)
            break;
        snprintf(used, size, "%s.%d", path, i);
    }
    fprintf(stderr, "pldsim-perf: cannot write the JSON output %s: %s\n", used, strerror(errno));
    return NULL;
}

/* nccl-tests' time stamp format. */
static json_t *json_now(void)
{
    char buf[64];
    time_t now = time(NULL);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", localtime(&now));
    return json_string(buf);
}

/* Lets go of the JSON document on every way out; returns `status`. */
static int done(int status)
{
    json_decref(S.results);
    json_decref(S.json);
    return status;
}

/* Builds the sweep from -b -e -f -i; 0, or the exit status of a refusal. */
static int make_sweep(void)
{
    if (S.minb > S.maxb) {
        fprintf(stderr, "pldsim-perf: -b is larger than -e (see --help)\n");
        return 2;
    }
    S.steps = malloc(MAX_SIZES * sizeof *S.steps);
    S.warm = malloc(64 * sizeof *S.warm);
    if (!S.steps || !S.warm)
        return fail_usage("out of memory%s", "");
    for (int64_t b = S.minb; b <= S.maxb;) {
        if (S.nsteps == MAX_SIZES) {
            fprintf(stderr,
                    "pldsim-perf: more than %d sizes from -b to -e; use a larger -i or "
                    "-f (see --help)\n",
                    MAX_SIZES);
            return 2;
        }
        S.steps[S.nsteps++] = make_step(b);
        if (S.factor > 1 ? b > S.maxb / S.factor : b > S.maxb - S.stepb)
            break;
        b = S.factor > 1 ? b * S.factor : b + S.stepb;
    }
    for (int64_t b = S.minb; b <= S.maxb && S.nwarm < 64; b *= 2)
        S.warm[S.nwarm++] = make_step(b).n;
    return 0;
}

/* The whole command line, as main takes it: the defaults, argv, then what
 * the flags imply (the device list, --root against it, the sweep).  Never
 * exits; returns -1 to run, or the exit status after its message (0 for
 * --help and --version).  The fuzzer (tests/fuzz/fuzz_perf_args.c) calls it
 * once per input, after perf_reset. */
static int perf_setup(int argc, char **argv, pld_config *cfg, struct cli *cli)
{
    pld_config_init(cfg);
    cfg->summary = 0;
    S.mode = PLD_ALLREDUCE_MESH;
    S.op = PLD_REDUCE_SUM;
    S.dt = PL_FP32;
    S.minb = S.maxb = 32 << 20;
    S.stepb = 1 << 20;
    S.factor = 1;
    S.iters = 20;
    S.warmup = 1;
    S.average = 1;
    S.cycles = 1;
    S.only = -1;
    *cli = (struct cli){.ngpus = 1};
    int rc = parse_args(argc, argv, cfg, cli);
    if (rc >= 0)
        return rc;
    char list[32];
    snprintf(list, sizeof list, "0-%d", cli->ngpus - 1);
    if (cli->devices && cli->ngpus_arg)
        return fail_usage("give -g or --devices, not both (-g %s)", cli->ngpus_arg);
    if (pld_config_set_devices(cfg, cli->devices ? cli->devices : list))
        return 2;
    S.P = cfg->ndevices;
    if (S.root < 0 || S.root >= S.P) {
        fprintf(stderr, "pldsim-perf: --root %d is outside the ranks 0..%d (see --help)\n", S.root,
                S.P - 1);
        return 2;
    }
    if ((rc = make_sweep()) != 0)
        return rc;
    return -1;
}

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
        return fail_usage("out of memory for %s rows", "the");
    FILE *csv = NULL, *jf = NULL;
    char json_path[4200];
    if (cli.json && !(jf = open_json(cli.json, json_path, sizeof json_path)))
        return 2;
    if (cli.csv && !(csv = fopen(cli.csv, "w"))) {
        fprintf(stderr, "pldsim-perf: cannot write %s: %s\n", cli.csv, strerror(errno));
        return 2;
    }
    cfg.no_data = S.check_iters == 0;
    if (S.check_iters) {
        int64_t w = 1;
        for (int k = 0; k < S.nsteps; k++)
            if (S.steps[k].n > w)
                w = S.steps[k].n;
        if (!(S.check_bufs = calloc((size_t)S.P, sizeof *S.check_bufs)))
            return fail_usage("out of memory for %s check buffers", "the");
        for (int r = 0; r < S.P; r++)
            S.check_bufs[r] =
                pl_tensor_new(PL_SHAPE(1, w < CHECK_COLS ? w : CHECK_COLS), S.dt, "check");
        for (int j = 0; j < 5; j++)
            S.ref[j] = reduce_over_ranks(j);
        corrupt_for_test = getenv("PLDSIM_PERF_TEST_CORRUPT") != NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &S.wall0);

    const char *prog = colls[S.coll].nccl, *mode = "builtin";
    if (S.coll == ALLREDUCE)
        mode = S.mode == PLD_ALLREDUCE_RING ? "ring" : "mesh";
    char host_name[256] = "localhost";
    gethostname(host_name, sizeof host_name - 1);
    int step_is_factor = S.factor > 1;
    long long step = step_is_factor ? (long long)S.factor : (long long)S.stepb;
    json_t *J = S.json = json_object(), *results = S.results = json_array();
    if (jf) {
        printf("# Writing JSON output to %s\n", json_path);
        json_t *args = json_array(), *env = json_array();
        for (int i = 0; i < argc; i++)
            json_array_append_new(args, json_string(argv[i]));
        /* only what shaped the run: NCCL_* and PLD_* */
        extern char **environ;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "NCCL_", 5) == 0 || strncmp(*e, "PLD_", 4) == 0)
                json_array_append_new(env, json_string(*e));
        json_object_set_new(J, "version", json_integer(3));
        json_object_set_new(J, "start_time", json_now());
        json_object_set_new(J, "args", args);
        json_object_set_new(J, "env", env);
        json_object_set_new(J, "nccl_version", json_integer(0));
    }
    printf("# nccl-tests version %s-pldsim nccl-headers=0 nccl-library=0\n", NCCL_TESTS_FORMAT);
    printf("# Collective test starting: %s\n", prog);
    printf("# nThread 1 nGpus %d minBytes %lld maxBytes %lld step: %lld(%s) warmup iters: %d "
           "iters: %d agg iters: 1 validation: %d graph: 0 unalign: 0\n",
           S.P, (long long)S.minb, (long long)S.maxb, step, step_is_factor ? "factor" : "bytes",
           S.warmup, S.iters, S.check_iters);
    if (S.blocking == 1)
        printf("# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
    if (S.blocking == 2)
        printf("# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
    if (S.blocking == 3)
        printf("# Blocking Enabled: wait and barrier after each outer iteration (-n); time "
               "excludes barrier \n");
    printf("# pldsim-perf %s: times SIMULATED by pldsim (SimGrid %s model), not measured; "
           "platform %s%s%s, %s %s\n",
           PACKAGE_VERSION, cfg.network_model, cfg.platform, cfg.topology ? ", topology " : "",
           cfg.topology ? cfg.topology : "", colls[S.coll].name, mode);
    printf("# pldsim-perf: out-of-place = %s\n",
           S.coll == ALLGATHER || S.coll == ALL_TO_ALL || S.coll == SENDRECV
               ? "in-place = the builtin reading a separate send buffer"
               : "local copy of the send buffer into the window + the in-place builtin");
    int jobs = sweep_jobs(&cfg);
    int shortcut = !S.all_iterations && strcmp(cfg.backend, "sim") == 0;
    printf("# pldsim-perf: %s\n",
           shortcut ? "calls that repeat the ones before them (to 1e-9) are derived, not "
                      "simulated; stderr and the JSON say how many (--all-iterations: none)"
                    : "every timed call is simulated (--all-iterations, or not the simulator)");
    if (jobs > 0)
        printf("# pldsim-perf: each size is a simulation of its own (its -w warm-up calls, then "
               "its rows), %d at once (-j)\n",
               jobs);
    else
        printf("# pldsim-perf: the sweep is one simulation (-w warm-up calls of every size, then "
               "every row)\n");
    printf("#\n# Using devices\n");
    json_t *devs = json_array();
    for (int r = 0; r < S.P; r++) {
        int dev = cfg.device_ids[r];
        char hex[32], info[300];
        snprintf(hex, sizeof hex, "%04x:%02x:%02x", dev >> 8 & 0xffff, dev & 0xff, 0);
        snprintf(info, sizeof info, "pldsim %s dev%d (simulated)", cfg.platform, dev);
        printf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", r, 0, (int)getpid(),
               host_name, dev, hex, info);
        json_array_append_new(devs, json_pack("{si si si ss si ss ss}", "rank", r, "group", 0,
                                              "pid", (int)getpid(), "hostname", host_name, "device",
                                              dev, "device_hex", hex, "device_info", info));
    }
    json_t *conf = json_pack("{si si sI sI}", "nthreads", 1, "ngpus", S.P, "minimum_bytes",
                             (json_int_t)S.minb, "maximum_bytes", (json_int_t)S.maxb);
    json_object_set_new(conf, step_is_factor ? "step_factor" : "step_bytes", json_integer(step));
    /* nccl-tests writes its booleans as the strings "true" and "false" */
    json_t *more =
        json_pack("{si si si si si ss ss si ss so}", "warmup_iters", S.warmup, "iterations",
                  S.iters, "aggregated_iterations", 1, "validation", S.check_iters, "graph", 0,
                  "blocking_collectives", S.blocking ? "true" : "false", "per_iter_timing", "false",
                  "per_iter_skip", 0, "parallel_init", "false", "devices", devs);
    json_object_update(conf, more);
    json_decref(more);
    json_object_set_new(J, "config", conf);
    json_object_set_new(J, "pldsim",
                        json_pack("{sb ss ss ss ss}", "simulated", 1, "platform", cfg.platform,
                                  "topology", cfg.topology ? cfg.topology : "", "collective",
                                  colls[S.coll].name, "mode", mode));
    fflush(stdout);

    /* only the simulator repeats a call exactly */
    perf_steady_enable(shortcut);
    rc = run_sweep(&cfg, jobs);
    if (rc)
        return done(rc);

    static const char *const type_names[] = {"?", "float", "half"};
    static const char *const op_names[] = {"?", "sum", "max", "min", "prod"};
    int has_op = S.coll == ALLREDUCE || S.coll == REDUCE_SCATTER || S.coll == SENDRECV;
    const char *type = type_names[S.dt == PL_FP16 ? 2 : 1], *op = has_op ? op_names[S.op] : "none";
    int root = S.coll == BROADCAST ? S.root : -1;
    printf("#\n");
    printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place     "
           "     \n",
           "", "", "", "", "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size",
           "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
           "busbw", "#wrong", 0, "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
           "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
           0, "");
    if (csv)
        fprintf(csv, "collective,mode,P,size_B,count,type,redop,root,oop_time_us,oop_algbw_GBps,"
                     "oop_busbw_GBps,oop_wrong,ip_time_us,ip_algbw_GBps,ip_busbw_GBps,ip_wrong\n");
    double sum_busbw = 0;
    long total_wrong = 0;
    long long timed_made = 0, timed_all = 0;
    for (int row = 0; row < rows; row++) {
        const struct step *st = &S.steps[row % S.nsteps];
        char root_str[16];
        snprintf(root_str, sizeof root_str, "%6i", root);
        printf("%12lld  %12lld  %8s  %6s  %6s", (long long)st->size, (long long)st->count, type, op,
               root_str);
        json_t *res = json_pack("{sI sI ss ss ss}", "size", (json_int_t)st->size, "count",
                                (json_int_t)st->count, "type", type, "redop", op, "root", root_str);
        double t[2], alg[2], bus[2];
        for (int h = 0; h < 2; h++) {
            t[h] = half_time(row, h) * 1e6;
            /* a collective that moves nothing (P = 1) takes no time: 0, not inf */
            alg[h] = t[h] > 0 ? (double)st->size / (t[h] * 1e-6) / 1e9 : 0;
            bus[h] = alg[h] * busbw_factor();
            long w = S.wrong[row * 2 + h];
            total_wrong += w;
            sum_busbw += bus[h];
            char ts[16], as[16], bs[16];
            float_str(t[h], 7, ts, sizeof ts);
            float_str(alg[h], 6, as, sizeof as);
            float_str(bus[h], 6, bs, sizeof bs);
            if (S.check_iters)
                printf("  %7s  %6s  %6s  %6g", ts, as, bs, (double)w);
            else
                printf("  %7s  %6s  %6s    N/A", ts, as, bs);
            json_object_set_new(res, h ? "in_place" : "out_of_place",
                                json_pack("{sf sf sf so}", "time", t[h], "alg_bw", alg[h], "bus_bw",
                                          bus[h], "nwrong",
                                          S.check_iters ? json_real((double)w) : json_null()));
        }
        printf("\n");
        for (int h = 0; h < 2; h++)
            timed_made += S.made[row * 2 + h];
        json_object_set_new(res, "actual_iterations", json_integer(S.iters));
        json_object_set_new(res, "pldsim",
                            json_pack("{si si}", "out_of_place_simulated_iterations",
                                      S.made[row * 2], "in_place_simulated_iterations",
                                      S.made[row * 2 + 1]));
        json_object_set_new(res, "experiment_name", json_string(""));
        json_array_append_new(results, res);
        if (csv) {
            char wr[2][24];
            for (int h = 0; h < 2; h++)
                snprintf(wr[h], sizeof wr[h], S.check_iters ? "%ld" : "N/A", S.wrong[row * 2 + h]);
            fprintf(csv, "%s,%s,%d,%lld,%lld,%s,%s,%d,%.6f,%.6f,%.6f,%s,%.6f,%.6f,%.6f,%s\n",
                    colls[S.coll].name, mode, S.P, (long long)st->size, (long long)st->count, type,
                    op, root, t[0], alg[0], bus[0], wr[0], t[1], alg[1], bus[1], wr[1]);
        }
    }
    if (csv && (ferror(csv) | fclose(csv))) {
        fprintf(stderr, "pldsim-perf: writing %s failed: %s\n", cli.csv, strerror(errno));
        return done(1);
    }
    for (int row = 0; row < rows; row++)
        timed_all += S.steps[row % S.nsteps].n ? 2LL * S.iters : 0;
    /* on stderr: nccl-tests' log ends with its footer, and parsers hold it to that */
    fprintf(stderr, "pldsim-perf: %lld of %lld timed calls simulated%s\n", timed_made, timed_all,
            timed_made < timed_all ? "; the rest repeat them (to 1e-9) and are derived "
                                     "(--all-iterations simulates all)"
                                   : "");
    double avg_bw = rows ? sum_busbw / (2.0 * rows) : 0;
    const char *min_bw_env = getenv("NCCL_TESTS_MIN_BW");
    double min_bw = min_bw_env ? atof(min_bw_env) : -1;
    int bw_failed = min_bw_env && avg_bw < min_bw * 0.9;
    printf("# %-20s : %ld %s\n", "Out of bounds values", total_wrong,
           total_wrong ? "FAILED" : "OK");
    printf("# %-20s : %g %s\n", "Avg bus bandwidth", avg_bw,
           !min_bw_env ? ""
           : bw_failed ? "FAILED"
                       : "OK");
    printf("#\n# Collective test concluded: %s\n#\n\n", prog);
    if (jf) {
        json_object_set_new(J, "results", results);
        results = S.results = NULL;
        json_object_set_new(J, "out_of_bounds",
                            json_pack("{sI ss}", "count", (json_int_t)total_wrong, "okay",
                                      total_wrong ? "false" : "true"));
        json_t *okay =
            !min_bw_env ? json_string("unchecked") : json_string(bw_failed ? "false" : "true");
        json_object_set_new(J, "average_bus_bandwidth",
                            json_pack("{sf so}", "bandwidth", avg_bw, "okay", okay));
        json_object_set_new(J, "errors", json_array());
        json_object_set_new(J, "end_time", json_now());
        if (json_dumpf(J, jf, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', jf) == EOF ||
            (ferror(jf) | fclose(jf))) {
            fprintf(stderr, "pldsim-perf: writing %s failed: %s\n", json_path, strerror(errno));
            return done(1);
        }
    }
    (void)results;
    return done(total_wrong || bw_failed ? 1 : 0);
}
#endif
