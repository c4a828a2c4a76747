/* races.c: the data-race detector (docs/races.md).
 *
 * Happens-before comes from vector clocks, one per thread: a core of a
 * rank (races_clocks.c; a rank that runs one core at a time is one
 * thread).  Program order within a thread is one source of edges; a
 * notify (release) and a wait that needed it (acquire) another; a launch
 * and a task graph's dependencies the last (races_clocks.c).  A thread's
 * own component advances after each notify, so what it does after a
 * notify is not ordered by it.
 *
 * Which notifies a wait needed: per cell, the detector keeps the arrivals
 * since the last Set (or since the owner's last wait), each with the value
 * it left and the join of the clocks of the arrivals up to it.  A wait
 * acquires that join at the arrival after which its condition held without
 * a break until the wait read the cell: for AtomicAdd, the updates that
 * brought the cell to its threshold; for a Set, the Set (and the adds it
 * needed after it).  A condition that held before any arrival acquires
 * nothing.  Only the owner rank waits on a cell, so once one of its waits
 * has acquired up to an arrival the earlier ones can go: what they ordered
 * is kept as one clock for the cell, which a later wait on another core of
 * the owner acquires whole unless its condition held before them too (a
 * join that may order more than the fewest arrivals it needed; a wait on
 * the same core adds nothing with it).
 *
 * Accesses: per window buffer and per rank's copy (and one for all host
 * tensor memory, by address) a treap of records keyed by their first byte,
 * each with the largest end in its subtree, so that the records a byte
 * range overlaps are found in O(log n + k).  A record is a set of rows
 * (lo + i * stride, len bytes each, i < n): a multi-row region is one
 * record, and the next access of a loop from the same line, rank, epoch and
 * kind joins it when the union stays one such set.  Two accesses conflict
 * when they come from different ranks, overlap, at least one writes, not
 * both are atomic, and neither happens before the other.  Notifies are
 * atomic writes of their cell, but two whose order changes the value the
 * cell is left with (a Set against a Set of another value or an add of
 * other than 0) conflict too: which lands first depends on the timing, not
 * on the program, so a forged arrival is caught whichever does.  Each pair
 * of source lines is reported once, on one line.
 *
 * Nothing is dropped that could still race, so every racing pair of lines
 * is reported (there is no history limit).  A record goes when
 *  - every rank's clock has passed it: no later access can be unordered
 *    with it;
 *  - a later access from the same rank and source line covers its bytes and
 *    conflicts with everything it conflicts with (a plain write covers all;
 *    a read covers reads; an atomic covers atomics of its kind or weaker).
 *    Any later access that races with the old record then also races with
 *    the new one: it overlaps it, conflicts with it, and cannot be ordered
 *    after it without being ordered after the old one too.  The pair of
 *    lines it names is the same, so the set of reported pairs is too (the
 *    report shows the newer access's time and bytes).
 * tests/unit/check_races_prop.c checks this against an all-pairs reference.
 *
 * Vector clocks cost P entries per rank and per arrival kept, so the
 * default (--races=error) applies up to 64 ranks, upstream's limit; above
 * that the detector is off unless asked for. */
#include "races.h"
#include "mem.h"
#include "detect.h"

#include <stdlib.h>
#include <string.h>

void pld__racer_on_race(struct pld__racer *RC,
                        void (*fn)(void *ctx, const char *f1, int l1, const char *f2, int l2),
                        void *ctx)
{
    RC->on_race = fn;
    RC->on_race_ctx = ctx;
}

int pld__racer_races(const struct pld__racer *RC)
{
    return RC->races;
}

void pld__races_begin(struct pld__run *R)
{
    int mode = R->cfg->races;
    if (mode == PLD_RACES_DEFAULT)
        mode = R->P <= 64 ? PLD_RACES_ERROR : PLD_RACES_OFF;
    /* the detector follows the simulator's one-actor-at-a-time execution;
     * on real backends ThreadSanitizer is the tool (--enable-tsan) */
    if (!(R->be->caps & PLD_CAP_TIMED))
        mode = PLD_RACES_OFF;
    R->races_mode = mode;
    if (mode != PLD_RACES_OFF)
        R->racer = pld__racer_new(R->P);
}

