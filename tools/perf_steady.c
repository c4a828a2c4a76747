/* perf_steady.c: the repeat detection of perf_steady.h.
 *
 * The ranks' end times of their last RING calls are kept in a ring.  The
 * rank that finishes call k last (a count per call says which) compares
 * every rank's durations of the calls k-2p+1 .. k with those one period p
 * earlier.  On a repeat, the ranks stop after the furthest call any of them
 * has begun: a rank already inside a call cannot leave it, and every rank
 * must make the same calls, or the collectives would wait forever.
 *
 * Why the calls made plus the derived ones equal a full run: calls up to k
 * ran exactly as in a full run (the stop was decided after them); the last
 * call made ends without a next call behind it, as a full run's last call
 * does (and in the same phase of the period); the calls between repeat.
 * So a full run is this one with whole periods of the repeating calls
 * inserted before the last. */
#include "perf_steady.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* How many calls back a rank's end times are kept: ranks of one collective
 * are never that many calls apart (when they are, the shortcut is off for
 * the loop, which is then run whole). */
#define RING             16
#define MAX_PERIOD       2
#define REPEAT_TOLERANCE 1e-9

static struct {
    int P, on;
    /* the loop: which one (counted by the first rank to begin it), its
     * length, the last call every rank makes (-1: all), the furthest call
     * begun, and the period found (0: none yet) */
    int64_t loop;
    int iters, stop_at, max_started, period, possible;
    int64_t *rank_loop; /* [P]: loops each rank has begun */
    int *last;          /* [P]: each rank's last finished call */
    double *t0;         /* [P]: each rank's start of the loop */
    double *t, *x;      /* [P][RING]: end time and excluded time so far, of call i at i % RING */
    double *dur, *exc;  /* [P][MAX_PERIOD]: the repeating durations, by call % period */
    int slot_call[RING], slot_count[RING];
} T;

int perf_steady_init(int P)
{
    T.P = P;
    T.rank_loop = calloc((size_t)P, sizeof *T.rank_loop);
    T.last = calloc((size_t)P, sizeof *T.last);
    T.t0 = calloc((size_t)P, sizeof *T.t0);
    T.t = calloc((size_t)P * RING, sizeof *T.t);
    T.x = calloc((size_t)P * RING, sizeof *T.x);
    T.dur = calloc((size_t)P * MAX_PERIOD, sizeof *T.dur);
    T.exc = calloc((size_t)P * MAX_PERIOD, sizeof *T.exc);
    if (!T.rank_loop || !T.last || !T.t0 || !T.t || !T.x || !T.dur || !T.exc) {
        perf_steady_free();
        return -1;
    }
    return 0;
}

void perf_steady_free(void)
{
    free(T.rank_loop);
    free(T.last);
    free(T.t0);
    free(T.t);
    free(T.x);
    free(T.dur);
    free(T.exc);
    T.rank_loop = NULL;
    T.last = NULL;
    T.t0 = T.t = T.x = T.dur = T.exc = NULL;
}

void perf_steady_enable(int on)
{
    T.on = on;
}

void perf_steady_begin(int me, int iters, double t0)
{
    /* off (threads, mpi: ranks run at once), only this rank's entries */
    T.t0[me] = t0;
    T.last[me] = -1;
    if (!T.on)
        return;
    if (++T.rank_loop[me] > T.loop) { /* the first rank in: a fresh loop */
        T.loop = T.rank_loop[me];
        T.iters = iters;
        T.stop_at = -1;
        T.max_started = -1;
        T.period = 0;
        T.possible = 1;
        for (int s = 0; s < RING; s++) {
            T.slot_call[s] = -1;
            T.slot_count[s] = 0;
        }
    }
}

int perf_steady_go(int me, int it)
{
    (void)me;
    if (!T.on)
        return 1;
    if (T.stop_at >= 0 && it > T.stop_at)
        return 0;
    if (it > T.max_started)
        T.max_started = it;
    return 1;
}

/* Rank r's end time and excluded time of call i (call -1: the start). */
static double end_of(int r, int i)
{
    return i < 0 ? T.t0[r] : T.t[(size_t)r * RING + (size_t)(i % RING)];
}
static double excl_of(int r, int i)
{
    return i < 0 ? 0 : T.x[(size_t)r * RING + (size_t)(i % RING)];
}

