/* races.c: the data-race detector.
 *
 * Happens-before comes from vector clocks.  Program order within a rank is
 * one source of edges; the other is a notify (release) and the wait that
 * observed it (acquire).  A notify's clock travels with the cell it updates:
 * AtomicAdd joins it into the clock already there (an atomic read-modify-
 * write extends the release sequence), Set replaces it (a plain store starts
 * a new one).  A rank's own component advances after each notify, so what it
 * does after a notify is not ordered by it.
 *
 * Per window buffer and per rank's copy, the detector keeps the accesses
 * since the last covering write: byte range, rank, epoch, read or write,
 * atomic or not, op, source line and time.  Two accesses conflict when they
 * come from different ranks, overlap, at least one writes, not both are
 * atomic, and neither happens before the other.  Each pair of source lines
 * is reported once, on one line.
 *
 * Vector clocks cost P entries per rank and per signal cell, so the default
 * (--races=error) applies up to 64 ranks, upstream's limit; above that the
 * detector is off unless asked for. */
#include "backend.h"
#include "ptrmap.h"

#include <stdlib.h>
#include <string.h>

/* An access is split in two: the scan reads only the first half, two to a
 * cache line, and a report reads the second. */
struct access {
    int64_t lo, hi; /* byte range in the copy */
    int rank;
    uint32_t epoch;
    unsigned write : 1, atomic : 1;
};

struct site {
    const char *op, *file;
    int line;
    double t;
};

/* A ring, so that dropping the oldest record at MAX_RECORDS costs nothing
 * (a signal buffer hits the cap on every notify once it is full); record i,
 * oldest first, is a[j] and w[j], j = (head + i) & (cap - 1), cap a power
 * of two. */
struct shadow {
    struct access *a;
    struct site *w;
    int head, n, cap;
    int plain; /* how many of a[] are not atomic */
};

#define MAX_RECORDS      512 /* per copy of a buffer; the oldest go first */
#define CLOCKS_PER_BLOCK 256

struct pld__racer {
    int P;
    uint32_t *vc; /* P x P: vc[r * P + q] = what rank r knows of rank q */
    /* cell -> clock of the notifies it carries: one probe reads the key and
     * where its clock is; clocks come CLOCKS_PER_BLOCK to a block, which
     * never moves (a growing array would touch its memory twice) */
    struct pld__ptrmap cells; /* values: the clocks' addresses */
    uint32_t **blocks;
    int nblocks, capblocks;
    int left; /* clocks not yet handed out in the last block */
    /* per buffer id, per copy */
    struct shadow **shadow;
    int nbufs;
    /* reported pairs of source locations */
    struct {
        const char *f1, *f2;
        int l1, l2;
    } * seen;
    int nseen, capseen;
    int races;
};

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
    if (mode == PLD_RACES_OFF)
        return;
    struct pld__racer *RC = calloc(1, sizeof *RC);
    if (!RC)
        return;
    RC->P = R->P;
    RC->vc = calloc((size_t)R->P * (size_t)R->P, sizeof *RC->vc);
    if (!RC->vc) {
        free(RC);
        return;
    }
    for (int r = 0; r < R->P; r++)
        RC->vc[(size_t)r * R->P + r] = 1;
    R->racer = RC;
}

int pld__races_found(const struct pld__run *R)
{
    return R->racer ? R->racer->races : 0;
}

void pld__races_free(struct pld__run *R)
{
    struct pld__racer *RC = R->racer;
    if (!RC)
        return;
    pld__ptrmap_free(&RC->cells);
    for (int i = 0; i < RC->nblocks; i++)
        free(RC->blocks[i]);
    free(RC->blocks);
    for (int b = 0; b < RC->nbufs; b++) {
        for (int c = 0; RC->shadow[b] && c < RC->P; c++) {
            free(RC->shadow[b][c].a);
            free(RC->shadow[b][c].w);
        }
        free(RC->shadow[b]);
    }
    free(RC->shadow);
    free(RC->seen);
    free(RC->vc);
    free(RC);
    R->racer = NULL;
}

static uint32_t *clock_of(const struct pld__racer *RC, int r)
{
    return RC->vc + (size_t)r * RC->P;
}

/* ---- signal cells ---- */

/* The clock a cell carries, or NULL if it carries none and made is NULL;
 * otherwise a new clock is made, left for the caller to fill, and *made set. */
