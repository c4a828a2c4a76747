/* persist.c: window buffers kept from one run to the next (pld_windows;
 * upstream's prepare(persistent=True)), and the count of comm-domain
 * windows a run allocates.
 *
 * Only bytes carry over: every rank's copy of each buffer, data and signal
 * cells alike.  A run is a simulation of its own from time 0, and its end
 * orders every access it made before the next run's (upstream's worker
 * finishes one dispatch before it starts the next), so neither the clocks
 * nor the race detector's history need to survive; the deadlock report of
 * a later run cannot name who notified a cell in an earlier one. */
#include "internal.h"
#include "mem.h"
#include "contract.h"

#include <stdlib.h>
#include <string.h>

struct kept {
    char name[48];
    int n;        /* ranks of its comm group; 0 for the world */
    int *members; /* n world ranks */
    int P;        /* world size of the run that kept it */
    int64_t bytes, slot;
    unsigned char
        *data; /* a slot for each rank of the group (n, or P), or NULL (a --no-data run) */
};

struct pld_windows {
    struct kept *v;
    int n, cap;
    int64_t allocations;
};

pld_windows *pld_windows_new(void)
{
    return calloc(1, sizeof(pld_windows));
}

static void clear(pld_windows *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->v[i].members);
        free(w->v[i].data);
    }
    free(w->v);
    w->v = NULL;
    w->n = w->cap = 0;
}

void pld_windows_free(pld_windows *w)
{
    if (!w)
        return;
    clear(w);
    free(w);
}

int64_t pld_windows_allocations(const pld_windows *w)
{
    return w ? w->allocations : 0;
}

static int same_group(const struct kept *k, const struct pld__group *g)
{
    if (!g)
        return k->n == 0;
    return k->n == g->n && memcmp(k->members, g->members, (size_t)g->n * sizeof *k->members) == 0;
}

static struct kept *find(pld_windows *w, const struct pld__wbuf *b)
{
    for (int i = 0; w && i < w->n; i++)
        if (strcmp(w->v[i].name, b->name) == 0 && same_group(&w->v[i], b->group))
            return &w->v[i];
    return NULL;
}

/* Copies n bytes where either side may be a sparse window. */
static void copy_bytes(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (!pld__sparse_row(PL_INT32, dst, src, n, PL_ATOMIC_NONE))
        memcpy(dst, src, n);
}

void pld__kept_restore(const char *file, int line, const char *op, struct pld__wbuf *b)
{
    struct pld__run *R = pld__R;
    struct pld__group *g = (struct pld__group *)b->group;
    int *seen = g ? &g->seen : &R->world_seen, *fresh = g ? &g->fresh : &R->world_fresh;
    if (!*seen) {
        *seen = 1;
        R->domains++;
    }
    pld_windows *w = R->cfg->keep_windows;
    struct kept *k = find(w, b);
    if (!k) {
        if (!*fresh) {
            *fresh = 1;
            R->domains_allocated++;
            if (w)
                w->allocations++;
        }
        return;
    }
    if (k->bytes != b->bytes || k->P != R->P)
        pld__fail(
            PLD_EINVAL, file, line, op,
            "window buffer '%s' is kept from an earlier run with %lld bytes on %d ranks; this "
            "run allocates %lld bytes on %d: a kept window keeps its size",
            b->name, (long long)k->bytes, k->P, (long long)b->bytes, R->P);
    if (R->cfg->reset_kept_windows || !k->data || R->cfg->no_data)
        return; /* zero-filled, as allocated */
    pld__materialize(file, line, op, b);
    copy_bytes(b->mem, k->data, (size_t)pld__wbuf_copies(b) * (size_t)b->slot);
}

void pld__kept_save(struct pld__run *R)
{
    pld_windows *w = R->cfg->keep_windows;
    if (!w)
        return;
    for (struct pld__wbuf *b = R->wbufs; b; b = b->next) {
        struct kept *k = find(w, b);
        if (!k) {
            if (w->n == w->cap) {
                int cap = w->cap ? 2 * w->cap : 8;
                struct kept *v = realloc(w->v, (size_t)cap * sizeof *v);
                if (!v)
                    continue; /* out of memory: this buffer is not kept */
                w->v = v;
                w->cap = cap;
            }
            k = &w->v[w->n];
            *k = (struct kept){.n = b->group ? b->group->n : 0};
            snprintf(k->name, sizeof k->name, "%s", b->name);
            if (k->n && !(k->members = malloc((size_t)k->n * sizeof *k->members)))
                continue;
            if (k->n)
                memcpy(k->members, b->group->members, (size_t)k->n * sizeof *k->members);
            w->n++;
        }
        k->P = R->P;
        k->bytes = b->bytes;
        k->slot = b->slot;
        free(k->data);
        k->data = NULL;
        size_t n = (size_t)pld__wbuf_copies(b) * (size_t)b->slot;
        if (b->mem && (k->data = malloc(n)))
            copy_bytes(k->data, b->mem, n);
    }
}

