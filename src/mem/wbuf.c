/* wbuf.c: the storage of window buffers: their P slots, dense or sparse,
 * materialised on first use, and freed with the run.  Memory layer: the
 * backends, region copies and kept windows use it, and it calls no API. */
#include "internal.h"
#include "backend.h"

#include <stdlib.h>

void pld__materialize(const char *file, int line, const char *op, struct pld__wbuf *b)
{
    if (b->mem)
        return;
    if ((size_t)b->slot > SIZE_MAX / (size_t)pld__R->P) /* P copies would wrap size_t */
        pld__fail(PLD_ENOMEM, file, line, op,
                  "out of memory for %d copies of %lld bytes of window '%s'", pld__R->P,
                  (long long)b->slot, b->name);
    if (pld__sparse_wanted(b)) {
        b->mem = pld__sparse_reserve((size_t)pld__R->P * (size_t)b->slot);
        b->sparse = b->mem != NULL;
    }
    if (!b->mem)
        b->mem = calloc((size_t)pld__R->P, (size_t)b->slot);
    if (!b->mem)
        pld__fail(PLD_ENOMEM, file, line, op,
                  "out of memory for %d copies of %lld bytes of window '%s'%s", pld__R->P,
                  (long long)b->slot, b->name,
                  pld__R->cfg->no_data ? "" : " (timing studies can use --no-data)");
}

int pld__has_data(const pl_tensor *t)
{
    return !t->win || t->win->mem != NULL;
}

_Noreturn void pld__fail_no_data(const char *file, int line, const char *op, const char *what)
{
    pld__fail(PLD_EINVAL, file, line, op,
              "%s: this run is --no-data, which keeps no window payloads; drop --no-data to "
              "read results",
              what);
}

void pld__windows_free(struct pld__run *R)
{
    struct pld__wbuf *b = R->wbufs, *n;
    for (; b; b = n) {
        n = b->next;
        if (R->be->window_free)
            R->be->window_free(b);
        else if (b->sparse)
            pld__sparse_release(b->mem);
        else
            free(b->mem);
        free(b);
    }
    R->wbufs = R->wbufs_tail = NULL;
}

unsigned char *pld__slot(const struct pld__wbuf *b, int rank)
{
    if (!(pld__R->be->caps & PLD_CAP_DISTRIBUTED))
        return b->mem + (size_t)rank * (size_t)b->slot;
    /* only this process's rank has a slot here; the front end reaches the
     * others through pld__remote_*, so anything else is a bug in libpld */
    if (rank != pld__self()) {
        fprintf(stderr, "pldsim: internal error: rank %d's slot of window '%s' addressed from %d\n",
                rank, b->name, pld__self());
        abort();
    }
    return b->mem;
}
