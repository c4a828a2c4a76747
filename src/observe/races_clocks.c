/* races_clocks.c: the race detector's vector clocks (docs/races.md,
 * "Happens-before").
 *
 * A clock per thread of program order.  A thread is a core: threads
 * 0 .. P-1 are the ranks (each rank's first core, and all that a rank runs
 * alone); a rank that runs several cores at once (pld__run_cores: a
 * builtin's blocks, a task graph's cores) gets a thread for each of its
 * other cores, made when first used and kept for the run, so that one core
 * of a rank is not ordered with another by what a third received.  Most
 * runs never make one, and their clocks stay P entries long.
 *
 * What orders across threads: a notify and the wait that needed it
 * (races.c), a launch (its cores start after what the launching thread did
 * before it, and the launching thread goes on after all they did), and a
 * task graph's dependencies (a task starts after what its dependencies did
 * and acquired: their snapshots).  After a thread's clock is handed on, its
 * own entry advances, so that what it does next is not ordered by that.
 *
 * Every clock has the same stride, Tcap: a new thread past it re-strides
 * them all (the threads', the cells' arrivals', the snapshots'), doubling
 * it, so that it happens a few times a run at most. */
#include "races.h"
#include "detect.h"

#include <stdlib.h>
#include <string.h>

void pld__clock_join(uint32_t *restrict to, const uint32_t *restrict from, int n)
{
    /* in blocks of eight so that -O2 vectorizes it */
    int q = 0;
    for (; q + 8 <= n; q += 8) {
        uint32_t *t = to + q;
        const uint32_t *f = from + q;
        for (int k = 0; k < 8; k++)
            t[k] = t[k] > f[k] ? t[k] : f[k];
    }
    for (; q < n; q++)
        to[q] = to[q] > from[q] ? to[q] : from[q];
}

struct pld__racer *pld__racer_new(int P)
{
    struct pld__racer *RC = calloc(1, sizeof *RC);
    if (!RC)
        return NULL;
    RC->P = RC->T = RC->Tcap = P;
    RC->vc = calloc((size_t)P * (size_t)P, sizeof *RC->vc);
    RC->mins = calloc((size_t)P, sizeof *RC->mins);
    RC->rank_of = malloc((size_t)P * sizeof *RC->rank_of);
    RC->core_of = calloc((size_t)P, sizeof *RC->core_of);
    RC->core_tid = calloc((size_t)P, sizeof *RC->core_tid);
    RC->ncore_tid = calloc((size_t)P, sizeof *RC->ncore_tid);
    if (!RC->vc || !RC->mins || !RC->rank_of || !RC->core_of || !RC->core_tid || !RC->ncore_tid) {
        pld__racer_free(RC);
        return NULL;
    }
    for (int r = 0; r < P; r++) {
        RC->vc[(size_t)r * P + r] = 1;
        RC->rank_of[r] = r;
    }
    pld__shadow_init(&RC->host);
    return RC;
}

/* Rows of `old` entries each, `rows` of them, moved in place to a stride
 * of `cap` (> old), the new entries zero; `*a` is reallocated to fit. */
static int restride(uint32_t **a, size_t rows, int old, int cap)
{
    if (!rows)
        return 0;
    uint32_t *n = realloc(*a, rows * (size_t)cap * sizeof *n);
    if (!n)
        return -1;
    for (size_t i = rows; i-- > 0;) { /* from the last: rows only move up */
        memmove(n + i * (size_t)cap, n + i * (size_t)old, (size_t)old * sizeof *n);
        memset(n + i * (size_t)cap + old, 0, (size_t)(cap - old) * sizeof *n);
    }
    *a = n;
    return 0;
}

/* Room for one more thread: every clock to a stride of twice Tcap.  -1
 * when out of memory before any clock has moved (the new thread is then
 * not made, and its core shares its launcher's, as before cores had
 * threads).  Once the threads' clocks have room, each cell's arrays move
 * on their own; a cell whose arrays cannot loses its kept arrivals. */
