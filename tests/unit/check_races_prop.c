/* check_races_prop.c: the race detector against an all-pairs reference.
 *
 * Random programs at P = 2..6 (seeded, so every run sees the same ones):
 * plain and atomic accesses of random row sets of random ranks' copies of a
 * window, notifies (Set and AtomicAdd, some negative) and waits, driven
 * through the detector's entry points in a generated interleaving.  A wait
 * is only generated with a condition its cell already satisfies, so no
 * schedule deadlocks.  The reference keeps every event: happens-before is
 * reachability over program order and the edges from each notify a wait
 * needed (the arrivals since the last Set up to the one after which the
 * condition held without a break), and a racing pair is any two
 * overlapping accesses of different ranks, at least one a write, not both
 * atomic, unordered, or two unordered notifies of one cell from different
 * ranks whose order changes its value (a Set against a Set of another
 * value or an add of other than 0; adds, 0 among them, commute).  The
 * detector must report exactly the same pairs of source lines.  Every 25th
 * program is long: a race across more than 512 accesses, and regions of
 * more than 512 rows.
 *
 * Every other program also issues put_asyncs and waits for them, in any
 * order: each reads a run of its rank's copy and writes a run of a peer's
 * for its whole flight, from the issue to the wait.  The reference gives
 * each access an interval of events (an access: one event; a put_async's
 * two: issue to wait) and has two race unless one's end happens before the
 * other's start, which makes what a rank does in its own put_async's
 * flight (a store into the source, a second put_async into the region)
 * race too; a put_async's own two accesses never race with each other.
 * The detector is driven as async.c drives it: the accesses in flight at
 * the issue, landed at the wait and recorded then as the rank's. */
#include "checktools.h"

#include "internal.h"
#include "detect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROGRAMS = 1000, CHUNKS = 10, NC = 3, ROW = 16, ROWS = 1100, BYTES = ROW * ROWS };
enum kind { ACCESS, NOTIFY, WAIT, ISSUE, LAND };

struct ev {
    enum kind kind;
    int rank;
    /* ACCESS: buf 0 is the data window, 1 the signals */
    int buf, copy, write, atomic, site;
    struct pld__rows rows;
    /* NOTIFY: peer, cell, op, value, site; WAIT: own cell, cmp, expected */
    int peer, cell;
    pld_notify_op op;
    pld_wait_cmp cmp;
    int32_t value;
    /* ISSUE: rows (of copy `rank`) are read, dst (of copy `peer`) written,
     * at `site`; LAND: `flight` is the ISSUE event it waits for */
    struct pld__rows dst;
    int flight;
};

struct prog {
    int P, n, cap;
    struct ev *e;
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11) % n;
}

static struct ev *push(struct prog *p, enum kind k, int rank)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->e = realloc(p->e, (size_t)p->cap * sizeof *p->e);
        ck_assert_ptr_nonnull(p->e);
    }
    struct ev *e = &p->e[p->n++];
    *e = (struct ev){.kind = k, .rank = rank};
    return e;
}

/* A row set inside rows [r0, r1) of the data window. */
static struct pld__rows some_rows(int r0, int r1, int big)
{
    int col = 4 * (int)rnd(ROW / 4), w = 4 * (1 + (int)rnd((ROW - col) / 4));
    int row = r0 + (int)rnd((uint32_t)(r1 - r0));
    if (rnd(3) == 0) /* a contiguous run across rows */
    {
        int64_t len = 4 + 4 * rnd(40);
        return (struct pld__rows){.lo = row * ROW + col, .len = len, .stride = len, .n = 1};
    }
    int n = big ? 513 + (int)rnd(120) : 1 + (int)rnd(6);
    if (row + n > r1)
        n = r1 - row;
    return (struct pld__rows){.lo = row * ROW + col, .len = w, .stride = ROW, .n = n};
}

static int64_t end_of(const struct pld__rows *r)
{
    return r->lo + (r->n - 1) * r->stride + r->len;
}

static void clip(struct pld__rows *r)
{
    int64_t end = end_of(r);
    if (r->n == 1 && end > BYTES)
        r->len = r->stride = BYTES - r->lo;
}