int pld__races_found(const struct pld__run *R)
{
    return R->racer ? R->racer->races : 0;
}

void pld__races_free(struct pld__run *R)
{
    pld__racer_free(R->racer);
    R->racer = NULL;
}

/* ---- signal cells ---- */

static struct cell *cell_of(struct pld__racer *RC, const int32_t *addr, int make)
{
    if (!make) {
        const uint64_t *v = pld__ptrmap_find(&RC->cells, (uintptr_t)addr);
        return v && *v ? &RC->cell[*v - 1] : NULL;
    }
    uint64_t *v = pld__ptrmap_put(&RC->cells, (uintptr_t)addr, NULL);
    if (!v)
        return NULL;
    if (*v) /* 0: new, or its cell could not be made last time */
        return &RC->cell[*v - 1];
    if (RC->ncells == RC->capcells) {
        int cap = RC->capcells ? 2 * RC->capcells : 64;
        struct cell *nc = realloc(RC->cell, (size_t)cap * sizeof *nc);
        if (!nc)
            return NULL; /* *v stays 0: the next release tries again */
        RC->cell = nc;
        RC->capcells = cap;
    }
    RC->cell[RC->ncells] = (struct cell){0};
    *v = (uint64_t)++RC->ncells;
    return &RC->cell[RC->ncells - 1];
}

/* The arrival of an update at `addr`, which left it as it is now, from
 * thread `me` with the vector clock `from` (its first n entries; from[me]
 * is the notifier's own entry at the notify). */
static void arrive(struct pld__racer *RC, int me, const int32_t *addr, pld_notify_op op,
                   int32_t value, const uint32_t *from, int n)
{
    struct cell *c = cell_of(RC, addr, 1);
    size_t S = (size_t)RC->Tcap;
    if (c && !c->a) /* the first arrival: the value before it */
        c->floor = (int32_t)((uint32_t)*addr - (uint32_t)value);
    if (c && op == PLD_NOTIFY_SET) { /* what came before cannot satisfy a wait any more */
        c->n = 0;
        c->floor_fails = 1;
        free(c->acquired);
        c->acquired = NULL;
    }
    if (c && c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 1; /* most cells see one arrival per wait */
        struct arrival *na = realloc(c->a, (size_t)cap * sizeof *na);
        if (na)
            c->a = na;
        uint32_t *nk = na ? realloc(c->clock, (size_t)cap * S * sizeof *nk) : NULL;
        if (nk) {
            c->clock = nk;
            c->cap = cap;
        }
    }
    if (c && c->n < c->cap) {
        uint32_t *k = c->clock + (size_t)c->n * S;
        if (c->n)
            memcpy(k, k - S, S * sizeof *k);
        else
            memset(k, 0, S * sizeof *k);
        pld__clock_join(k, from, n);
        c->a[c->n++] = (struct arrival){
            .value = *addr, /* as the update left it */
            .delta = op == PLD_NOTIFY_SET ? 0 : value,
            .tid = me,
            .epoch = from[me],
        };
    }
}

void pld__racer_release(struct pld__racer *RC, int me, const int32_t *addr, pld_notify_op op,
                        int32_t value)
{
    uint32_t *mine = pld__clock_of(RC, me);
    arrive(RC, me, addr, op, value, mine, RC->T);
    mine[me]++; /* what follows the notify is not ordered by it */
}

/* The join of the arrivals a wait on `addr` needed goes into `to` (the
 * waiting thread's clock, or a task's snapshot).  The updates that happen
 * before the wait anyway (its own thread's, or any that `to` already
 * covers) need no acquiring, and count at every point of the arrival
 * order: each point is judged with all of them applied, the value after
 * arrival i plus those that arrived after it.  (A barrier takes its
 * credits back with an add of its own that may land after a fast peer's
 * next credit: that credit is then still needed.)  Only updates in the
 * wait's own past count so: another core of the owner rank that adds to
 * the cell is a peer like any other. */
