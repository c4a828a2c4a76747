/* shape.c: shapes, regions and N-D copies; dynamic dimensions. */
#include "internal.h"

#include <string.h>

int64_t pl_shape_numel(pl_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

const char *pld__shape_str(pl_shape s, char *buf, size_t len)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < s.ndim && used < len; i++)
        used +=
            (size_t)snprintf(buf + used, len - used, i ? ", %lld" : "%lld", (long long)s.dim[i]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
    return buf;
}

void pld__check_region(const char *file, int line, const char *op, const char *what, pl_tensor t,
                       pl_shape offsets, pl_shape shape)
{
    char a[64], b[64], c[64];
    if (offsets.ndim != t.shape.ndim)
        pld__fail(PLD_EINVAL, file, line, op,
                  "offsets %s of %s have %d dims but %s '%s' has shape %s (%d dims)",
                  pld__shape_str(offsets, a, sizeof a), what, offsets.ndim, what, t.name,
                  pld__shape_str(t.shape, b, sizeof b), t.shape.ndim);
    if (shape.ndim != t.shape.ndim)
        pld__fail(PLD_EINVAL, file, line, op,
                  "shape %s has %d dims but %s '%s' has shape %s (%d dims)",
                  pld__shape_str(shape, a, sizeof a), shape.ndim, what, t.name,
                  pld__shape_str(t.shape, b, sizeof b), t.shape.ndim);
    for (int i = 0; i < t.shape.ndim; i++) {
        if (shape.dim[i] <= 0)
            pld__fail(PLD_EINVAL, file, line, op, "shape %s: dim %d is %lld, expected > 0",
                      pld__shape_str(shape, a, sizeof a), i, (long long)shape.dim[i]);
        if (offsets.dim[i] < 0 || offsets.dim[i] + shape.dim[i] > t.shape.dim[i])
            pld__fail(PLD_EINVAL, file, line, op,
                      "region at offsets %s with shape %s is out of bounds of %s '%s' %s "
                      "(dim %d: %lld + %lld > %lld)",
                      pld__shape_str(offsets, a, sizeof a), pld__shape_str(shape, b, sizeof b),
                      what, t.name, pld__shape_str(t.shape, c, sizeof c), i,
                      (long long)offsets.dim[i], (long long)shape.dim[i],
                      (long long)t.shape.dim[i]);
    }
}

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

/* One element of an atomic Add.  Ranks may be threads adding into the same
 * element, so the read-modify-write is a single atomic operation; the sum is
 * what it always was: integers wrap, floats add in float and round to the
 * element's type. */