static int last_access[6]; /* per rank: its last access + 1, or 0 */

static void gen_access(struct prog *p, int rank, int r0, int r1, int big, int nsites)
{
    if (last_access[rank] && rnd(4) == 0) {
        /* the next step of a loop: the same site, just after the last one */
        struct ev e = p->e[last_access[rank] - 1];
        e.rows.lo += e.rows.n * e.rows.stride;
        if (end_of(&e.rows) <= BYTES) {
            *push(p, ACCESS, rank) = e;
            last_access[rank] = p->n;
            return;
        }
    }
    last_access[rank] = p->n + 1;
    struct ev *e = push(p, ACCESS, rank);
    e->copy = rnd(2) ? rank : (int)rnd((uint32_t)p->P);
    e->rows = some_rows(r0, r1, big);
    clip(&e->rows);
    e->write = (int)rnd(2);
    e->atomic = e->write && rnd(6) == 0;
    e->site = (int)rnd((uint32_t)nsites);
}

/* A put_async's run: one contiguous stretch of the data window's first
 * rows, as its region is flat. */
static struct pld__rows some_run(void)
{
    int64_t lo = 4 * (int64_t)rnd(24 * ROW / 4), len = 4 + 4 * (int64_t)rnd(24);
    return (struct pld__rows){.lo = lo, .len = len, .stride = len, .n = 1};
}

/* Generates a program; cell values are tracked to pick waits that hold.
 * With `async`, ranks also issue put_asyncs (at most three in flight each)
 * and wait for them in any order; all are waited by the end. */
static void generate(struct prog *p, int P, int len, int big, int async)
{
    int open[6][3], nopen[6] = {0};
    int32_t val[6][NC] = {{0}};
    int nsites = (int[]){3, 12, 4000}[rnd(3)];
    p->P = P;
    p->n = 0;
    memset(last_access, 0, sizeof last_access);
    if (big) /* rank 0 never notifies: this races with the last access */
        gen_access(p, 0, 0, 1, 0, nsites);
    for (int i = 0; i < len; i++) {
        int me = (int)rnd((uint32_t)P), k = (int)rnd(async ? 12 : 10);
        if (big && me == 0 && k >= 6)
            k = 0;
        if (k == 10 && nopen[me] < 3) {
            struct ev *e = push(p, ISSUE, me);
            e->copy = me;
            e->rows = some_run();
            e->peer = (int)rnd((uint32_t)P);
            e->dst = some_run();
            e->site = (int)rnd((uint32_t)nsites);
            open[me][nopen[me]++] = p->n - 1;
            continue;
        }
        if (k >= 10 && nopen[me] > 0) {
            int w = (int)rnd((uint32_t)nopen[me]);
            push(p, LAND, me)->flight = open[me][w];
            open[me][w] = open[me][--nopen[me]];
            continue;
        }
        if (k >= 10)
            k = 0;
        if (k < 6) {
            gen_access(p, me, big ? 2 : 0, big ? ROWS : 24, big && rnd(40) == 0, nsites);
        } else if (k < 8) {
            struct ev *e = push(p, NOTIFY, me);
            e->peer = (int)rnd((uint32_t)P);
            e->cell = (int)rnd(NC);
            e->op = rnd(3) ? PLD_NOTIFY_ATOMIC_ADD : PLD_NOTIFY_SET;
            e->value =
                e->op == PLD_NOTIFY_SET ? (int32_t)rnd(4) : (int32_t[]){1, 1, 2, -1, 0}[rnd(5)];
            e->site = (int)rnd((uint32_t)nsites);
            int32_t *v = &val[e->peer][e->cell];
            *v = e->op == PLD_NOTIFY_SET ? e->value : *v + e->value;
        } else {
            struct ev *e = push(p, WAIT, me);
            e->cell = (int)rnd(NC);
            int32_t v = val[me][e->cell];
            switch (rnd(4)) {
            case 0:
                e->cmp = PLD_WAIT_EQ, e->value = v;
                break;
            case 1:
                e->cmp = PLD_WAIT_GE, e->value = v - (int32_t)rnd(3);
                break;
            case 2:
                e->cmp = PLD_WAIT_GE, e->value = v >= 0 ? 0 : v;
                break;
            default:
                e->cmp = PLD_WAIT_GE, e->value = v;
            }
        }
    }
    for (int r = 0; r < P; r++)
        while (nopen[r] > 0)
            push(p, LAND, r)->flight = open[r][--nopen[r]];
    if (big) {
        struct ev *e = push(p, ACCESS, 1);
        e->copy = p->e[0].copy;
        e->rows = p->e[0].rows;
        e->write = !p->e[0].write;
        e->site = nsites; /* a line of its own */
    }
}