static void acquire_into(struct pld__racer *RC, uint32_t *to, const int32_t *addr, pld_wait_cmp cmp,
                         int32_t expected)
{
    struct cell *c = cell_of(RC, addr, 0);
    if (!c)
        return;
    uint32_t own = 0; /* the adds in the wait's past that arrived after arrival i */
    int i = c->n - 1;
    for (; i >= 0; i--) {
        if (!pld__wait_holds((int32_t)((uint32_t)c->a[i].value + own), cmp, expected))
            break;
        if (to[c->a[i].tid] >= c->a[i].epoch)
            own += (uint32_t)c->a[i].delta;
    }
    if (c->n && i == c->n - 1) /* not satisfied by an arrival: a plain store changed the cell */
        return;
    if (i < 0 &&
        (c->n == 0 || (!c->floor_fails &&
                       pld__wait_holds((int32_t)((uint32_t)c->floor + own), cmp, expected)))) {
        /* it held before these arrivals: none of them was needed.  Those an
         * earlier wait dropped may be (that wait's core is not this one's):
         * unless it held before them too, this wait acquires them all, a
         * join that may order more than the fewest it needed */
        if (c->acquired &&
            (c->base_fails || !pld__wait_holds((int32_t)((uint32_t)c->base + own), cmp, expected)))
            pld__clock_join(to, c->acquired, RC->T);
        return;
    }
    int k = i + 1; /* the arrival after which it held */
    size_t S = (size_t)RC->Tcap;
    pld__clock_join(to, c->clock + (size_t)k * S, RC->T);
    /* what it drops, kept as one clock for the owner's other cores */
    if (!c->acquired && (c->acquired = calloc(S, sizeof *c->acquired))) {
        c->base = c->floor;
        c->base_fails = c->floor_fails;
    }
    if (c->acquired)
        pld__clock_join(c->acquired, c->clock + (size_t)k * S, RC->T);
    c->floor = c->a[k].value;
    c->floor_fails = 0;
    c->n -= k + 1;
    memmove(c->a, c->a + k + 1, (size_t)c->n * sizeof *c->a);
    memmove(c->clock, c->clock + (size_t)(k + 1) * S, (size_t)c->n * S * sizeof *c->clock);
}

void pld__racer_acquire(struct pld__racer *RC, int me, const int32_t *addr, pld_wait_cmp cmp,
                        int32_t expected)
{
    acquire_into(RC, pld__clock_of(RC, me), addr, cmp, expected);
}

void pld__racer_snapshot_acquire(struct pld__racer *RC, int h, const int32_t *addr,
                                 pld_wait_cmp cmp, int32_t expected)
{
    if (h >= 0)
        acquire_into(RC, pld__racer_snap(RC, h), addr, cmp, expected);
}

void pld__races_snapshot_acquire(int h, const void *cell, int32_t expected)
{
    if (pld__R->racer)
        pld__racer_snapshot_acquire(pld__R->racer, h, cell, PLD_WAIT_GE, expected);
}

void pld__races_release(int me, const void *cell, pld_notify_op op, int32_t value)
{
    if (pld__R->racer)
        pld__racer_release(pld__R->racer, pld__race_thread_of(me), cell, op, value);
}

/* A notify's clock, from the notify to where its update lands. */
struct in_flight_clock {
    int tid, n;
    uint32_t v[];
};

void *pld__races_release_begin(int me)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC)
        return NULL;
    int t = pld__race_thread_of(me);
    uint32_t *mine = pld__clock_of(RC, t);
    struct in_flight_clock *k = malloc(sizeof *k + (size_t)RC->T * sizeof *k->v);
    if (k) { /* out of memory: the arrival is left out, as when its cell cannot be made */
        k->tid = t;
        k->n = RC->T;
        memcpy(k->v, mine, (size_t)RC->T * sizeof *k->v);
    }
    mine[t]++; /* what follows the notify is not ordered by it */
    return k;
}

void pld__races_release_land(int me, const void *cell, pld_notify_op op, int32_t value, void *clock)
{
    (void)me; /* the notifier's thread came with its clock */
    const struct in_flight_clock *k = clock;
    if (k && pld__R->racer) /* NULL: no detector, or out of memory at the notify */
        arrive(pld__R->racer, k->tid, cell, op, value, k->v, k->n);
    free(clock);
}

