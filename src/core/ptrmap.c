/* ptrmap.c: the side tables' hash map (ptrmap.h). */
#include "ptrmap.h"

#include <stdlib.h>

static size_t home(const struct pld__ptrmap *m, uintptr_t key)
{
    /* the high bits of the product mix every bit of the key: addresses
     * differ in their middle bits, line numbers in their low ones */
    return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

static struct pld__ptrmap_entry *probe(const struct pld__ptrmap *m, uintptr_t key)
{
    size_t mask = m->cap - 1, i = home(m, key);
    while (m->e[i].key && m->e[i].key != key)
        i = (i + 1) & mask;
    return &m->e[i];
}

uint64_t *pld__ptrmap_find(const struct pld__ptrmap *m, uintptr_t key)
{
    if (!m->cap)
        return NULL;
    struct pld__ptrmap_entry *e = probe(m, key);
    return e->key ? &e->val : NULL;
}

static int grow(struct pld__ptrmap *m)
{
    struct pld__ptrmap bigger = {.cap = m->cap ? 2 * m->cap : 256};
    int bits = 0;
    while (((size_t)1 << bits) < bigger.cap)
        bits++;
    bigger.shift = 64 - bits;
    if (!(bigger.e = calloc(bigger.cap, sizeof *bigger.e)))
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key)
            *probe(&bigger, m->e[i].key) = m->e[i];
    bigger.n = m->n;
    free(m->e);
    *m = bigger;
    return 0;
}

uint64_t *pld__ptrmap_put(struct pld__ptrmap *m, uintptr_t key, int *added)
{
    if (m->cap) {
        struct pld__ptrmap_entry *e = probe(m, key);
        if (e->key)
            return &e->val;
    }
    /* at most 3/4 full: probes stay within a cache line or two */
    if (4 * (m->n + 1) > 3 * m->cap && grow(m) != 0)
        return NULL;
    struct pld__ptrmap_entry *e = probe(m, key);
    e->key = key;
    e->val = 0;
    m->n++;
    if (added)
        *added = 1;
    return &e->val;
}

void pld__ptrmap_free(struct pld__ptrmap *m)
{
    free(m->e);
    *m = (struct pld__ptrmap){0};
}
