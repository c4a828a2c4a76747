/* dtype.c: element sizes and names, exact scalar conversions for every
 * dtype (16-bit floats round to nearest even, as hardware casts do), and the
 * element-wise copy or atomic Add of one row. */
#include "internal.h"

#include <math.h>
#include <string.h>

size_t pl_dtype_size(pl_dtype dt)
{
    switch (dt) {
    case PL_FP32:
    case PL_INT32:
    case PL_UINT32:
        return 4;
    case PL_FP16:
    case PL_BF16:
    case PL_INT16:
        return 2;
    case PL_INT8:
        return 1;
    case PL_INT64:
        return 8;
    }
    return 0;
}

const char *pl_dtype_name(pl_dtype dt)
{
    static const char *const names[] = {"?",     "FP32",  "FP16",  "BF16",  "INT8",
                                        "INT16", "INT32", "INT64", "UINT32"};
    return (unsigned)dt < sizeof names / sizeof names[0] ? names[dt] : "?";
}

float pld__half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;

    if (exp == 0) {
        /* zero or subnormal: value = man * 2^-24 */
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    if (exp == 31)
        bits = sign | 0x7f800000u | (man << 13);
    else
        bits = sign | ((exp + 112) << 23) | (man << 13);
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t pld__float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;

    if (ax >= 0x7f800000u) /* inf or nan */
        return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0);
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return sign | 0x7c00;
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal */
        float a;
        memcpy(&a, &ax, sizeof a);
        return sign | (uint16_t)lrintf(a * 16777216.0f); /* a / 2^-24, ties to even */
    }
    uint32_t mant = ax & 0x7fffff, exp = (ax >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13), rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++; /* carries into the exponent correctly */
    return sign | (uint16_t)h;
}

float pld__bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t pld__float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40); /* keep nan a nan */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

double pld__elem_get(pl_dtype dt, const void *p)
{
    switch (dt) {
    case PL_FP32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case PL_FP16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return pld__half_to_float(v);
    }
    case PL_BF16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return pld__bf16_to_float(v);
    }
    case PL_INT8:
        return *(const int8_t *)p;
    case PL_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case PL_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case PL_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case PL_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
    return 0;
}

/* Integer stores wrap like the hardware's two's-complement registers. */
void pld__elem_set(pl_dtype dt, void *p, double v)
{
    switch (dt) {
    case PL_FP32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case PL_FP16: {
        uint16_t h = pld__float_to_half((float)v);
        memcpy(p, &h, 2);
        return;
    }
    case PL_BF16: {
        uint16_t h = pld__float_to_bf16((float)v);
        memcpy(p, &h, 2);
        return;
    }
    case PL_INT8:
        *(int8_t *)p = (int8_t)(int64_t)v;
        return;
    case PL_INT16: {
        int16_t i = (int16_t)(int64_t)v;
        memcpy(p, &i, 2);
        return;
    }
    case PL_INT32: {
        int32_t i = (int32_t)(int64_t)v;
        memcpy(p, &i, 4);
        return;
    }
    case PL_INT64: {
        int64_t i = (int64_t)v;
        memcpy(p, &i, 8);
        return;
    }
    case PL_UINT32: {
        uint32_t u = (uint32_t)(int64_t)v;
        memcpy(p, &u, 4);
        return;
    }
    }
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
    case PL_UINT32: {
        uint32_t v;
        memcpy(&v, src, 4);
        __atomic_fetch_add((uint32_t *)(void *)dst, v, __ATOMIC_RELAXED);
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