/* ---- the reference ---- */

static const char *const files[] = {"a.c", "b.c"};
static const char *const ops[] = {"pl_load", "pl_store", "pld_tile_remote_load"};

static int site_line(int site)
{
    return 10 + site / 2;
}

static int64_t pair_key(int s1, int s2)
{
    return s1 < s2 ? (int64_t)s1 * 100000 + s2 : (int64_t)s2 * 100000 + s1;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct pairs {
    int64_t *k;
    int n, cap;
};

static void pairs_add(struct pairs *s, int64_t k)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->k = realloc(s->k, (size_t)s->cap * sizeof *s->k);
        ck_assert_ptr_nonnull(s->k);
    }
    s->k[s->n++] = k;
}

static void pairs_norm(struct pairs *s)
{
    if (s->n == 0) /* k may be NULL, which qsort must not see */
        return;
    qsort(s->k, (size_t)s->n, sizeof *s->k, cmp64);
    int m = 0;
    for (int i = 0; i < s->n; i++)
        if (m == 0 || s->k[m - 1] != s->k[i])
            s->k[m++] = s->k[i];
    s->n = m;
}

static int site_of(const char *file, int line)
{
    return 2 * (line - 10) + (file == files[1]);
}

static void on_race(void *ctx, const char *f1, int l1, const char *f2, int l2)
{
    pairs_add(ctx, pair_key(site_of(f1, l1), site_of(f2, l2)));
}

static void mark(unsigned char *bytes, const struct pld__rows *r, int v)
{
    for (int64_t i = 0; i < r->n; i++)
        memset(bytes + r->lo + i * r->stride, v, (size_t)r->len);
}

/* Does r touch a marked byte in [lo, hi), the marked bytes' span? */
static int touches(const unsigned char *bytes, const struct pld__rows *r, int64_t lo, int64_t hi)
{
    int64_t i = r->lo >= lo ? 0 : (lo - r->lo) / r->stride;
    for (; i < r->n && r->lo + i * r->stride < hi; i++)
        for (int64_t b = 0; b < r->len; b++)
            if (bytes[r->lo + i * r->stride + b])
                return 1;
    return 0;
}

static int clashes; /* racing pairs of notifies the reference found */

/* Does the order of two updates of one cell change the value it is left with? */
static int clash(const struct ev *a, const struct ev *b)
{
    if (a->op != PLD_NOTIFY_SET && b->op != PLD_NOTIFY_SET)
        return 0;
    if (a->op == PLD_NOTIFY_SET && b->op == PLD_NOTIFY_SET)
        return a->value != b->value;
    return (a->op == PLD_NOTIFY_SET ? b : a)->value != 0;
}

static int holds(int32_t v, pld_wait_cmp cmp, int32_t x)
{
    return cmp == PLD_WAIT_EQ ? v == x : v >= x;
}

/* An access as the put_async reference sees it: events [s, e]. */
struct span {
    int s, e, rank, copy, write, atomic, site, flight;
    struct pld__rows rows;
};

/* The pairs in which a put_async's access takes part: two accesses race
 * unless one ends before the other starts (hb[y] holds the events that
 * happen before y). */
