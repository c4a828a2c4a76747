/* races.h: the data-race detector's own types (races.c, races_clocks.c,
 * races_shadow.c, races_report.c; private to the four).  races.c holds the
 * rules: signal cells, accesses and what conflicts; races_clocks.c the
 * vector clocks, one per thread (a core of a rank) and per task snapshot;
 * races_report.c the report; races_shadow.c the interval structure it
 * keeps the accesses in: a treap of row sets per copy. */
#ifndef PLD_RACES_H
#define PLD_RACES_H

#include "internal.h"
#include "backend.h"
#include "ptrmap.h"

struct rec {
    int64_t lo, len, stride, n; /* rows lo + i * stride, i < n; n == 1: stride == len */
    int64_t end;                /* lo + (n - 1) * stride + len */
    int64_t max;                /* the largest end in the subtree */
    int l, r;                   /* children, -1 for none; l: the next free one */
    uint32_t prio;
    int rank;       /* whose access, for the report */
    int tid;        /* the thread (a core of that rank) whose program order it is in */
    uint32_t epoch; /* that thread's own clock entry at the access */
    unsigned write : 1, atomic : 1, live : 1;
    unsigned set : 1;      /* a notify's Set: atomic, but its order with a peer's update counts */
    unsigned notify : 1;   /* a notify's update of its cell (Set or AtomicAdd), for the report */
    unsigned inflight : 1; /* a put_async's, until its wait (pld__racer_landed) */
    int32_t value;         /* an atomic write's: a Set's value, an add's (0: changes nothing) */
    int flight;            /* which put_async's, when inflight */
    const char *op, *file;
    int line;
    double t; /* the first access's, when several joined */
};

#define HINTS 4 /* records a loop may be extending: load, store, a peer's access */

struct shadow {
    struct rec *r;
    int cap, root, free, n;
    int gc_at;       /* sweep for records every rank has passed above this many */
    int hint[HINTS]; /* recently made or grown records, most recent first */
    uint32_t rng;    /* treap priorities */
};

/* A cell's arrivals since its last Set or since its owner's last wait. */
struct cell {
    int n, cap;
    int32_t floor;   /* the value before the first arrival kept */
    int floor_fails; /* a Set is the first: no earlier value counts */
    /* The arrivals a wait acquired and dropped since the last Set, for a
     * wait of another core of the owner that needs them too: the value
     * before them (base, and base_fails as floor_fails) and the join of
     * their clocks (Tcap entries; NULL until a wait acquires). */
    int32_t base;
    int base_fails;
    uint32_t *acquired;
    struct arrival {
        int32_t value, delta; /* the value it left; what it added (0: a Set) */
        int tid;              /* the notifier's thread, */
        uint32_t epoch;       /* and its own clock entry at the notify */
    } * a;
    uint32_t *clock; /* n x Tcap: the join of the arrivals' clocks up to each */
};

/* Where an access went, for the report. */
struct where {
    const struct pld__wbuf *b; /* NULL: host memory */
    int copy;
};

/* The threads of program order: threads 0 .. P-1 are the ranks (each
 * rank's first core, and what it runs alone); a rank running several cores
 * at once (pld__run_cores) gets a thread for each other core, made when
 * first used and kept for the run (races_clocks.c). */
struct pld__racer {
    int P;
    int T, Tcap;              /* threads so far; the stride of every clock (T <= Tcap) */
    uint32_t *vc;             /* Tcap x Tcap: vc[t * Tcap + q] = what thread t knows of q */
    int *rank_of, *core_of;   /* each thread's rank, and its core there (0: the rank's own) */
    int **core_tid;           /* per rank: core_tid[r][c] = 1 + the thread of core c, or 0 */
    int *ncore_tid;           /* per rank: entries of core_tid[r] */
    uint32_t *snap;           /* task snapshots (pld__racer_snapshot): capsnap x Tcap */
    unsigned char *snap_used; /* capsnap: in use */
    int capsnap;
    struct pld__ptrmap cells; /* cell address -> 1 + index in cell[] */
    struct cell *cell;
    int ncells, capcells;
    struct shadow **shadow; /* per buffer id, per copy */
    int nbufs;
    struct shadow host; /* host tensors, by address */
    /* reported pairs of source locations */
    struct {
        const char *f1, *f2;
        int l1, l2;
    } * seen;
    int nseen, capseen;
    int races;
    void (*on_race)(void *ctx, const char *f1, int l1, const char *f2, int l2);
    void *on_race_ctx;
    int64_t *found; /* query results */
    int capfound;
    uint32_t *mins; /* Tcap: what every thread knows of each */
    int flights;    /* put_asyncs issued (pld__racer_flight) */
};

