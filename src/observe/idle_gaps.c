/* idle_gaps.c: where each rank does nothing but wait.  A gap is a hole in
 * the union of the spans of a rank's ops other than waits: its cores may
 * run several ops at once, so an op's end is not the start of a gap while
 * another op of the rank still runs.  The time before a rank's first op
 * (the host has not dispatched it yet) and after its last are gaps too:
 * on a run whose ranks start one dispatch apart, the first of them is
 * the launch skew.  Holes of a nanosecond or less are not gaps. */
#include "trace.h"

#include <stdlib.h>

/* s: a shorter hole is not a gap.  The JSON trace keeps times to the
 * nanosecond, and ops that follow each other there can leave holes of a
 * rounding step between them. */
#define MIN_GAP 1e-9

static const struct pld__event *order_ev; /* for by_rank_start (qsort has no context) */

/* Event indices by rank, then start, then end. */
static int by_rank_start(const void *pa, const void *pb)
{
    const struct pld__event *a = &order_ev[*(const size_t *)pa],
                            *b = &order_ev[*(const size_t *)pb];
    if (a->rank != b->rank)
        return a->rank - b->rank;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    return (a->t1 > b->t1) - (a->t1 < b->t1);
}

static int is_wait(const struct pld__event *e)
{
    return pld__ops[e->id].kind == PLD__KIND_WAIT;
}

/* Appends a gap; 0 or -1. */
static int add_gap(struct pld__idle_gap **g, size_t *n, size_t *cap, struct pld__idle_gap gap)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        struct pld__idle_gap *ng = realloc(*g, c * sizeof *ng);
        if (!ng)
            return -1;
        *g = ng, *cap = c;
    }
    (*g)[(*n)++] = gap;
    return 0;
}

int pld__idle_gaps(const struct pld__trace *t, int P, double end, struct pld__idle_gap **gaps,
                   size_t *n)
{
    size_t *idx = malloc((t->n + 1) * sizeof *idx), m = 0, cap = 0;
    double *ws = malloc((2 * t->n + 1) * sizeof *ws); /* a rank's waits, merged: [s, e) pairs */
    *gaps = NULL, *n = 0;
    if (!idx || !ws) {
        free(idx), free(ws);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].rank >= 0 && t->ev[i].rank < P)
            idx[m++] = i;
    order_ev = t->ev;
    qsort(idx, m, sizeof *idx, by_rank_start);
    size_t at = 0;
    for (int r = 0; r < P; r++) {
        size_t lo = at, nw = 0;
        while (at < m && t->ev[idx[at]].rank == r)
            at++;
        for (size_t i = lo; i < at; i++) { /* starts are sorted: merge as they come */
            const struct pld__event *e = &t->ev[idx[i]];
            if (!is_wait(e) || e->t1 <= e->t0)
                continue;
            if (nw && e->t0 <= ws[2 * nw - 1]) {
                if (e->t1 > ws[2 * nw - 1])
                    ws[2 * nw - 1] = e->t1;
            } else {
                ws[2 * nw] = e->t0, ws[2 * nw + 1] = e->t1, nw++;
            }
        }
        size_t k = 0;       /* the first merged wait that may still overlap a gap */
        double covered = 0; /* the busy spans' union reaches this far */
        for (size_t i = lo; i <= at; i++) {
            if (i < at && is_wait(&t->ev[idx[i]]))
                continue;
            double start = i < at ? t->ev[idx[i]].t0 : end;
            if (start > covered + MIN_GAP) {
                while (k < nw && ws[2 * k + 1] <= covered)
                    k++;
                struct pld__idle_gap g = {r, covered, start, k < nw && ws[2 * k] < start,
                                          i < at ? (long)idx[i] : -1};
                if (add_gap(gaps, n, &cap, g) != 0) {
                    free(idx), free(ws), free(*gaps);
                    *gaps = NULL, *n = 0;
                    return -1;
                }
            }
            if (i < at && t->ev[idx[i]].t1 > covered)
                covered = t->ev[idx[i]].t1;
        }
    }
    free(idx), free(ws);
    return 0;
}
