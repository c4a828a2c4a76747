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

#include <stdlib.h>
#include <string.h>

struct access {
    int64_t lo, hi; /* byte range in the copy */
    int rank;
    uint32_t epoch;
    unsigned write : 1, atomic : 1;
    const char *op, *file;
    int line;
    double t;
};

struct shadow {
    struct access *a;
    int n, cap;
    int plain; /* how many of a[] are not atomic */
};

#define MAX_RECORDS 512 /* per copy of a buffer; the oldest go first */

struct racer {
    int P;
    uint32_t *vc; /* P x P: vc[r * P + q] = what rank r knows of rank q */
    /* cell -> clock of the notifies it carries */
    const void **cell_key;
    uint32_t **cell_vc;
    size_t cell_cap, cell_n;
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

static struct racer *RC;

int pld__races_enabled(void)
{
    return RC != NULL;
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
    if (mode == PLD_RACES_OFF)
        return;
    RC = calloc(1, sizeof *RC);
    if (!RC)
        return;
    RC->P = R->P;
    RC->vc = calloc((size_t)R->P * (size_t)R->P, sizeof *RC->vc);
    if (!RC->vc) {
        free(RC);
        RC = NULL;
        return;
    }
    for (int r = 0; r < R->P; r++)
        RC->vc[(size_t)r * R->P + r] = 1;
}

int pld__races_end(struct pld__run *R)
{
    int n = 0;
    (void)R;
    if (!RC)
        return 0;
    n = RC->races;
    for (size_t i = 0; i < RC->cell_cap; i++)
        free(RC->cell_vc ? RC->cell_vc[i] : NULL);
    free(RC->cell_key);
    free(RC->cell_vc);
    for (int b = 0; b < RC->nbufs; b++) {
        for (int c = 0; RC->shadow[b] && c < RC->P; c++)
            free(RC->shadow[b][c].a);
        free(RC->shadow[b]);
    }
    free(RC->shadow);
    free(RC->seen);
    free(RC->vc);
    free(RC);
    RC = NULL;
    return n;
}

static uint32_t *clock_of(int r)
{
    return RC->vc + (size_t)r * RC->P;
}

/* ---- signal cells ---- */

static size_t cell_slot(const void *key)
{
    size_t h = ((uintptr_t)key >> 2) * 0x9e3779b97f4a7c15ull, i = h & (RC->cell_cap - 1);
    while (RC->cell_key[i] && RC->cell_key[i] != key)
        i = (i + 1) & (RC->cell_cap - 1);
    return i;
}

static uint32_t *cell_clock(const void *cell, int create)
{
    if (RC->cell_cap == 0 || 2 * (RC->cell_n + 1) > RC->cell_cap) {
        if (!create && RC->cell_cap)
            goto lookup;
        size_t cap = RC->cell_cap ? 2 * RC->cell_cap : 256;
        const void **keys = calloc(cap, sizeof *keys);
        uint32_t **vcs = calloc(cap, sizeof *vcs);
        if (!keys || !vcs) {
            free(keys);
            free(vcs);
            return NULL;
        }
        const void **ok = RC->cell_key;
        uint32_t **ov = RC->cell_vc;
        size_t ocap = RC->cell_cap;
        RC->cell_key = keys;
        RC->cell_vc = vcs;
        RC->cell_cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (ok[i]) {
                size_t j = cell_slot(ok[i]);
                RC->cell_key[j] = ok[i];
                RC->cell_vc[j] = ov[i];
            }
        free(ok);
        free(ov);
    }
lookup:;
    size_t i = cell_slot(cell);
    if (!RC->cell_key[i]) {
        if (!create)
            return NULL;
        RC->cell_vc[i] = calloc((size_t)RC->P, sizeof **RC->cell_vc);
        if (!RC->cell_vc[i])
            return NULL;
        RC->cell_key[i] = cell;
        RC->cell_n++;
    }
    return RC->cell_vc[i];
}

void pld__races_release(int me, const void *cell, pld_notify_op op)
{
    if (!RC)
        return;
    uint32_t *cv = cell_clock(cell, 1), *mine = clock_of(me);
    if (cv)
        for (int q = 0; q < RC->P; q++)
            cv[q] = op == PLD_NOTIFY_SET ? mine[q] : (cv[q] > mine[q] ? cv[q] : mine[q]);
    mine[me]++; /* what follows the notify is not ordered by it */
}

void pld__races_acquire(int me, const void *cell)
{
    if (!RC)
        return;
    uint32_t *cv = cell_clock(cell, 0), *mine = clock_of(me);
    for (int q = 0; cv && q < RC->P; q++)
        if (cv[q] > mine[q])
            mine[q] = cv[q];
}

/* ---- data accesses ---- */

static int happens_before(const struct access *a, int me)
{
    return a->rank == me || clock_of(me)[a->rank] >= a->epoch;
}

static int reported(const char *f1, int l1, const char *f2, int l2)
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

static void report(const struct access *old, const struct access *now, const struct pld__wbuf *b,
                   int copy)
{
    if (reported(old->file, old->line, now->file, now->line))
        return;
    RC->races++;
    int64_t lo = old->lo > now->lo ? old->lo : now->lo, hi = old->hi < now->hi ? old->hi : now->hi;
    fflush(stdout);
    fprintf(stderr,
            "%s:%d: rank %d: race: %s %s window '%s' bytes [%lld, %lld) of rank %d's copy at "
            "t=%.3f us, unordered with rank %d's %s (%s) at %s:%d at t=%.3f us: no notify->wait "
            "orders them\n",
            now->file, now->line, now->rank, now->op, now->write ? "wrote" : "read", b->name,
            (long long)lo, (long long)hi, copy, now->t * 1e6, old->rank, old->op,
            old->write ? "a write" : "a read", old->file, old->line, old->t * 1e6);
}

void pld__races_access(int me, const struct pld__wbuf *b, int copy, int64_t lo, int64_t hi,
                       int write, int atomic, const char *op, const char *file, int line)
{
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
    struct access now = {lo, hi,   me,   clock_of(me)[me], (unsigned)write, (unsigned)atomic,
                         op, file, line, pld__now()};
    int keep = 0;
    /* An atomic access conflicts only with plain ones and supersedes none,
     * so on a buffer of signal cells there is nothing to scan. */
    if (atomic && s->plain == 0)
        keep = s->n;
    for (int i = keep; i < s->n; i++) {
        struct access *a = &s->a[i];
        int overlap = a->lo < hi && lo < a->hi;
        if (overlap && (a->write || write) && !(a->atomic && atomic) && !happens_before(a, me))
            report(a, &now, b, copy);
        /* a write that covers an access ordered before it supersedes it */
        if (write && !atomic && a->lo >= lo && a->hi <= hi && happens_before(a, me)) {
            s->plain -= !a->atomic;
            continue;
        }
        if (keep != i) /* most accesses drop nothing: spare the copy */
            s->a[keep] = *a;
        keep++;
    }
    s->n = keep;
    if (s->n == MAX_RECORDS) {
        s->plain -= !s->a[0].atomic;
        memmove(s->a, s->a + 1, (size_t)(s->n - 1) * sizeof *s->a);
        s->n--;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        struct access *na = realloc(s->a, (size_t)cap * sizeof *na);
        if (!na)
            return;
        s->a = na;
        s->cap = cap;
    }
    s->a[s->n++] = now;
    s->plain += !atomic;
}

void pld__races_region(int me, pl_tensor t, int copy, pl_shape offsets, pl_shape shape, int write,
                       int atomic, const char *op, const char *file, int line)
{
    if (!RC || !t.win)
        return;
    /* one contiguous run per row of the region */
    int nd = shape.ndim;
    int64_t es = (int64_t)pl_dtype_size(t.dtype), row = shape.dim[nd - 1] * es;
    int64_t idx[PL_MAX_DIMS] = {0};
    int64_t base = t.win_offset; /* the view's start inside the buffer */
    for (;;) {
        int64_t flat = 0;
        for (int i = 0; i < nd; i++)
            flat = flat * t.shape.dim[i] + offsets.dim[i] + (i < nd - 1 ? idx[i] : 0);
        int64_t lo = base + flat * es;
        pld__races_access(me, t.win, copy, lo, lo + row, write, atomic, op, file, line);
        int i = nd - 2;
        while (i >= 0 && ++idx[i] == shape.dim[i])
            idx[i--] = 0;
        if (i < 0)
            break;
    }
}