static void flight_pairs(const struct prog *p, const uint64_t *hb, int words, unsigned char *bytes,
                         struct pairs *out)
{
    struct span *sp = malloc((size_t)(2 * p->n + 1) * sizeof *sp);
    ck_assert_ptr_nonnull(sp);
    int n = 0;
    for (int x = 0; x < p->n; x++) {
        const struct ev *e = &p->e[x];
        if (e->kind == ACCESS && e->buf == 0)
            sp[n++] =
                (struct span){x, x, e->rank, e->copy, e->write, e->atomic, e->site, 0, e->rows};
        if (e->kind != LAND)
            continue;
        const struct ev *is = &p->e[e->flight];
        sp[n++] = (struct span){e->flight, x,        is->rank,      is->rank, 0,
                                0,         is->site, 1 + e->flight, is->rows};
        sp[n++] =
            (struct span){e->flight, x, is->rank, is->peer, 1, 0, is->site, 1 + e->flight, is->dst};
    }
#define HB(x, y) ((x) != (y) && (hb[(size_t)(y)*words + (x) / 64] >> ((x) % 64) & 1))
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            const struct span *A = &sp[a], *B = &sp[b];
            if (!A->flight && !B->flight)
                continue; /* the loop above judged those */
            if (A->flight == B->flight || A->copy != B->copy || !(A->write || B->write) ||
                (A->atomic && B->atomic))
                continue;
            if (HB(A->e, B->s) || HB(B->e, A->s))
                continue;
            mark(bytes, &A->rows, 1);
            int meet = touches(bytes, &B->rows, A->rows.lo, end_of(&A->rows));
            mark(bytes, &A->rows, 0);
            if (meet)
                pairs_add(out, pair_key(A->site, B->site));
        }
#undef HB
    free(sp);
}

/* The pairs of sites that race, and the largest number of accesses
 * between two racing ones. */
