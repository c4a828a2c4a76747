/* shape.c: shapes, their sizes and bounds checks; dynamic dimensions.  A
 * leaf: it knows nothing of windows or their storage (region.c does). */
#include "internal.h"

#include <string.h>

int64_t pl_shape_numel(pl_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

int pld__shape_eq(pl_shape a, pl_shape b)
{
    if (a.ndim != b.ndim)
        return 0;
    for (int i = 0; i < a.ndim; i++)
        if (a.dim[i] != b.dim[i])
            return 0;
    return 1;
}

size_t pl_tensor_bytes(pl_tensor t)
{
    return (size_t)pl_shape_numel(t.shape) * pl_dtype_size(t.dtype);
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

enum pld__region_fit pld__region_fit(pl_shape full, pl_shape offsets, pl_shape shape, int *dim)
{
    *dim = -1;
    if (offsets.ndim != full.ndim)
        return PLD__REGION_OFFSETS_RANK;
    if (shape.ndim != full.ndim)
        return PLD__REGION_SHAPE_RANK;
    for (int i = 0; i < full.ndim; i++) {
        *dim = i;
        if (shape.dim[i] <= 0)
            return PLD__REGION_EMPTY;
        if (offsets.dim[i] < 0)
            return PLD__REGION_NEGATIVE;
        /* offset + extent <= dim, without forming the sum: extent > 0, so
         * once extent <= dim the difference is in range */
        if (shape.dim[i] > full.dim[i] || offsets.dim[i] > full.dim[i] - shape.dim[i])
            return PLD__REGION_PAST_END;
    }
    *dim = -1;
    return PLD__REGION_INSIDE;
}

void pld__check_region(const char *file, int line, const char *op, const char *what, pl_tensor t,
                       pl_shape offsets, pl_shape shape)
{
    char a[64], b[64], c[64];
    int i;
    switch (pld__region_fit(t.shape, offsets, shape, &i)) {
    case PLD__REGION_INSIDE:
        return;
    case PLD__REGION_OFFSETS_RANK:
        pld__fail(PLD_EINVAL, file, line, op,
                  "offsets %s of %s have %d dims but %s '%s' has shape %s (%d dims)",
                  pld__shape_str(offsets, a, sizeof a), what, offsets.ndim, what, t.name,
                  pld__shape_str(t.shape, b, sizeof b), t.shape.ndim);
    case PLD__REGION_SHAPE_RANK:
        pld__fail(PLD_EINVAL, file, line, op,
                  "shape %s has %d dims but %s '%s' has shape %s (%d dims)",
                  pld__shape_str(shape, a, sizeof a), shape.ndim, what, t.name,
                  pld__shape_str(t.shape, b, sizeof b), t.shape.ndim);
    case PLD__REGION_EMPTY:
        pld__fail(PLD_EINVAL, file, line, op, "shape %s: dim %d is %lld, expected > 0",
                  pld__shape_str(shape, a, sizeof a), i, (long long)shape.dim[i]);
    case PLD__REGION_NEGATIVE:
        pld__fail(PLD_EINVAL, file, line, op,
                  "region at offsets %s with shape %s is out of bounds of %s '%s' %s "
                  "(dim %d: offset %lld is negative)",
                  pld__shape_str(offsets, a, sizeof a), pld__shape_str(shape, b, sizeof b), what,
                  t.name, pld__shape_str(t.shape, c, sizeof c), i, (long long)offsets.dim[i]);
    case PLD__REGION_PAST_END:
        /* "a + b > d" as the reader adds it, never as int64 wraps it */
        pld__fail(PLD_EINVAL, file, line, op,
                  "region at offsets %s with shape %s is out of bounds of %s '%s' %s "
                  "(dim %d: %lld + %lld > %lld)",
                  pld__shape_str(offsets, a, sizeof a), pld__shape_str(shape, b, sizeof b), what,
                  t.name, pld__shape_str(t.shape, c, sizeof c), i, (long long)offsets.dim[i],
                  (long long)shape.dim[i], (long long)t.shape.dim[i]);
    }
    pld__fail(PLD_EINVAL, file, line, op, "region check: unknown verdict"); /* unreachable */
}

int64_t pld__shape_bytes(pl_shape shape, size_t es)
{
    int64_t n = (int64_t)es;
    for (int i = 0; i < shape.ndim; i++)
        if (shape.dim[i] <= 0)
            return 0;
    for (int i = 0; i < shape.ndim; i++) {
        if (n > INT64_MAX / shape.dim[i])
            return INT64_MAX;
        n *= shape.dim[i];
    }
    return n;
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
