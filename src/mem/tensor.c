/* tensor.c: host tensors in global memory, views, golden fills and checks. */
#include "internal.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pl_tensor pl__tensor_new(const char *file, int line, pl_shape shape, pl_dtype dtype,
                         const char *name)
{
    char a[64];
    pl_tensor t;
    memset(&t, 0, sizeof t);
    if (pl_dtype_size(dtype) == 0)
        pld__fail(PLD_EINVAL, file, line, "pl_tensor_new", "invalid dtype %d", (int)dtype);
    if (shape.ndim < 1 || shape.ndim > PL_MAX_DIMS)
        pld__fail(PLD_EINVAL, file, line, "pl_tensor_new", "shape has %d dims, expected 1..%d",
                  shape.ndim, PL_MAX_DIMS);
    for (int i = 0; i < shape.ndim; i++)
        if (shape.dim[i] <= 0)
            pld__fail(PLD_EINVAL, file, line, "pl_tensor_new",
                      "shape %s: dim %d must be > 0 (a pl_dynamic dim is for declarations only)",
                      pld__shape_str(shape, a, sizeof a), i);
    t.dtype = dtype;
    t.shape = shape;
    if (pld__shape_bytes(shape, pl_dtype_size(dtype)) == INT64_MAX)
        pld__fail(PLD_EINVAL, file, line, "pl_tensor_new",
                  "shape %s: a %s tensor of it needs more than 2^63 bytes",
                  pld__shape_str(shape, a, sizeof a), pl_dtype_name(dtype));
    t.data = calloc((size_t)pl_shape_numel(shape), pl_dtype_size(dtype));
    t.name = strdup(name ? name : "tensor");
    if (!t.data || !t.name)
        pld__fail(PLD_ENOMEM, file, line, "pl_tensor_new", "out of memory for %s %s tensor",
                  pld__shape_str(shape, a, sizeof a), pl_dtype_name(dtype));
    pld__host_tensor_note(&t);
    return t;
}

void pl_tensor_free(pl_tensor *t)
{
    if (!t)
        return;
    pld__host_tensor_forget(t->data);
    free(t->data);
    free((char *)t->name);
    memset(t, 0, sizeof *t);
}

static pl_shape dense_or(pl_shape shape, pl_shape layout);

pl_tensor pl__at(const char *file, int line, pl_tensor t, int64_t i)
{
    char a[64];
    if (t.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, "pl_at", "tensor is not initialised");
    if (i < 0 || i >= t.shape.dim[0])
        pld__fail(PLD_EINVAL, file, line, "pl_at",
                  "index %lld out of range for '%s' %s (dim 0 is %lld)", (long long)i, t.name,
                  pld__shape_str(t.shape, a, sizeof a), (long long)t.shape.dim[0]);
    pl_tensor v = t;
    pl_shape idx = {.ndim = t.shape.ndim, .dim = {i}};
    size_t off = (size_t)pld__offset_bytes(t, idx);
    if (t.shape.ndim == 1) {
        v.shape = PL_SHAPE(1);
        v.layout = (pl_shape){.ndim = 0};
    } else {
        v.shape.ndim = t.shape.ndim - 1;
        for (int k = 0; k < v.shape.ndim; k++)
            v.shape.dim[k] = t.shape.dim[k + 1];
        v.shape.dim[v.shape.ndim] = 0;
        if (t.layout.ndim) { /* the same rows, one dim fewer */
            v.layout.ndim = t.layout.ndim - 1;
            for (int k = 0; k < v.layout.ndim; k++)
                v.layout.dim[k] = t.layout.dim[k + 1];
            v.layout.dim[v.layout.ndim] = 0;
        }
    }
    if (t.win)
        v.win_offset += (int64_t)off;
    else
        v.data = (unsigned char *)t.data + off;
    v.layout = dense_or(v.shape, v.layout);
    return v;
}

/* A view of `shape` in the row-major array `layout` (ndim 0: dense) is
 * dense when every dim after its first non-unit one spans the layout's:
 * then its elements are one run and it needs no layout. */
static pl_shape dense_or(pl_shape shape, pl_shape layout)
{
    int i = 0;
    if (layout.ndim == 0)
        return layout;
    while (i < shape.ndim && shape.dim[i] == 1)
        i++;
    for (int k = i + 1; k < shape.ndim; k++)
        if (shape.dim[k] != layout.dim[k])
            return layout;
    return (pl_shape){.ndim = 0};
}