static int reference(const struct prog *p, struct pairs *out)
{
    int n = p->n, words = (n + 63) / 64, gap = 0;
    uint64_t *hb = calloc((size_t)n * (size_t)words, sizeof *hb); /* hb[x]: events before x */
    int *last = malloc((size_t)p->P * sizeof *last);
    /* per cell: every arrival (event, value after, Set?) */
    int *hist_ev = malloc((size_t)n * sizeof *hist_ev),
        *hist_cell = malloc((size_t)n * sizeof(int));
    int32_t *hist_val = malloc((size_t)n * sizeof *hist_val);
    int nh = 0;
    int *acc_before = malloc((size_t)n * sizeof(int)); /* accesses before each event */
    unsigned char *bytes = calloc(BYTES, 1);
    ck_assert(hb && last && hist_ev && hist_cell && hist_val && acc_before && bytes);
    for (int r = 0; r < p->P; r++)
        last[r] = -1;
    int nacc = 0;
    for (int x = 0; x < n; x++) {
        const struct ev *e = &p->e[x];
        uint64_t *me = hb + (size_t)x * words;
        acc_before[x] = nacc;
        if (last[e->rank] >= 0) {
            const uint64_t *pr = hb + (size_t)last[e->rank] * words;
            for (int w = 0; w < words; w++)
                me[w] |= pr[w];
            me[last[e->rank] / 64] |= 1ull << (last[e->rank] % 64);
        }
        last[e->rank] = x;
        if (e->kind == NOTIFY) {
            hist_ev[nh] = x;
            hist_cell[nh] = e->peer * NC + e->cell;
            hist_val[nh++] = e->value; /* resolved below */
            int32_t prev = 0;
            for (int h = nh - 2; h >= 0; h--)
                if (hist_cell[h] == hist_cell[nh - 1]) {
                    prev = hist_val[h];
                    break;
                }
            if (e->op != PLD_NOTIFY_SET)
                hist_val[nh - 1] = prev + e->value;
            for (int h = 0; h < nh - 1; h++) { /* the earlier updates of the cell */
                const struct ev *o = &p->e[hist_ev[h]];
                if (hist_cell[h] == hist_cell[nh - 1] && o->rank != e->rank && clash(o, e) &&
                    !(me[hist_ev[h] / 64] >> (hist_ev[h] % 64) & 1)) {
                    pairs_add(out, pair_key(o->site, e->site));
                    clashes++;
                }
            }
        } else if (e->kind == WAIT) {
            int cell = e->rank * NC + e->cell, from = 0, k = -1;
            /* this cell's arrivals since its last Set */
            for (int h = 0; h < nh; h++)
                if (hist_cell[h] == cell && p->e[hist_ev[h]].op == PLD_NOTIFY_SET)
                    from = h;
            /* each point judged with all the waiter's own adds applied */
            int32_t own = 0;
            for (int h = from; h < nh; h++)
                if (hist_cell[h] == cell && p->e[hist_ev[h]].rank == e->rank &&
                    p->e[hist_ev[h]].op != PLD_NOTIFY_SET)
                    own += p->e[hist_ev[h]].value;
            int set =
                from < nh && hist_cell[from] == cell && p->e[hist_ev[from]].op == PLD_NOTIFY_SET;
            int fails = set || !holds(own, e->cmp, e->value); /* before: 0 and the own adds */
            for (int h = from; h < nh; h++) {
                if (hist_cell[h] != cell)
                    continue;
                const struct ev *u = &p->e[hist_ev[h]];
                if (u->rank == e->rank && u->op != PLD_NOTIFY_SET)
                    own -= u->value; /* now in hist_val */
                if (!holds(hist_val[h] + own, e->cmp, e->value)) {
                    fails = 1;
                    k = -1;
                } else if (fails && k < 0) {
                    k = h;
                }
            }
            for (int h = from; k >= 0 && h <= k; h++) {
                if (hist_cell[h] != cell)
                    continue;
                const uint64_t *pr = hb + (size_t)hist_ev[h] * words;
                for (int w = 0; w < words; w++)
                    me[w] |= pr[w];
                me[hist_ev[h] / 64] |= 1ull << (hist_ev[h] % 64);
            }
        } else {
            mark(bytes, &e->rows, 1);
            for (int a = 0; a < x; a++) {
                const struct ev *o = &p->e[a];
                if (o->kind != ACCESS || o->buf != e->buf || o->copy != e->copy ||
                    o->rank == e->rank || !(o->write || e->write) || (o->atomic && e->atomic) ||
                    (me[a / 64] >> (a % 64) & 1) ||
                    !touches(bytes, &o->rows, e->rows.lo, end_of(&e->rows)))
                    continue;
                pairs_add(out, pair_key(o->site, e->site));
                if (nacc - acc_before[a] - 1 > gap)
                    gap = nacc - acc_before[a] - 1;
            }
            mark(bytes, &e->rows, 0);
            nacc++;
        }
    }
    flight_pairs(p, hb, words, bytes, out);
    free(hb);
    free(last);
    free(hist_ev);
    free(hist_cell);
    free(hist_val);
    free(acc_before);
    free(bytes);
    pairs_norm(out);
    return gap;
}

/* ---- the detector ---- */