static uint32_t *cell_clock(struct pld__racer *RC, const void *cell, int *made)
{
    if (!made) {
        const uint64_t *v = pld__ptrmap_find(&RC->cells, (uintptr_t)cell);
        return v ? (uint32_t *)(uintptr_t)*v : NULL;
    }
    int added = 0;
    uint64_t *v = pld__ptrmap_put(&RC->cells, (uintptr_t)cell, &added);
    if (!v)
        return NULL;
    if (!added)
        return (uint32_t *)(uintptr_t)*v;
    if (RC->left == 0) {
        if (RC->nblocks == RC->capblocks) {
            int cap = RC->capblocks ? 2 * RC->capblocks : 16;
            uint32_t **nb = realloc(RC->blocks, (size_t)cap * sizeof *nb);
            if (!nb)
                return NULL;
            RC->blocks = nb;
            RC->capblocks = cap;
        }
        uint32_t *block = malloc((size_t)CLOCKS_PER_BLOCK * (size_t)RC->P * sizeof *block);
        if (!block)
            return NULL;
        RC->blocks[RC->nblocks++] = block;
        RC->left = CLOCKS_PER_BLOCK;
    }
    uint32_t *vc =
        RC->blocks[RC->nblocks - 1] + (size_t)(CLOCKS_PER_BLOCK - RC->left--) * (size_t)RC->P;
    *v = (uint64_t)(uintptr_t)vc;
    *made = 1;
    return vc;
}

/* to[q] = max(to[q], from[q]); in blocks of eight so that -O2 vectorizes it */
static void join(uint32_t *restrict to, const uint32_t *restrict from, int n)
{
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

void pld__races_release(int me, const void *cell, pld_notify_op op)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC)
        return;
    int made = 0;
    uint32_t *cv = cell_clock(RC, cell, &made), *mine = clock_of(RC, me);
    if (cv && (made || op == PLD_NOTIFY_SET)) /* a join into a new (all-zero) clock copies */
        memcpy(cv, mine, (size_t)RC->P * sizeof *cv);
    else if (cv)
        join(cv, mine, RC->P);
    mine[me]++; /* what follows the notify is not ordered by it */
}

void pld__races_acquire(int me, const void *cell)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC)
        return;
    uint32_t *cv = cell_clock(RC, cell, NULL);
    if (cv)
        join(clock_of(RC, me), cv, RC->P);
}

/* ---- data accesses ---- */

static int happens_before(const struct pld__racer *RC, const struct access *a, int me)
{
    return a->rank == me || clock_of(RC, me)[a->rank] >= a->epoch;
}

static int reported(struct pld__racer *RC, const char *f1, int l1, const char *f2, int l2)
{
    for (int i = 0; i < RC->nseen; i++)
        if (((RC->seen[i].f1 == f1 && RC->seen[i].l1 == l1 && RC->seen[i].f2 == f2 &&
              RC->seen[i].l2 == l2) ||
             (RC->seen[i].f1 == f2 && RC->seen[i].l1 == l2 && RC->seen[i].f2 == f1 &&
              RC->seen[i].l2 == l1)))
            return 1;
    if (RC->nseen == RC->capseen) {
        int cap = RC->capseen ? 2 * RC->capseen : 16;
        void *n = realloc(RC->seen, (size_t)cap * sizeof *RC->seen);
        if (!n)
            return 1;
        RC->seen = n;
        RC->capseen = cap;
    }
    RC->seen[RC->nseen].f1 = f1;
    RC->seen[RC->nseen].l1 = l1;
    RC->seen[RC->nseen].f2 = f2;
    RC->seen[RC->nseen++].l2 = l2;
    return 0;
}

static void report(struct pld__racer *RC, const struct access *old, const struct site *ow,
                   const struct access *now, const struct site *nw, const struct pld__wbuf *b,
                   int copy)
{
    /* Ranks run ahead of each other on their own clocks (sim/engine.c), so
     * the access found second may be the earlier one: the report names the
     * later one first, as it reads in model time. */
    if (nw->t < ow->t) {
        const struct access *a = old;
        const struct site *w = ow;
        old = now, ow = nw;
        now = a, nw = w;
    }
    if (reported(RC, ow->file, ow->line, nw->file, nw->line))
        return;
    RC->races++;
    int64_t lo = old->lo > now->lo ? old->lo : now->lo, hi = old->hi < now->hi ? old->hi : now->hi;
    fflush(stdout);
    fprintf(stderr,
            "%s:%d: rank %d: race: %s %s window '%s' bytes [%lld, %lld) of rank %d's copy at "
            "t=%.3f us, unordered with rank %d's %s (%s) at %s:%d at t=%.3f us: no notify->wait "
            "orders them\n",
            nw->file, nw->line, now->rank, nw->op, now->write ? "wrote" : "read", b->name,
            (long long)lo, (long long)hi, copy, nw->t * 1e6, old->rank, ow->op,
            old->write ? "a write" : "a read", ow->file, ow->line, ow->t * 1e6);
}