/* ---- the clocks (races_clocks.c) ---- */

/* Thread t's clock: Tcap entries, the first T in use. */
static inline uint32_t *pld__clock_of(const struct pld__racer *RC, int t)
{
    return RC->vc + (size_t)t * (size_t)RC->Tcap;
}
/* The thread of rank `me`'s executing core (its kernel state says which). */
static inline int pld__race_thread_of(int me)
{
    int t = pld__R->ranks[me].race_thread;
    return t > 0 ? t - 1 : me;
}
/* Snapshot h's clock (pld__racer_snapshot): Tcap entries. */
static inline uint32_t *pld__racer_snap(const struct pld__racer *RC, int h)
{
    return RC->snap + (size_t)h * (size_t)RC->Tcap;
}
/* to[q] = max(to[q], from[q]) for q < n. */
void pld__clock_join(uint32_t *restrict to, const uint32_t *restrict from, int n);

/* ---- the interval structure (races_shadow.c) ---- */

/* An empty set of records. */
void pld__shadow_init(struct shadow *s);
/* Adds a copy of `now` (its row set made canonical); returns its index, or
 * -1 when out of memory. */
int pld__shadow_add(struct shadow *s, const struct rec *now);
/* Removes record x. */
void pld__shadow_drop(struct shadow *s, int x);
/* After a sweep of a copy with P ranks: sets where the next one comes
 * (twice the records left, and at least 2P within 16..64). */
void pld__shadow_swept(struct shadow *s, int P);
/* Makes x the most recent of the records a loop may be extending. */
void pld__shadow_hint(struct shadow *s, int x);
/* Grows x (same rank, epoch, kind and site as now) to the union of both
 * when that is one row set; returns whether it did. */
int pld__shadow_grow(struct shadow *s, int x, const struct rec *now);
/* Appends to RC->found (*nf of them so far) the records of the subtree t
 * of r whose span meets [lo, hi). */
void pld__shadow_query(struct pld__racer *RC, const struct rec *r, int t, int64_t lo, int64_t hi,
                       int *nf);
/* Makes x's row set canonical (rows back to back are one run) and sets its end. */
void pld__rows_set_end(struct rec *x);
/* The first bytes where a and b meet, in [*lo, *hi); 0 if they do not. */
int pld__rows_meet(const struct rec *a, const struct rec *b, int64_t *lo, int64_t *hi);
/* Does every row of a lie in a row of w? */
int pld__rows_covers(const struct rec *w, const struct rec *a);
/* Are a and b the same rank's access from the same op and source line? */
int pld__rec_same_site(const struct rec *a, const struct rec *b);
/* Do a and b conflict if unordered?  At least one writes, and not both are
 * atomic, or both write one cell in an order that changes its value: a Set
 * against a Set of another value or an add of other than 0. */
int pld__rec_conflict(const struct rec *a, const struct rec *b);
/* Does every access that conflicts with a also conflict with w? */
int pld__rec_conflicts_as_much(const struct rec *w, const struct rec *a);

/* races_report.c: reports that `old` and `now` race on bytes [lo, hi) of
 * `w`, unless their pair of source lines was reported already (or hands
 * the pair to RC->on_race); counts it in RC->races. */
void pld__races_report(struct pld__racer *RC, const struct rec *old, const struct rec *now,
                       struct where w, int64_t lo, int64_t hi);

#endif
