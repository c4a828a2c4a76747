/* region.c: where an element of a tensor or a window copy lives, and the
 * N-D copies between them.  Sits above window.c and sparse.c (a copy into
 * a sparse window goes through its lines); the element arithmetic itself
 * is dtype.c's. */
#include "internal.h"

#include <string.h>

unsigned char *pld__elem_ptr(pl_tensor t, int rank, pl_shape offsets)
{
    int64_t flat = 0;
    for (int i = 0; i < t.shape.ndim; i++)
        flat = flat * t.shape.dim[i] + (i < offsets.ndim ? offsets.dim[i] : 0);
    size_t off = (size_t)flat * pl_dtype_size(t.dtype);
    if (t.win)
        return pld__slot(t.win, rank) + (size_t)t.win_offset + off;
    return (unsigned char *)t.data + off;
}

/* Walks the region row by row (the innermost dim is contiguous on both sides). */
void pld__copy_region(pl_dtype dt, pl_shape shape, unsigned char *dst, pl_shape dst_full,
                      const unsigned char *src, pl_shape src_full, pl_atomic op)
{
    int nd = shape.ndim;
    size_t es = pl_dtype_size(dt);
    int64_t row = shape.dim[nd - 1];
    int64_t idx[PL_MAX_DIMS] = {0};
    int64_t dstride[PL_MAX_DIMS], sstride[PL_MAX_DIMS];

    dstride[nd - 1] = sstride[nd - 1] = 1;
    for (int i = nd - 2; i >= 0; i--) {
        dstride[i] = dstride[i + 1] * dst_full.dim[i + 1];
        sstride[i] = sstride[i + 1] * src_full.dim[i + 1];
    }
    for (;;) {
        int64_t doff = 0, soff = 0;
        for (int i = 0; i < nd - 1; i++) {
            doff += idx[i] * dstride[i];
            soff += idx[i] * sstride[i];
        }
        unsigned char *d = dst + (size_t)doff * es;
        const unsigned char *s = src + (size_t)soff * es;
        if (!pld__sparse_active() || !pld__sparse_row(dt, d, s, (size_t)row * es, op))
            pld__row_apply(dt, d, s, (size_t)row * es, op);
        int i = nd - 2;
        while (i >= 0 && ++idx[i] == shape.dim[i])
            idx[i--] = 0;
        if (i < 0)
            break;
    }
}