void pld__races_access(int me, const struct pld__wbuf *b, int copy, int64_t lo, int64_t hi,
                       int write, int atomic, const char *op, const char *file, int line)
{
    struct pld__racer *RC = pld__R->racer;
    if (!RC || hi <= lo)
        return;
    if (b->id >= RC->nbufs) {
        int n = b->id + 1;
        struct shadow **ns = realloc(RC->shadow, (size_t)n * sizeof *ns);
        if (!ns)
            return;
        for (int i = RC->nbufs; i < n; i++)
            ns[i] = NULL;
        RC->shadow = ns;
        RC->nbufs = n;
    }
    if (!RC->shadow[b->id] && !(RC->shadow[b->id] = calloc((size_t)RC->P, sizeof **RC->shadow)))
        return;
    struct shadow *s = &RC->shadow[b->id][copy];
    struct access now = {lo, hi, me, clock_of(RC, me)[me], (unsigned)write, (unsigned)atomic};
    struct site here = {op, file, line, pld__now()};
    int keep = 0, mask = s->cap - 1;
    /* An atomic access conflicts only with plain ones and supersedes none,
     * so on a buffer of signal cells there is nothing to scan. */
    if (atomic && s->plain == 0)
        keep = s->n;
    for (int i = keep; i < s->n; i++) {
        int j = (s->head + i) & mask;
        struct access *a = &s->a[j];
        /* records are never empty, so only one that overlaps can race or be
         * covered */
        if (a->lo < hi && lo < a->hi) {
            int before = happens_before(RC, a, me);
            if ((a->write || write) && !(a->atomic && atomic) && !before)
                report(RC, a, &s->w[j], &now, &here, b, copy);
            /* a write that covers an access ordered before it supersedes it */
            if (write && !atomic && a->lo >= lo && a->hi <= hi && before) {
                s->plain -= !a->atomic;
                continue;
            }
        }
        if (keep != i) { /* most accesses drop nothing: spare the copy */
            s->a[(s->head + keep) & mask] = *a;
            s->w[(s->head + keep) & mask] = s->w[j];
        }
        keep++;
    }
    s->n = keep;
    if (s->n == MAX_RECORDS) {
        s->plain -= !s->a[s->head].atomic;
        s->head = (s->head + 1) & mask;
        s->n--;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        struct access *na = realloc(s->a, (size_t)cap * sizeof *na);
        if (!na)
            return;
        s->a = na; /* still a ring of s->cap if w cannot grow */
        struct site *nw = realloc(s->w, (size_t)cap * sizeof *nw);
        if (!nw)
            return;
        s->w = nw;
        /* the records that wrapped round follow the others */
        memcpy(na + s->cap, na, (size_t)s->head * sizeof *na);
        memcpy(nw + s->cap, nw, (size_t)s->head * sizeof *nw);
        s->cap = cap;
    }
    int j = (s->head + s->n++) & (s->cap - 1);
    s->a[j] = now;
    s->w[j] = here;
    s->plain += !atomic;
}

void pld__races_region(int me, pl_tensor t, int copy, pl_shape offsets, pl_shape shape, int write,
                       int atomic, const char *op, const char *file, int line)
{
    if (!pld__R->racer || !t.win)
        return;
    /* one contiguous run per row of the region */
    int nd = shape.ndim;
    int64_t es = (int64_t)pl_dtype_size(t.dtype), row = shape.dim[nd - 1] * es;
    int64_t idx[PL_MAX_DIMS] = {0};
    int64_t base = t.win_offset;      /* the view's start inside the buffer */
    pl_shape layout = pld__layout(t); /* a strided view's rows lie in it */
    for (;;) {
        int64_t flat = 0;
        for (int i = 0; i < nd; i++)
            flat = flat * layout.dim[i] + offsets.dim[i] + (i < nd - 1 ? idx[i] : 0);
        int64_t lo = base + flat * es;
        pld__races_access(me, t.win, copy, lo, lo + row, write, atomic, op, file, line);
        int i = nd - 2;
        while (i >= 0 && ++idx[i] == shape.dim[i])
            idx[i--] = 0;
        if (i < 0)
            break;
    }
}