void pld__races_acquire(int me, const void *cell, pld_wait_cmp cmp, int32_t expected)
{
    if (pld__R->racer)
        pld__racer_acquire(pld__R->racer, pld__race_thread_of(me), cell, cmp, expected);
}

/* Drops the records that every thread's clock has passed. */
static void sweep(struct pld__racer *RC, struct shadow *s)
{
    for (int q = 0; q < RC->T; q++) {
        uint32_t m = UINT32_MAX;
        for (int r = 0; r < RC->T; r++)
            if (pld__clock_of(RC, r)[q] < m)
                m = pld__clock_of(RC, r)[q];
        RC->mins[q] = m;
    }
    for (int x = 0; x < s->cap; x++)
        if (s->r[x].live && !s->r[x].inflight && s->r[x].epoch <= RC->mins[s->r[x].tid])
            pld__shadow_drop(s,
                             x); /* one in flight lasts until its wait, whatever the clocks say */
    pld__shadow_swept(s, RC->T);
}

/* ---- data accesses ---- */

static struct shadow *shadow_of(struct pld__racer *RC, const struct pld__wbuf *b, int copy)
{
    if (!b)
        return &RC->host;
    if (b->id >= RC->nbufs) {
        int n = b->id + 1;
        struct shadow **ns = realloc(RC->shadow, (size_t)n * sizeof *ns);
        if (!ns)
            return NULL;
        for (int i = RC->nbufs; i < n; i++)
            ns[i] = NULL;
        RC->shadow = ns;
        RC->nbufs = n;
    }
    if (!RC->shadow[b->id]) {
        struct shadow *s = malloc((size_t)RC->P * sizeof *s);
        if (!s)
            return NULL;
        for (int c = 0; c < RC->P; c++)
            pld__shadow_init(&s[c]);
        RC->shadow[b->id] = s;
    }
    return &RC->shadow[b->id][copy];
}

/* What a notify's access of its cell is beyond an atomic write (all zero
 * for other accesses). */
struct update {
    unsigned set, notify;
    int32_t value;
};

/* Do a and b conflict with the same accesses (for one to stand for the other)? */
static int same_kind(const struct rec *a, const struct rec *b)
{
    return a->write == b->write && a->atomic == b->atomic && a->set == b->set &&
           a->notify == b->notify && a->value == b->value;
}

/* An access by thread `me` (flight 0), or one of put_async `flight`'s
 * in-flight accesses; returns the record kept for it, or -1. */