static void detect(const struct prog *p, struct pairs *out)
{
    struct pld__racer *RC = pld__racer_new(p->P);
    ck_assert_ptr_nonnull(RC);
    pld__racer_on_race(RC, on_race, out);
    struct pld__wbuf data = {.id = 0, .name = "data"}, sig = {.id = 1, .name = "sig"};
    int32_t cells[6][NC] = {{0}};
    int64_t *h = malloc((size_t)p->n * 2 * sizeof *h); /* per ISSUE: its two records */
    ck_assert_ptr_nonnull(h);
    for (int x = 0; x < p->n; x++) {
        const struct ev *e = &p->e[x];
        double t = x * 1e-9;
        if (e->kind == ISSUE) {
            int id = pld__racer_flight(RC);
            const char *f = files[e->site % 2];
            int l = site_line(e->site);
            h[2 * x] = pld__racer_access_in_flight(RC, e->rank, &data, e->rank, e->rows, 0, id,
                                                   "pld_tensor_put_async", f, l, t);
            h[2 * x + 1] = pld__racer_access_in_flight(RC, e->rank, &data, e->peer, e->dst, 1, id,
                                                       "pld_tensor_put_async", f, l, t);
        } else if (e->kind == LAND) {
            const struct ev *is = &p->e[e->flight];
            const char *f = files[is->site % 2];
            int l = site_line(is->site);
            pld__racer_landed(RC, &data, is->rank, h[2 * e->flight]);
            pld__racer_landed(RC, &data, is->peer, h[2 * e->flight + 1]);
            pld__racer_access(RC, e->rank, &data, is->rank, is->rows, 0, 0, "pld_tensor_put_async",
                              f, l, t);
            pld__racer_access(RC, e->rank, &data, is->peer, is->dst, 1, 0, "pld_tensor_put_async",
                              f, l, t);
        } else if (e->kind == ACCESS) {
            pld__racer_access(RC, e->rank, &data, e->copy, e->rows, e->write, e->atomic,
                              ops[e->site % 3], files[e->site % 2], site_line(e->site), t);
        } else if (e->kind == NOTIFY) {
            int32_t *c = &cells[e->peer][e->cell];
            *c = e->op == PLD_NOTIFY_SET ? e->value : *c + e->value;
            pld__racer_notify(RC, e->rank, &sig, e->peer, 4 * e->cell, e->op, e->value,
                              "pld_system_notify", files[e->site % 2], site_line(e->site), t);
            pld__racer_release(RC, e->rank, c, e->op, e->value);
        } else {
            int32_t *c = &cells[e->rank][e->cell];
            ck_assert(holds(*c, e->cmp, e->value));
            pld__racer_acquire(RC, e->rank, c, e->cmp, e->value);
            pld__racer_access(RC, e->rank, &sig, e->rank,
                              (struct pld__rows){.lo = 4 * e->cell, .len = 4, .stride = 4, .n = 1},
                              0, 1, "pld_system_wait", "sig.c", 2, t);
        }
    }
    free(h);
    ck_assert_int_eq(pld__racer_races(RC), out->n);
    pld__racer_free(RC);
    pairs_norm(out);
}

START_TEST(detector_matches_reference)
{
    struct prog p = {0};
    int long_gaps = 0, big_regions = 0, racy = 0, flights = 0;
    for (int i = _i * (PROGRAMS / CHUNKS); i < (_i + 1) * (PROGRAMS / CHUNKS); i++) {
        rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
        int big = i % 25 == 24;
        generate(&p, 2 + i % 5, big ? 900 + (int)rnd(300) : 10 + (int)rnd(150), big, i % 2);
        for (int x = 0; x < p.n; x++) {
            big_regions += p.e[x].kind == ACCESS && p.e[x].rows.n > 512;
            flights += p.e[x].kind == ISSUE;
        }
        struct pairs want = {0}, got = {0};
        int gap = reference(&p, &want);
        long_gaps += gap > 512;
        racy += want.n > 0;
        detect(&p, &got);
        int same = want.n == got.n &&
                   (want.n == 0 || !memcmp(want.k, got.k, (size_t)want.n * sizeof *want.k));
        if (!same) {
            fprintf(stderr, "program %d (P=%d, %d events): reference %d pairs, detector %d\n", i,
                    p.P, p.n, want.n, got.n);
            for (int a = 0, b = 0; a < want.n || b < got.n;) {
                if (b >= got.n || (a < want.n && want.k[a] < got.k[b]))
                    fprintf(stderr, "  missed %lld\n", (long long)want.k[a++]);
                else if (a >= want.n || got.k[b] < want.k[a])
                    fprintf(stderr, "  extra  %lld\n", (long long)got.k[b++]);
                else
                    a++, b++;
            }
        }
        ck_assert_msg(same, "program %d: the detector's racing pairs differ", i);
        free(want.k);
        free(got.k);
    }
    free(p.e);
    /* the generator does produce what the detector must handle */
    ck_assert_int_ge(long_gaps, 4);
    ck_assert_int_ge(big_regions, 4);
    ck_assert_int_ge(racy, PROGRAMS / CHUNKS / 2);
    ck_assert_int_ge(flights, PROGRAMS / CHUNKS);
    ck_assert_int_ge(clashes, PROGRAMS / CHUNKS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("races_prop");
    TCase *tc = tcase_create("races_prop");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, detector_matches_reference, 0, CHUNKS);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