static int grow(struct pld__racer *RC)
{
    int old = RC->Tcap, cap = 2 * old;
    size_t n = (size_t)cap;
    int *ro = realloc(RC->rank_of, n * sizeof *ro);
    if (ro)
        RC->rank_of = ro;
    int *co = ro ? realloc(RC->core_of, n * sizeof *co) : NULL;
    if (co)
        RC->core_of = co;
    uint32_t *mi = co ? realloc(RC->mins, n * sizeof *mi) : NULL;
    if (mi)
        RC->mins = mi;
    if (!mi)
        return -1;
    /* the clocks: first make room everywhere, then move; a failed realloc
     * leaves its array as it was */
    size_t vbytes = n * n * sizeof *RC->vc;
    uint32_t *vc = malloc(vbytes);
    if (!vc)
        return -1;
    memset(vc, 0, vbytes);
    for (int t = 0; t < RC->T; t++)
        memcpy(vc + (size_t)t * n, RC->vc + (size_t)t * (size_t)old, (size_t)old * sizeof *vc);
    if (restride(&RC->snap, (size_t)RC->capsnap, old, cap)) {
        free(vc);
        return -1;
    }
    for (int i = 0; i < RC->ncells; i++)
        if (restride(&RC->cell[i].clock, (size_t)RC->cell[i].cap, old, cap) ||
            restride(&RC->cell[i].acquired, RC->cell[i].acquired ? 1 : 0, old, cap)) {
            /* cells before i moved already: undo is not possible, so drop
             * this cell's arrivals (they can no longer order a wait; the
             * detector may then report a race that an arrival would have
             * ordered, never miss one) */
            free(RC->cell[i].clock);
            free(RC->cell[i].acquired);
            free(RC->cell[i].a);
            RC->cell[i] = (struct cell){0};
        }
    free(RC->vc);
    RC->vc = vc;
    RC->Tcap = cap;
    return 0;
}

int pld__racer_thread(struct pld__racer *RC, int rank, int core)
{
    if (core <= 0)
        return rank;
    if (core >= RC->ncore_tid[rank]) {
        int n = 2 * core + 2;
        int *m = realloc(RC->core_tid[rank], (size_t)n * sizeof *m);
        if (!m)
            return -1;
        memset(m + RC->ncore_tid[rank], 0, (size_t)(n - RC->ncore_tid[rank]) * sizeof *m);
        RC->core_tid[rank] = m;
        RC->ncore_tid[rank] = n;
    }
    if (RC->core_tid[rank][core])
        return RC->core_tid[rank][core] - 1;
    if (RC->T == RC->Tcap && grow(RC))
        return -1;
    int t = RC->T++;
    uint32_t *mine = pld__clock_of(RC, t);
    memset(mine, 0, (size_t)RC->Tcap * sizeof *mine);
    mine[t] = 1;
    RC->rank_of[t] = rank;
    RC->core_of[t] = core;
    RC->core_tid[rank][core] = t + 1;
    return t;
}

void pld__racer_join(struct pld__racer *RC, int to, int from)
{
    if (to == from || to < 0 || from < 0)
        return;
    pld__clock_join(pld__clock_of(RC, to), pld__clock_of(RC, from), RC->T);
    pld__clock_of(RC, from)[from]++; /* what it does next is not ordered by this */
}

int pld__racer_snapshot(struct pld__racer *RC, int h, int t)
{
    if (h < 0) {
        for (h = 0; h < RC->capsnap && RC->snap_used[h]; h++)
            ;
        if (h == RC->capsnap) {
            int cap = RC->capsnap ? 2 * RC->capsnap : 16;
            unsigned char *u = realloc(RC->snap_used, (size_t)cap);
            if (!u)
                return -1;
            RC->snap_used = u;
            uint32_t *s = realloc(RC->snap, (size_t)cap * (size_t)RC->Tcap * sizeof *s);
            if (!s)
                return -1;
            RC->snap = s;
            memset(u + RC->capsnap, 0, (size_t)(cap - RC->capsnap));
            RC->capsnap = cap;
        }
        RC->snap_used[h] = 1;
    }
    memcpy(pld__racer_snap(RC, h), pld__clock_of(RC, t), (size_t)RC->Tcap * sizeof *RC->snap);
    pld__clock_of(RC, t)[t]++; /* what it does next is not ordered by this */
    return h;
}