pl_tensor pl__slice(const char *file, int line, pl_tensor t, pl_shape shape, pl_shape offsets)
{
    if (t.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, "pl_slice", "tensor is not initialised");
    pld__check_region(file, line, "pl_slice", "tensor", t, offsets, shape);
    pl_tensor v = t;
    size_t off = (size_t)pld__offset_bytes(t, offsets);
    v.shape = shape;
    v.layout = dense_or(shape, pld__layout(t));
    if (t.win)
        v.win_offset += (int64_t)off;
    else
        v.data = (unsigned char *)t.data + off;
    return v;
}

/* Where element `flat` (row-major in t.shape) of host tensor `t` lives. */
static unsigned char *flat_ptr(pl_tensor t, int64_t flat)
{
    if (t.layout.ndim == 0)
        return (unsigned char *)t.data + (size_t)flat * pl_dtype_size(t.dtype);
    pl_shape idx = {.ndim = t.shape.ndim};
    for (int i = t.shape.ndim - 1; i >= 0; i--) {
        idx.dim[i] = flat % t.shape.dim[i];
        flat /= t.shape.dim[i];
    }
    return pld__elem_ptr(t, 0, idx);
}

double pl_tensor_get(pl_tensor t, int64_t flat)
{
    return pld__elem_get(t.dtype, flat_ptr(t, flat));
}

void pl_tensor_set(pl_tensor t, int64_t flat, double v)
{
    pld__elem_set(t.dtype, flat_ptr(t, flat), v);
}

/* splitmix64: tiny, well-mixed, and the same on every machine. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void pl_fill_randn(pl_tensor t, uint64_t seed)
{
    uint64_t s = seed;
    int64_t n = pl_shape_numel(t.shape);
    for (int64_t i = 0; i < n; i += 2) {
        /* Box-Muller on two uniforms in (0, 1]. */
        double u1 = ((double)(splitmix64(&s) >> 11) + 1.0) / 9007199254740992.0;
        double u2 = (double)(splitmix64(&s) >> 11) / 9007199254740992.0;
        double r = sqrt(-2.0 * log(u1));
        pl_tensor_set(t, i, r * cos(2 * M_PI * u2));
        if (i + 1 < n)
            pl_tensor_set(t, i + 1, r * sin(2 * M_PI * u2));
    }
}

void pl_fill_arange(pl_tensor t, double start, double step)
{
    int64_t n = pl_shape_numel(t.shape);
    for (int64_t i = 0; i < n; i++)
        pl_tensor_set(t, i, start + step * (double)i);
}

void pl_fill(pl_tensor t, double v)
{
    int64_t n = pl_shape_numel(t.shape);
    for (int64_t i = 0; i < n; i++)
        pl_tensor_set(t, i, v);
}

static void index_str(pl_shape s, int64_t flat, char *buf, size_t len)
{
    int64_t idx[PL_MAX_DIMS];
    for (int i = s.ndim - 1; i >= 0; i--) {
        idx[i] = flat % s.dim[i];
        flat /= s.dim[i];
    }
    pl_shape p = {.ndim = s.ndim};
    memcpy(p.dim, idx, sizeof idx);
    pld__shape_str(p, buf, len);
}

static int compare(pl_tensor a, pl_tensor b, double rtol, double atol, int exact, char *why,
                   size_t whylen)
{
    char sa[64], sb[64];
    if (!pld__shape_eq(a.shape, b.shape)) {
        if (why)
            snprintf(why, whylen, "shape mismatch: '%s' %s vs '%s' %s", a.name,
                     pld__shape_str(a.shape, sa, sizeof sa), b.name,
                     pld__shape_str(b.shape, sb, sizeof sb));
        return 0;
    }
    int64_t n = pl_shape_numel(a.shape);
    for (int64_t i = 0; i < n; i++) {
        double x = pl_tensor_get(a, i), y = pl_tensor_get(b, i);
        int ok = exact ? x == y : fabs(x - y) <= atol + rtol * fabs(y);
        if (!ok) {
            if (why) {
                index_str(a.shape, i, sa, sizeof sa);
                snprintf(why, whylen, "%s%s = %.9g but %s%s = %.9g", a.name, sa, x, b.name, sa, y);
            }
            return 0;
        }
    }
    return 1;
}

int pl_allclose(pl_tensor a, pl_tensor b, double rtol, double atol, char *why, size_t whylen)
{
    return compare(a, b, rtol, atol, 0, why, whylen);
}

int pl_equal(pl_tensor a, pl_tensor b, char *why, size_t whylen)
{
    return compare(a, b, 0, 0, 1, why, whylen);
}
