/* races_shadow.c: the interval structure of the data-race detector: per
 * window copy, a treap of records keyed by their first byte, each with the
 * largest end in its subtree, so that the records a byte range overlaps
 * are found in O(log n + k); and the row sets the records are.  What a
 * record means, and when two conflict, is races.c's (the rules). */
#include "races.h"

#include <stdlib.h>
#include <string.h>

/* The fewest records a copy holds before a sweep. */
#define SWEEP_MIN 16

void pld__shadow_init(struct shadow *s)
{
    *s = (struct shadow){.root = -1, .free = -1, .gc_at = SWEEP_MIN, .rng = 2463534242u};
    for (int i = 0; i < HINTS; i++)
        s->hint[i] = -1;
}

/* ---- the treap of records ---- */

static int key_less(const struct rec *r, int a, int b)
{
    return r[a].lo < r[b].lo || (r[a].lo == r[b].lo && a < b);
}

static void pull(struct rec *r, int x)
{
    int64_t m = r[x].end;
    if (r[x].l >= 0 && r[r[x].l].max > m)
        m = r[r[x].l].max;
    if (r[x].r >= 0 && r[r[x].r].max > m)
        m = r[r[x].r].max;
    r[x].max = m;
}

/* Splits t into the records before x (*lo) and x and those after (*hi). */
static void split(struct rec *r, int t, int x, int *lo, int *hi)
{
    if (t < 0) {
        *lo = *hi = -1;
    } else if (key_less(r, t, x)) {
        split(r, r[t].r, x, &r[t].r, hi);
        pull(r, t);
        *lo = t;
    } else {
        split(r, r[t].l, x, lo, &r[t].l);
        pull(r, t);
        *hi = t;
    }
}

static int merge(struct rec *r, int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (r[a].prio > r[b].prio) {
        r[a].r = merge(r, r[a].r, b);
        pull(r, a);
        return a;
    }
    r[b].l = merge(r, a, r[b].l);
    pull(r, b);
    return b;
}

static int insert(struct rec *r, int t, int x)
{
    if (t < 0)
        return x;
    if (r[x].prio > r[t].prio) {
        split(r, t, x, &r[x].l, &r[x].r);
        pull(r, x);
        return x;
    }
    if (key_less(r, x, t))
        r[t].l = insert(r, r[t].l, x);
    else
        r[t].r = insert(r, r[t].r, x);
    pull(r, t);
    return t;
}

static int erase(struct rec *r, int t, int x)
{
    if (t == x)
        return merge(r, r[t].l, r[t].r);
    if (key_less(r, x, t))
        r[t].l = erase(r, r[t].l, x);
    else
        r[t].r = erase(r, r[t].r, x);
    pull(r, t);
    return t;
}

