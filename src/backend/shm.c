/* shm.c: the data half of the operations when every rank's window slot is
 * in this process's memory (the sim and threads backends).  The backend
 * adds the time; this moves the bytes. */
#include "internal.h"
#include "mem.h"
#include "backend.h"

static unsigned char *region_ptr(const struct pld__wbuf *b, int rank, const struct pld__region *rg)
{
    int64_t flat = 0;
    for (int i = 0; i < rg->full.ndim; i++)
        flat = flat * rg->full.dim[i] + rg->offsets.dim[i];
    return pld__slot(b, rank) + rg->base + flat * (int64_t)pl_dtype_size(rg->dtype);
}

void pld__shm_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span dst)
{
    if (dst.ptr)
        pld__copy_region(rg->dtype, rg->shape, dst.ptr, dst.full, region_ptr(b, peer, rg), rg->full,
                         PL_ATOMIC_NONE);
}

void pld__shm_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                    struct pld__span src, pl_atomic op)
{
    if (src.ptr)
        pld__copy_region(rg->dtype, rg->shape, region_ptr(b, peer, rg), rg->full, src.ptr, src.full,
                         op);
}

int32_t *pld__shm_cell(const struct pld__wbuf *b, int rank, int64_t off)
{
    return pld__cell(pld__slot(b, rank) + off);
}