/* ---- serialisation: a magic word, then each entry's fields in order ---- */

static const char magic[8] = "PLDWIN1";

struct buf {
    unsigned char *p;
    size_t len, cap;
    int failed;
};

static void put(struct buf *o, const void *src, size_t n)
{
    if (o->failed || n == 0) /* memcpy may not be given NULL, even for 0 bytes */
        return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        unsigned char *p = realloc(o->p, cap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, src, n);
    o->len += n;
}

/* A kept buffer's data: a copy for each rank of its group (of the world). */
static size_t kept_bytes(const struct kept *k)
{
    return (size_t)(k->n ? k->n : k->P) * (size_t)k->slot;
}

int pld_windows_save(const pld_windows *w, unsigned char **out, size_t *len)
{
    struct buf o = {0};
    put(&o, magic, sizeof magic);
    put(&o, &w->allocations, sizeof w->allocations);
    put(&o, &w->n, sizeof w->n);
    for (int i = 0; i < w->n; i++) {
        const struct kept *k = &w->v[i];
        int has = k->data != NULL;
        put(&o, k->name, sizeof k->name);
        put(&o, &k->n, sizeof k->n);
        put(&o, k->members, (size_t)k->n * sizeof *k->members);
        put(&o, &k->P, sizeof k->P);
        put(&o, &k->bytes, sizeof k->bytes);
        put(&o, &k->slot, sizeof k->slot);
        put(&o, &has, sizeof has);
        if (has)
            put(&o, k->data, kept_bytes(k));
    }
    if (o.failed) {
        free(o.p);
        return PLD_ENOMEM;
    }
    *out = o.p;
    *len = o.len;
    return 0;
}

static int take(const unsigned char **in, size_t *left, void *dst, size_t n)
{
    if (*left < n)
        return -1;
    if (n == 0) /* memcpy may not be given NULL, even for 0 bytes */
        return 0;
    memcpy(dst, *in, n);
    *in += n;
    *left -= n;
    return 0;
}

int pld_windows_load(pld_windows *w, const unsigned char *in, size_t len)
{
    char m[sizeof magic];
    pld_windows fresh = {0};
    int n, rc = PLD_EINVAL;
    if (take(&in, &len, m, sizeof m) || memcmp(m, magic, sizeof m) ||
        take(&in, &len, &fresh.allocations, sizeof fresh.allocations) ||
        take(&in, &len, &n, sizeof n) || n < 0)
        return PLD_EINVAL;
    if (n && !(fresh.v = calloc((size_t)n, sizeof *fresh.v)))
        return PLD_ENOMEM;
    fresh.cap = n;
    for (; fresh.n < n; fresh.n++) {
        struct kept *k = &fresh.v[fresh.n];
        int has;
        if (take(&in, &len, k->name, sizeof k->name) || take(&in, &len, &k->n, sizeof k->n) ||
            k->n < 0 || k->n > PLD_MAX_RANKS)
            goto bad;
        k->name[sizeof k->name - 1] = '\0';
        if (k->n && !(k->members = malloc((size_t)k->n * sizeof *k->members)))
            goto oom;
        if (take(&in, &len, k->members, (size_t)k->n * sizeof *k->members) ||
            take(&in, &len, &k->P, sizeof k->P) || take(&in, &len, &k->bytes, sizeof k->bytes) ||
            take(&in, &len, &k->slot, sizeof k->slot) || take(&in, &len, &has, sizeof has) ||
            k->P < 1 || k->P > PLD_MAX_RANKS || k->slot < k->bytes || k->bytes < 1)
            goto bad;
        size_t bytes = kept_bytes(k);
        if (has && (len < bytes || !(k->data = malloc(bytes))))
            goto bad;
        if (has)
            take(&in, &len, k->data, bytes);
    }
    if (len)
        goto bad;
    clear(w);
    *w = fresh;
    return 0;
oom:
    rc = PLD_ENOMEM;
bad:
    if (fresh.n < fresh.cap)
        fresh.n++; /* the entry being read holds what it got */
    clear(&fresh);
    return rc;
}