static int64_t access(struct pld__racer *RC, int me, const struct pld__wbuf *b, int copy,
                      struct pld__rows rows, int write, int atomic, int flight, const char *op,
                      const char *file, int line, double t, const struct update *u)
{
    if (rows.len <= 0 || rows.n <= 0)
        return -1;
    struct shadow *s = shadow_of(RC, b, copy);
    if (!s)
        return -1;
    const uint32_t *mine = pld__clock_of(RC, me);
    struct rec now = {
        .lo = rows.lo,
        .len = rows.len,
        .stride = rows.n > 1 ? rows.stride : rows.len,
        .n = rows.n,
        .rank = RC->rank_of[me],
        .tid = me,
        .epoch = mine[me],
        .write = (unsigned)write,
        .atomic = (unsigned)atomic,
        .set = u->set,
        .notify = u->notify,
        /* a tile's atomic add: its values are unknown here, so it counts as changing the cell */
        .value = u->notify ? u->value : write && atomic,
        .inflight = flight != 0,
        .flight = flight,
        .op = op,
        .file = file,
        .line = line,
        .t = t,
    };
    pld__rows_set_end(&now);
    struct where w = {b, copy};
    int nf = 0, kept = 0;
    pld__shadow_query(RC, s->r, s->root, now.lo, now.end, &nf);
    for (int i = 0; i < nf; i++) {
        int x = (int)RC->found[i];
        const struct rec *a = &s->r[x];
        int64_t lo, hi;
        /* the rules before the rows: most records are ordered with it */
        if (a->inflight) { /* nothing is ordered with it until its wait */
            if (a->flight != flight && pld__rec_conflict(a, &now) &&
                pld__rows_meet(a, &now, &lo, &hi)) {
                now.t = now.t < 0 ? pld__now() : now.t;
                pld__races_report(RC, a, &now, w, lo, hi);
            }
            continue;
        }
        if (a->tid != me) {
            if (mine[a->tid] < a->epoch && pld__rec_conflict(a, &now) &&
                pld__rows_meet(a, &now, &lo, &hi)) {
                now.t = now.t < 0 ? pld__now() : now.t;
                pld__races_report(RC, a, &now, w, lo, hi);
            }
            continue;
        }
        if (flight || !pld__rec_same_site(a, &now))
            continue; /* an issue follows the thread's earlier accesses in program order */
        int same = a->epoch == now.epoch && same_kind(a, &now);
        if (same && pld__rows_covers(a, &now))
            kept = 1; /* nothing new: it is already recorded */
        else if (pld__rows_covers(&now, a) && pld__rec_conflicts_as_much(&now, a))
            RC->found[i] = -1 - x; /* superseded */
    }
    for (int i = 0; i < nf; i++)
        if (RC->found[i] < 0)
            pld__shadow_drop(s, (int)(-1 - RC->found[i]));
    if (kept)
        return -1;
    if (flight) { /* a record of its own, which only its wait removes */
        now.t = now.t < 0 ? pld__now() : now.t;
        return pld__shadow_add(s, &now);
    }
    for (int i = 0; i < HINTS; i++) {
        int x = s->hint[i];
        const struct rec *a = x >= 0 ? &s->r[x] : NULL;
        if (a && !a->inflight && a->epoch == now.epoch && same_kind(a, &now) &&
            pld__rec_same_site(a, &now) && pld__shadow_grow(s, x, &now))
            return x;
    }
    now.t = now.t < 0 ? pld__now() : now.t;
    int x = pld__shadow_add(s, &now);
    if (x >= 0)
        pld__shadow_hint(s, x);
    if (s->n > s->gc_at)
        sweep(RC, s);
    return x;
}

void pld__racer_access(struct pld__racer *RC, int me, const struct pld__wbuf *b, int copy,
                       struct pld__rows rows, int write, int atomic, const char *op,
                       const char *file, int line, double t)
{
    (void)access(RC, me, b, copy, rows, write, atomic, 0, op, file, line, t, &(struct update){0});
}

void pld__racer_notify(struct pld__racer *RC, int me, const struct pld__wbuf *b, int copy,
                       int64_t at, pld_notify_op how, int32_t value, const char *op,
                       const char *file, int line, double t)
{
    struct update u = {.set = how == PLD_NOTIFY_SET, .notify = 1, .value = value};
    (void)access(RC, me, b, copy, (struct pld__rows){.lo = at, .len = 4, .stride = 4, .n = 1}, 1, 1,
                 0, op, file, line, t, &u);
}

int pld__racer_flight(struct pld__racer *RC)
{
    return ++RC->flights;
}

int64_t pld__racer_access_in_flight(struct pld__racer *RC, int me, const struct pld__wbuf *b,
                                    int copy, struct pld__rows rows, int write, int flight,
                                    const char *op, const char *file, int line, double t)
{
    return access(RC, me, b, copy, rows, write, 0, flight, op, file, line, t, &(struct update){0});
}

void pld__racer_landed(struct pld__racer *RC, const struct pld__wbuf *b, int copy, int64_t h)
{
    struct shadow *s = h >= 0 ? shadow_of(RC, b, copy) : NULL;
    if (s && h < s->cap && s->r[h].live && s->r[h].inflight)
        pld__shadow_drop(s, (int)h);
}

void pld__races_access(int me, const struct pld__wbuf *b, int copy, int64_t lo, int64_t hi,
                       int write, int atomic, const char *op, const char *file, int line)
{
    if (pld__R->racer && hi > lo)
        pld__racer_access(pld__R->racer, pld__race_thread_of(me), b, copy,
                          (struct pld__rows){.lo = lo, .len = hi - lo, .stride = hi - lo, .n = 1},
                          write, atomic, op, file, line, -1);
}

