/* array_extent.c: which array a load reads, in bytes, so that the clock
 * can ask whether the L2 holds it (pld__from_hbm, docs/models.md "HBM").
 * A view keeps only the rows it spans, so the array is found from the
 * region's shape, the view's layout, a window buffer's size, or what a
 * front end says (pl_load_kw.array_bytes). */
#include "internal.h"
#include "mem.h"

#include <math.h>

/* The first dim of `s` wider than 1 (its last when none is). */
static int first_wide(pl_shape s)
{
    int i = 0;
    while (i < s.ndim - 1 && s.dim[i] == 1)
        i++;
    return i;
}

/* The bytes of `t`'s layout from dim `i` on: one slab of it. */
static double slab_bytes(pl_tensor t, int i)
{
    pl_shape a = pld__layout(t);
    double n = (double)pl_dtype_size(t.dtype);
    for (; i < a.ndim; i++)
        n *= (double)a.dim[i];
    return n;
}

/* (mem.h) The bytes of the array a load of `region` reads from, which
 * pld__from_hbm asks of the L2.  A region inside one slab of `t` of two
 * dims or more (a rank's of a tensor [P, ...]: leading dims of 1 where `t`
 * has more) reads that slab; a row is not a slab (a region [1, D] of a
 * [V, D] weight, a GEMV's or a gather's, reads the weight).  Otherwise it
 * is the array `t` lies in: what the caller says (a front end's slice of a
 * slice has lost it), a window buffer's copy on a rank, or `t`'s own
 * layout. */
double pld__array_bytes(pl_tensor t, pl_shape region, struct pl_load_kw kw)
{
    int i = first_wide(region), j = first_wide(t.shape);
    if (i > j && i < region.ndim - 1)
        return slab_bytes(t, i);
    if (kw.array_bytes > 0)
        return kw.array_bytes;
    return t.win ? (double)t.win->bytes : slab_bytes(t, j);
}

/* Fails unless the caller's array_bytes is a size: 0 (not said) or more. */
void pld__check_array_bytes(const char *file, int line, const char *op, struct pl_load_kw kw)
{
    if (!(kw.array_bytes >= 0) || !isfinite(kw.array_bytes))
        pld__fail(PLD_EINVAL, file, line, op,
                  "array_bytes %g: expected the bytes of the array the tensor lies in, 0 or more "
                  "(0: the tensor's own layout)",
                  kw.array_bytes);
}