void pld__racer_snapshot_join(struct pld__racer *RC, int t, int h)
{
    if (h >= 0 && t >= 0)
        pld__clock_join(pld__clock_of(RC, t), pld__racer_snap(RC, h), RC->T);
}

void pld__racer_snapshot_free(struct pld__racer *RC, int h)
{
    if (h >= 0 && h < RC->capsnap)
        RC->snap_used[h] = 0;
}

/* ---- the hooks: launches and task graphs ---- */

int pld__races_thread(int me)
{
    return pld__R->racer ? pld__race_thread_of(me) : -1;
}

/* The thread of core `core` of a launch by thread `launcher` of rank
 * `me`: the launcher's own for core 0 (it waits for the launch), else the
 * rank's thread for that core; a launch from that very thread (a task on
 * core c launching cores) gives its core c the rank's own.  Out of memory:
 * the launcher's, as before cores had threads of their own. */
static int core_thread(struct pld__racer *RC, int me, int core, int launcher)
{
    int t = core == 0 ? launcher : pld__racer_thread(RC, me, core);
    if (t == launcher && core != 0)
        t = me;
    return t < 0 ? launcher : t;
}

void pld__races_cores_begin(int me, int n, int launcher)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC || launcher < 0)
        return;
    /* all before any core runs: a core that started late must not learn
     * what core 0 (the launcher's thread) did meanwhile */
    for (int c = 1; c < n; c++) {
        int t = core_thread(RC, me, c, launcher); /* first: a new thread may move the clocks */
        pld__clock_join(pld__clock_of(RC, t), pld__clock_of(RC, launcher), RC->T);
    }
    pld__clock_of(RC, launcher)[launcher]++;
}

void pld__races_core_enter(int me, int core, int launcher)
{
    struct pld__racer *RC = pld__R->racer;
    if (RC && launcher >= 0)
        pld__R->ranks[me].race_thread = core_thread(RC, me, core, launcher) + 1;
}

void pld__races_cores_done(int me, int n, int launcher)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC || launcher < 0)
        return;
    for (int c = 1; c < n; c++)
        pld__racer_join(RC, launcher, core_thread(RC, me, c, launcher));
    pld__R->ranks[me].race_thread = launcher + 1;
}

int pld__races_snapshot(int me, int h)
{
    struct pld__racer *RC = pld__R->racer;
    return RC ? pld__racer_snapshot(RC, h, pld__race_thread_of(me)) : -1;
}

void pld__races_snapshot_join(int me, int h)
{
    if (pld__R->racer)
        pld__racer_snapshot_join(pld__R->racer, pld__race_thread_of(me), h);
}

void pld__races_snapshot_free(int h)
{
    if (pld__R->racer)
        pld__racer_snapshot_free(pld__R->racer, h);
}

void pld__racer_free(struct pld__racer *RC)
{
    if (!RC)
        return;
    pld__ptrmap_free(&RC->cells);
    for (int i = 0; i < RC->ncells; i++) {
        free(RC->cell[i].a);
        free(RC->cell[i].clock);
        free(RC->cell[i].acquired);
    }
    free(RC->cell);
    for (int b = 0; b < RC->nbufs; b++) {
        for (int c = 0; RC->shadow[b] && c < RC->P; c++)
            free(RC->shadow[b][c].r);
        free(RC->shadow[b]);
    }
    free(RC->shadow);
    free(RC->host.r);
    free(RC->seen);
    free(RC->found);
    free(RC->mins);
    free(RC->vc);
    for (int r = 0; RC->core_tid && r < RC->P; r++)
        free(RC->core_tid[r]);
    free(RC->core_tid);
    free(RC->ncore_tid);
    free(RC->rank_of);
    free(RC->core_of);
    free(RC->snap);
    free(RC->snap_used);
    free(RC);
}