static int found_push(struct pld__racer *RC, int *nf, int x)
{
    if (*nf == RC->capfound) {
        int cap = RC->capfound ? 2 * RC->capfound : 64;
        int64_t *n = realloc(RC->found, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        RC->found = n;
        RC->capfound = cap;
    }
    RC->found[(*nf)++] = x;
    return 0;
}

/* Appends to RC->found the records whose span meets [lo, hi). */
void pld__shadow_query(struct pld__racer *RC, const struct rec *r, int t, int64_t lo, int64_t hi,
                       int *nf)
{
    while (t >= 0 && r[t].max > lo) {
        pld__shadow_query(RC, r, r[t].l, lo, hi, nf);
        if (r[t].lo >= hi)
            return;
        if (r[t].end > lo)
            found_push(RC, nf, t);
        t = r[t].r;
    }
}

void pld__rows_set_end(struct rec *x)
{
    if (x->n == 1 || x->stride == x->len) { /* rows back to back are one run */
        x->len *= x->n;
        x->n = 1;
        x->stride = x->len;
    }
    x->end = x->lo + (x->n - 1) * x->stride + x->len;
}

/* A sweep costs P^2 for the clocks' minima; with a floor of 2P, at least P
 * records come between sweeps, so that is at most P a record.  Few ranks
 * sweep often: records every rank has passed are most of a copy's, and each
 * access walks all those its range meets (16 instead of 64 is 16 % fewer
 * instructions for an 8-rank mesh allreduce). */
void pld__shadow_swept(struct shadow *s, int P)
{
    int floor = 2 * P < SWEEP_MIN ? SWEEP_MIN : 2 * P > 64 ? 64 : 2 * P;
    s->gc_at = 2 * s->n > floor ? 2 * s->n : floor;
}

void pld__shadow_hint(struct shadow *s, int x)
{
    int i = 0;
    while (i < HINTS - 1 && s->hint[i] != x)
        i++;
    memmove(s->hint + 1, s->hint, (size_t)i * sizeof *s->hint);
    s->hint[0] = x;
}

void pld__shadow_drop(struct shadow *s, int x)
{
    s->root = erase(s->r, s->root, x);
    s->r[x].live = 0;
    s->r[x].l = s->free;
    s->free = x;
    s->n--;
    for (int i = 0; i < HINTS; i++)
        if (s->hint[i] == x)
            s->hint[i] = -1;
}

int pld__shadow_add(struct shadow *s, const struct rec *now)
{
    if (s->free < 0) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct rec *n = realloc(s->r, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        s->r = n;
        for (int i = cap - 1; i >= s->cap; i--) {
            n[i].live = 0;
            n[i].l = s->free;
            s->free = i;
        }
        s->cap = cap;
    }
    int x = s->free;
    s->free = s->r[x].l;
    s->r[x] = *now;
    s->rng ^= s->rng << 13, s->rng ^= s->rng >> 17, s->rng ^= s->rng << 5;
    s->r[x].prio = s->rng;
    s->r[x].l = s->r[x].r = -1;
    s->r[x].live = 1;
    s->r[x].max = s->r[x].end;
    s->root = insert(s->r, s->root, x);
    s->n++;
    return x;
}

/* ---- row sets ---- */

/* The first bytes where a and b meet, in [*lo, *hi); 0 if they do not. */
int pld__rows_meet(const struct rec *a, const struct rec *b, int64_t *lo, int64_t *hi)
{
    if (a->n > b->n) { /* walk the one with fewer rows */
        const struct rec *t = a;
        a = b, b = t;
    }
    for (int64_t i = 0; i < a->n; i++) {
        int64_t s = a->lo + i * a->stride, e = s + a->len;
        if (e <= b->lo)
            continue;
        if (s >= b->end)
            return 0;
        /* b's first row that ends after s */
        int64_t j = s - b->lo - b->len + 1;
        j = j <= 0 ? 0 : (j + b->stride - 1) / b->stride;
        if (j >= b->n)
            continue;
        int64_t bs = b->lo + j * b->stride;
        if (bs < e) {
            *lo = s > bs ? s : bs;
            *hi = e < bs + b->len ? e : bs + b->len;
            return 1;
        }
    }
    return 0;
}

/* Does every row of a lie in a row of w? */
int pld__rows_covers(const struct rec *w, const struct rec *a)
{
    if (a->lo < w->lo || a->end > w->end)
        return 0;
    if (w->n == 1)
        return 1;
    for (int64_t i = 0; i < a->n; i++) {
        int64_t s = a->lo + i * a->stride, j = (s - w->lo) / w->stride;
        if (s + a->len > w->lo + j * w->stride + w->len)
            return 0;
    }
    return 1;
}

int pld__rec_same_site(const struct rec *a, const struct rec *b)
{
    return a->tid == b->tid && a->line == b->line && a->file == b->file && a->op == b->op;
}

int pld__rec_conflict(const struct rec *a, const struct rec *b)
{
    if (!a->write && !b->write)
        return 0;
    if (!a->atomic || !b->atomic)
        return 1;
    /* both atomic: an atomic read sees one value or the other, and adds
     * commute; a Set does not commute with an update that leaves another value */
    if (!a->write || !b->write || (!a->set && !b->set))
        return 0;
    if (a->set && b->set)
        return a->value != b->value;
    return (a->set ? b : a)->value != 0;
}

/* Does every access that conflicts with a also conflict with w? */
int pld__rec_conflicts_as_much(const struct rec *w, const struct rec *a)
{
    if (!(w->write || !a->write) || !(!w->atomic || a->atomic))
        return 0;
    if (!w->atomic || !a->write)
        return 1;
    /* both atomic writes: a Set of v clashes with Sets of other values and
     * with adds, an add with Sets; only a like update clashes as much */
    if (a->set)
        return w->set && w->value == a->value;
    return a->value == 0 || (!w->set && w->value != 0);
}

/* Grows x (same rank, epoch, kind and site as now) to the union of both
 * when that is one row set; returns whether it did. */
int pld__shadow_grow(struct shadow *s, int x, const struct rec *now)
{
    struct rec g = s->r[x];
    if (g.n == 1 && now->n == 1 && now->lo <= g.end && g.lo <= now->end) {
        int64_t e = g.end > now->end ? g.end : now->end;
        g.lo = g.lo < now->lo ? g.lo : now->lo;
        g.len = e - g.lo;
    } else if (g.len == now->len && now->lo > g.lo) {
        int64_t stride = g.n > 1 ? g.stride : now->lo - g.lo;
        if (now->lo != g.lo + g.n * stride || (now->n > 1 && now->stride != stride) ||
            stride < g.len)
            return 0;
        g.stride = stride;
        g.n += now->n;
    } else {
        return 0;
    }
    pld__rows_set_end(&g);
    if (g.lo == s->r[x].lo) { /* the key stays: only the ends on its path grow */
        g.max = g.max > g.end ? g.max : g.end;
        s->r[x] = g;
        for (int t = s->root; t != x; t = key_less(s->r, x, t) ? s->r[t].l : s->r[t].r)
            if (s->r[t].max < g.end)
                s->r[t].max = g.end;
    } else {
        s->root = erase(s->r, s->root, x);
        g.l = g.r = -1;
        g.max = g.end;
        s->r[x] = g;
        s->root = insert(s->r, s->root, x);
    }
    pld__shadow_hint(s, x);
    return 1;
}
