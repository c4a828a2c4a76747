/* perf_kernel.c: the simulated program: the host makes the windows, and
 * each rank runs nccl-tests' warm-up and timed calls (its BenchTime) of
 * every row it is given. */
#include "perf.h"
#include "perf_steady.h"

int perf_window_rows(void)
{
    return S.coll->per_peer_rows ? S.P : 1;
}

/* Rank a's views of the window rows for a call of n elements each. */
static struct views views_of(const struct dev_args *a, int64_t n)
{
    int rows = perf_window_rows();
    return (struct views){pld_window((pld_buffer){a->target.win}, PL_SHAPE(rows, n), S.dt),
                          pld_window((pld_buffer){a->input.win}, PL_SHAPE(rows, n), S.dt),
                          S.coll->two_targets
                              ? pld_window((pld_buffer){a->target2.win}, PL_SHAPE(rows, n), S.dt)
                              : (pld_dtensor){0},
                          rows, n};
}

/* The out-of-place half of an in-place builtin copies the send buffer into
 * the window first, and that copy is part of the call.  Two targets take
 * turns on odd calls (perf_broadcast.c says why); the next call's opening
 * barrier orders the one after. */
void perf_one_call(const struct dev_args *a, const struct views *views, int half, int it)
{
    int me = a->rank;
    struct views alt = *views;
    const struct views *v = views;
    if (S.coll->two_targets && half == 0 && it % 2) {
        alt.tgt = views->tgt2;
        v = &alt;
    }
    if (S.coll->in_place && half == 0)
        pld_tensor_put(v->tgt, .peer = me, .src = v->in, .chunk_cols = 4096);
    S.coll->call(a, v);
}

/* nccl-tests' BenchTime for one half of one row: -n calls back to back
 * (-z 1 and 3: a barrier after each), this rank's time per call, then -c
 * checked calls. */
static void bench_half(const struct dev_args *a, int row, const struct step *st, int half)
{
    int me = a->rank;
    if (st->n == 0) { /* nothing to move: pld has no empty collective */
        *perf_rank_time(row, half, me) = 0;
        return;
    }
    struct views v = views_of(a, st->n);
    pld_tensor_barrier(a->bar); /* every rank starts together */
    double excluded = 0;
    perf_steady_begin(me, S.iters, pld_time());
    for (int it = 0; it < S.iters && perf_steady_go(me, it); it++) {
        perf_one_call(a, &v, half, it);
        if (S.blocking == 1 || S.blocking == 3) {
            double b0 = pld_time();
            pld_tensor_barrier(a->bar);
            if (S.blocking == 3)
                excluded += pld_time() - b0;
        }
        perf_steady_done(me, it, pld_time(), excluded);
    }
    int made;
    *perf_rank_time(row, half, me) = perf_steady_end(me, pld_time(), excluded, &made) / S.iters;
    if (me == 0)
        S.made[row * 2 + half] = made;
    /* results are read (or ignored); line everyone up before the next call
     * writes into the same windows */
    pld_tensor_barrier(a->bar);
    for (int c = 0; c < S.check_iters; c++) {
        long w = perf_checked_call(a, &v, st->n, half);
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
        perf_one_call(a, &v, 0, it);
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
                if (S.one_half == 0 || S.one_half == half + 1)
                    bench_half(a, row, &S.steps[k], half);
            if (me == 0 && S.only < 0 && perf_wall_now() - S.last_progress > 1.0) {
                S.last_progress = perf_wall_now();
                fprintf(stderr, "%s: %lld bytes done (row %d of %d), %.1f s\n", perf_prog,
                        (long long)S.steps[k].size, row + 1, S.cycles * S.nsteps, S.last_progress);
            }
        }
}

/* Each device's orchestrator: the sweep as one kernel. */
static void per_device(const struct dev_args *a)
{
    pl_incore(sweep_kernel, a);
}

/* Windows big enough for the largest row, one task per rank. */
void perf_host(const void *unused)
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
    int rows = perf_window_rows(), ring_rows = 2 * (S.P - 1) > 0 ? 2 * (S.P - 1) : 1;
    pld_buffer target = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "target");
    pld_buffer input = pld_alloc_window_buffer(PL_SHAPE(rows, max_row), S.dt, .name = "input");
    int64_t t2_row = S.coll->two_targets ? max_row : line;
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
