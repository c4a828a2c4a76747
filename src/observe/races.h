/* races.h: the data-race detector's own types (races.c, races_shadow.c,
 * races_report.c; private to the three).  races.c holds the rules: vector
 * clocks, signal cells and what conflicts; races_report.c the report;
 * races_shadow.c the interval structure it keeps the accesses in: a treap
 * of row sets per copy. */
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
    int rank;
    uint32_t epoch;
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
    struct arrival {
        int32_t value, delta; /* the value it left; what it added (0: a Set) */
        int rank;
    } * a;
    uint32_t *clock; /* n x P: the join of the arrivals' clocks up to each */
};

/* Where an access went, for the report. */
struct where {
    const struct pld__wbuf *b; /* NULL: host memory */
    int copy;
};

struct pld__racer {
    int P;
    uint32_t *vc;             /* P x P: vc[r * P + q] = what rank r knows of rank q */
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
    uint32_t *mins; /* P: what every rank knows of each */
    int flights;    /* put_asyncs issued (pld__racer_flight) */
};

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