static void add_elem(pl_dtype dt, unsigned char *dst, const unsigned char *src)
{
    switch (dt) {
    case PL_INT8:
        __atomic_fetch_add((int8_t *)dst, *(const int8_t *)src, __ATOMIC_RELAXED);
        return;
    case PL_INT16: {
        int16_t v;
        memcpy(&v, src, 2);
        __atomic_fetch_add((int16_t *)(void *)dst, v, __ATOMIC_RELAXED);
        return;
    }
    case PL_INT32: {
        int32_t v;
        memcpy(&v, src, 4);
        __atomic_fetch_add((int32_t *)(void *)dst, v, __ATOMIC_RELAXED);
        return;
    }
    case PL_INT64: {
        int64_t v;
        memcpy(&v, src, 8);
        __atomic_fetch_add((int64_t *)(void *)dst, v, __ATOMIC_RELAXED);
        return;
    }
    case PL_FP32: {
        uint32_t *p = (uint32_t *)(void *)dst, old = __atomic_load_n(p, __ATOMIC_RELAXED), want;
        float add;
        memcpy(&add, src, 4);
        do {
            float f;
            memcpy(&f, &old, 4);
            f += add;
            memcpy(&want, &f, 4);
        } while (
            !__atomic_compare_exchange_n(p, &old, want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return;
    }
    default: { /* FP16, BF16 */
        uint16_t *p = (uint16_t *)(void *)dst, old = __atomic_load_n(p, __ATOMIC_RELAXED), want;
        float add = (float)pld__elem_get(dt, src);
        do {
            uint16_t h = old;
            pld__elem_set(dt, &h, (float)pld__elem_get(dt, &h) + add);
            want = h;
        } while (
            !__atomic_compare_exchange_n(p, &old, want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return;
    }
    }
}

static void add_elems(pl_dtype dt, unsigned char *dst, const unsigned char *src, int64_t n)
{
    size_t es = pl_dtype_size(dt);
    for (int64_t i = 0; i < n; i++, dst += es, src += es)
        add_elem(dt, dst, src);
}

void pld__row_apply(pl_dtype dt, unsigned char *dst, const unsigned char *src, size_t bytes,
                    pl_atomic op)
{
    if (op == PL_ATOMIC_ADD)
        add_elems(dt, dst, src, (int64_t)(bytes / pl_dtype_size(dt)));
    else
        memmove(dst, src, bytes);
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

/* ---- dynamic dimensions ---- */

#define PLD__MAX_DYN  16
#define PLD__DYN_BASE (-1000000)
static struct {
    const char *name;
    int64_t value;
    int bound;
} dyn[PLD__MAX_DYN];
static int ndyn;

void pld__dynamic_reset(void)
{
    for (int i = 0; i < ndyn; i++)
        dyn[i].bound = 0;
}

int64_t pl_dynamic(const char *name)
{
    for (int i = 0; i < ndyn; i++)
        if (strcmp(dyn[i].name, name) == 0)
            return PLD__DYN_BASE - i;
    if (ndyn == PLD__MAX_DYN)
        pld__fail(PLD_EINVAL, "pl_dynamic", 0, "pl_dynamic", "more than %d dynamic dims",
                  PLD__MAX_DYN);
    dyn[ndyn].name = name;
    dyn[ndyn].bound = 0;
    return PLD__DYN_BASE - ndyn++;
}

static int dyn_index(int64_t d)
{
    int64_t i = PLD__DYN_BASE - d;
    return d <= PLD__DYN_BASE && i < ndyn ? (int)i : -1;
}

int64_t pl__dim_value(const char *file, int line, const char *name)
{
    for (int i = 0; i < ndyn; i++)
        if (strcmp(dyn[i].name, name) == 0 && dyn[i].bound)
            return dyn[i].value;
    pld__fail(PLD_EINVAL, file, line, "pl_dim_value",
              "dynamic dim \"%s\" is not bound; bind it with pl_bind_shape first", name);
}

void pl__bind_shape(const char *file, int line, pl_tensor t, pl_shape decl)
{
    char a[64], b[64];
    if (decl.ndim != t.shape.ndim)
        pld__fail(PLD_EINVAL, file, line, "pl_bind_shape",
                  "tensor '%s' has shape %s (%d dims), expected %d dims", t.name,
                  pld__shape_str(t.shape, a, sizeof a), t.shape.ndim, decl.ndim);
    for (int i = 0; i < decl.ndim; i++) {
        int k = dyn_index(decl.dim[i]);
        if (k >= 0) {
            if (dyn[k].bound && dyn[k].value != t.shape.dim[i])
                pld__fail(PLD_EINVAL, file, line, "pl_bind_shape",
                          "tensor '%s' %s: dim %d (%s) is %lld but %s is already bound to %lld",
                          t.name, pld__shape_str(t.shape, a, sizeof a), i, dyn[k].name,
                          (long long)t.shape.dim[i], dyn[k].name, (long long)dyn[k].value);
            dyn[k].value = t.shape.dim[i];
            dyn[k].bound = 1;
        } else if (decl.dim[i] != t.shape.dim[i]) {
            pld__fail(PLD_EINVAL, file, line, "pl_bind_shape",
                      "tensor '%s' has shape %s, expected dim %d to be %lld", t.name,
                      pld__shape_str(t.shape, b, sizeof b), i, (long long)decl.dim[i]);
        }
    }
}
