/* ptrmap.h: one hash map from a non-NULL pointer-sized key to a 64-bit
 * value, for the run's side tables: a cell's last notifier (deadlock.c),
 * its race-detector clock (races.c) and its last notify in the trace
 * (events.c).  (sparse.c keeps a denser table of its own: it says why.)
 *
 * Open addressing with linear probing on Fibonacci-hashed keys; a key and
 * its value share one 16-byte entry, so a lookup that hits costs one cache
 * miss, not one for the key and another for the value.  Not thread-safe:
 * callers that may run on threads hold their own lock. */
#ifndef PLD_PTRMAP_H
#define PLD_PTRMAP_H

#include <stddef.h>
#include <stdint.h>

struct pld__ptrmap_entry {
    uintptr_t key; /* 0: empty */
    uint64_t val;
};

/* Zeroed is an empty map. */
struct pld__ptrmap {
    struct pld__ptrmap_entry *e;
    size_t cap, n; /* cap: a power of two, or 0 */
    int shift;     /* 64 - log2(cap) */
};

/* The value of `key`, or NULL when the map has none. */
uint64_t *pld__ptrmap_find(const struct pld__ptrmap *m, uintptr_t key);

/* The value of `key`, added as 0 if the map had none (then *added = 1 when
 * `added` is not NULL).  NULL when out of memory. */
uint64_t *pld__ptrmap_put(struct pld__ptrmap *m, uintptr_t key, int *added);

/* Frees the table; the map is empty again. */
void pld__ptrmap_free(struct pld__ptrmap *m);

#endif