/* Equal but for the rounding of clocks that read `time`.  Ranks' clocks
 * are sums of different terms (a 32 MiB call adds up some 100 000 pieces),
 * so their durations differ by up to 2e-12 of the duration and drift by as
 * much from call to call: no bit-for-bit repeat ever comes.  1 part in 1e9
 * of the duration is above that rounding, and 20 derived calls stay 2e-8
 * from a full run, far below the 6 digits a row prints. */
static int same(double a, double b, double time)
{
    return fabs(a - b) <= REPEAT_TOLERANCE * fabs(b) + 64 * DBL_EPSILON * fabs(time);
}

/* Whether every rank's calls k-p+1 .. k repeat calls k-2p+1 .. k-p, and
 * every rank advanced by the same time over them; if so, their durations
 * are kept and the stop is set. */
static int repeats(int k, int p)
{
    if (k - 2 * p < -1)
        return 0;
    for (int r = 0; r < T.P; r++)
        if (T.last[r] - (k - 2 * p) >= RING) /* overwritten: a rank ran ahead */
            return 0;
    double span0 = end_of(0, k) - end_of(0, k - p);
    for (int r = 0; r < T.P; r++) {
        double now = end_of(r, k);
        for (int i = k - p + 1; i <= k; i++) {
            double d = end_of(r, i) - end_of(r, i - 1),
                   dp = end_of(r, i - p) - end_of(r, i - p - 1);
            double e = excl_of(r, i) - excl_of(r, i - 1),
                   ep = excl_of(r, i - p) - excl_of(r, i - p - 1);
            if (!same(d, dp, now) || !same(e, ep, now))
                return 0;
        }
        if (!same(end_of(r, k) - end_of(r, k - p), span0, fmax(now, end_of(0, k))))
            return 0;
    }
    for (int r = 0; r < T.P; r++)
        for (int i = k - p + 1; i <= k; i++) {
            T.dur[(size_t)r * MAX_PERIOD + (size_t)(i % p)] = end_of(r, i) - end_of(r, i - 1);
            T.exc[(size_t)r * MAX_PERIOD + (size_t)(i % p)] = excl_of(r, i) - excl_of(r, i - 1);
        }
    T.period = p;
    /* the last call made ends as a full run's last does, so it must be in
     * the same phase as call iters-1: then the calls left out are whole
     * periods of the repeat */
    T.stop_at = T.max_started + ((T.iters - 1 - T.max_started) % p + p) % p;
    return 1;
}

void perf_steady_done(int me, int it, double now, double excluded)
{
    T.last[me] = it;
    if (!T.on)
        return;
    T.t[(size_t)me * RING + (size_t)(it % RING)] = now;
    T.x[(size_t)me * RING + (size_t)(it % RING)] = excluded;
    if (!T.possible || T.period)
        return;
    int s = it % RING;
    if (T.slot_call[s] != it) {
        if (T.slot_call[s] >= 0 && T.slot_count[s] < T.P) { /* ranks RING calls apart */
            T.possible = 0;
            return;
        }
        T.slot_call[s] = it;
        T.slot_count[s] = 0;
    }
    if (++T.slot_count[s] < T.P)
        return;
    for (int p = 1; p <= MAX_PERIOD; p++) /* this rank finished call `it` last */
        if (repeats(it, p))
            return;
}

/* How many of the calls a .. b (a >= 1) are q modulo p. */
static int64_t calls_of_phase(int64_t a, int64_t b, int p, int q)
{
    if (b < a)
        return 0;
    int64_t first = a + ((q - a % p) % p + p) % p;
    return first > b ? 0 : (b - first) / p + 1;
}

double perf_steady_end(int me, double now, double excluded, int *made)
{
    int last = T.last[me];
    *made = last + 1;
    double measured = now - T.t0[me] - excluded;
    if (!T.on || !T.period || last >= T.iters - 1)
        return measured;
    double rest = 0;
    for (int q = 0; q < T.period; q++)
        rest += (double)calls_of_phase(last + 1, T.iters - 1, T.period, q) *
                (T.dur[(size_t)me * MAX_PERIOD + (size_t)q] -
                 T.exc[(size_t)me * MAX_PERIOD + (size_t)q]);
    return measured + rest;
}