void pld__races_notify(int me, const struct pld__wbuf *b, int copy, int64_t at, pld_notify_op how,
                       int32_t value, const char *op, const char *file, int line)
{
    if (pld__R->racer)
        pld__racer_notify(pld__R->racer, pld__race_thread_of(me), b, copy, at, how, value, op, file,
                          line, -1);
}

void pld__races_region(int me, pl_tensor t, int copy, pl_shape offsets, pl_shape shape, int write,
                       int atomic, const char *op, const char *file, int line)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC || pl_shape_numel(shape) <= 0)
        return;
    /* one row set per plane: the last two dims, rows strided by the layout's */
    int nd = shape.ndim;
    int64_t es = (int64_t)pl_dtype_size(t.dtype);
    pl_shape layout = pld__layout(t); /* a strided view's rows lie in it */
    struct pld__rows rows = {
        .len = shape.dim[nd - 1] * es,
        .stride = layout.dim[nd - 1] * es,
        .n = nd > 1 ? shape.dim[nd - 2] : 1,
    };
    /* the view's start: in the buffer, or in host memory by address */
    int64_t base = t.win ? t.win_offset : (int64_t)(uintptr_t)t.data;
    int64_t idx[PL_MAX_DIMS] = {0};
    for (;;) {
        int64_t flat = 0;
        for (int i = 0; i < nd; i++)
            flat = flat * layout.dim[i] + offsets.dim[i] + (i < nd - 2 ? idx[i] : 0);
        rows.lo = base + flat * es;
        pld__racer_access(RC, pld__race_thread_of(me), t.win, t.win ? copy : 0, rows, write, atomic,
                          op, file, line, -1);
        int i = nd - 3;
        while (i >= 0 && ++idx[i] == shape.dim[i])
            idx[i--] = 0;
        if (i < 0)
            break;
    }
}

/* The one row run of a put_async's flat region of `t` (check_flat). */
static struct pld__rows flat_rows(pl_tensor t, pl_shape offsets, pl_shape shape)
{
    int nd = shape.ndim;
    int64_t es = (int64_t)pl_dtype_size(t.dtype), flat = 0;
    pl_shape layout = pld__layout(t);
    for (int i = 0; i < nd; i++)
        flat = flat * layout.dim[i] + offsets.dim[i];
    int64_t base = t.win ? t.win_offset : (int64_t)(uintptr_t)t.data;
    int64_t len = shape.dim[nd - 1] * es;
    return (struct pld__rows){.lo = base + flat * es, .len = len, .stride = len, .n = 1};
}

void pld__races_put_async_issued(int me, const struct pld__async_put *p, const char *op,
                                 struct pld__flight *f)
{
    struct pld__racer *RC = pld__R->racer;
    *f = (struct pld__flight){.h = {-1, -1}};
    if (!RC || pl_shape_numel(p->shape) <= 0)
        return;
    int id = pld__racer_flight(RC);
    f->b[0] = p->src.win;
    f->copy[0] = p->src.win ? me : 0;
    f->h[0] = pld__racer_access_in_flight(RC, pld__race_thread_of(me), f->b[0], f->copy[0],
                                          flat_rows(p->src, p->src_off, p->shape), 0, id, op,
                                          p->file, p->line, -1);
    f->b[1] = p->dst.win;
    f->copy[1] = p->dst.win ? p->peer : 0;
    f->h[1] = pld__racer_access_in_flight(RC, pld__race_thread_of(me), f->b[1], f->copy[1],
                                          flat_rows(p->dst, p->dst_off, p->shape), 1, id, op,
                                          p->file, p->line, -1);
}

void pld__races_landed(const struct pld__flight *f)
{
    struct pld__racer *RC = pld__R->racer;
    for (int i = 0; RC && i < 2; i++)
        pld__racer_landed(RC, f->b[i], f->copy[i], f->h[i]);
}
