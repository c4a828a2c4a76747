/* remote.c: reaching a window slot that lives in another process.  The
 * shared-memory backends copy through pld__elem_ptr; a distributed backend
 * (PLD_CAP_DISTRIBUTED) moves the region through its rma hooks instead, so
 * the front end describes the region once, here, in the backend's terms. */
#include "backend.h"

#include <stdlib.h>

int pld__is_remote(int rank)
{
    return (pld__R->be->caps & PLD_CAP_DISTRIBUTED) && rank != pld__self();
}

int pld__write_via_backend(int rank, pl_atomic op)
{
    /* MPI makes accumulates atomic only against other MPI atomics on the
     * same location: a rank's own Add must go through MPI too, as its own
     * notifies already do, or it races with a peer's */
    return pld__is_remote(rank) ||
           ((pld__R->be->caps & PLD_CAP_DISTRIBUTED) && op == PL_ATOMIC_ADD);
}

static struct pld__region region_of(pl_tensor t, pl_shape offsets, pl_shape shape)
{
    return (struct pld__region){.dtype = t.dtype,
                                .full = t.shape,
                                .offsets = offsets,
                                .shape = shape,
                                .base = t.win_offset};
}

void pld__remote_read(pl_tensor t, int peer, pl_shape offsets, pl_shape shape, void *packed)
{
    struct pld__region rg = region_of(t, offsets, shape);
    pld__R->be->rma_read(peer, t.win, &rg, packed);
}

void pld__remote_write(pl_tensor t, int peer, pl_shape offsets, pl_shape shape, const void *packed,
                       pl_atomic op)
{
    struct pld__region rg = region_of(t, offsets, shape);
    pld__R->be->rma_write(peer, t.win, &rg, packed, op);
}

/* put/get regions have a local side that may be strided: it is packed into
 * (or unpacked from) a contiguous staging copy, as the DMA engine would. */
static void *staging(const char *file, int line, const char *op, pl_dtype dt, pl_shape shape)
{
    void *p = malloc((size_t)pl_shape_numel(shape) * pl_dtype_size(dt));
    if (!p)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory staging %lld elements",
                  (long long)pl_shape_numel(shape));
    return p;
}

void pld__remote_put(const char *file, int line, const char *op, pl_tensor dst, int peer,
                     pl_shape dst_off, pl_tensor src, pl_shape src_off, pl_shape shape,
                     pl_atomic atomic)
{
    unsigned char *tmp = staging(file, line, op, dst.dtype, shape);
    pld__copy_region(src.dtype, shape, tmp, shape, pld__elem_ptr(src, pld__self(), src_off),
                     src.shape, PL_ATOMIC_NONE);
    pld__remote_write(dst, peer, dst_off, shape, tmp, atomic);
    free(tmp);
}

void pld__remote_get(const char *file, int line, const char *op, pl_tensor dst, pl_shape dst_off,
                     pl_tensor src, int peer, pl_shape src_off, pl_shape shape)
{
    unsigned char *tmp = staging(file, line, op, dst.dtype, shape);
    pld__remote_read(src, peer, src_off, shape, tmp);
    pld__copy_region(dst.dtype, shape, pld__elem_ptr(dst, pld__self(), dst_off), dst.shape, tmp,
                     shape, PL_ATOMIC_NONE);
    free(tmp);
}
