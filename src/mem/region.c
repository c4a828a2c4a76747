/* region.c: where an element of a tensor or a window copy lives, and the
 * N-D copies between them.  Sits above window.c and sparse.c (a copy into
 * a sparse window goes through its lines); the element arithmetic itself
 * is dtype.c's. */
#include "internal.h"
#include "mem.h"
#include "contract.h" /* struct pld__region, which the backends copy */

#include <string.h>

struct pld__region pld__region_of(pl_tensor t, pl_shape offsets, pl_shape shape)
{
    return (struct pld__region){.dtype = t.dtype,
                                .full = pld__layout(t),
                                .offsets = offsets,
                                .shape = shape,
                                .base = t.win_offset};
}

pl_shape pld__layout(pl_tensor t)
{
    return t.layout.ndim ? t.layout : t.shape;
}

int64_t pld__offset_bytes(pl_tensor t, pl_shape offsets)
{
    pl_shape l = pld__layout(t);
    int64_t flat = 0;
    for (int i = 0; i < l.ndim; i++)
        flat = flat * l.dim[i] + (i < offsets.ndim ? offsets.dim[i] : 0);
    return flat * (int64_t)pl_dtype_size(t.dtype);
}

unsigned char *pld__elem_ptr(pl_tensor t, int rank, pl_shape offsets)
{
    size_t off = (size_t)pld__offset_bytes(t, offsets);
    if (t.win)
        return pld__slot(t.win, rank) + (size_t)t.win_offset + off;
    return (unsigned char *)t.data + off;
}

void pld__check_dense(const char *file, int line, const char *op, const char *what, pl_tensor t)
{
    char a[64], b[64];
    if (t.layout.ndim)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s '%s' is a strided view (%s of rows of %s): %s needs a dense tensor; slice "
                  "whole rows, or pl_load the part you need",
                  what, t.name, pld__shape_str(t.shape, a, sizeof a),
                  pld__shape_str(t.layout, b, sizeof b), op);
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
