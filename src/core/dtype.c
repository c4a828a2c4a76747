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
    case PL_UINT8:
    case PL_FP8E4M3FN:
    case PL_FP8E8M0:
        return 1;
    case PL_INT64:
        return 8;
    }
    return 0;
}

int pl_dtype_is_int(pl_dtype dt)
{
    switch (dt) {
    case PL_INT8:
    case PL_INT16:
    case PL_INT32:
    case PL_INT64:
    case PL_UINT8:
    case PL_UINT32:
        return 1;
    default:
        return 0;
    }
}

const char *pl_dtype_name(pl_dtype dt)
{
    static const char *const names[] = {"?",      "FP32",  "FP16",      "BF16",
                                        "INT8",   "INT16", "INT32",     "INT64",
                                        "UINT32", "UINT8", "FP8E4M3FN", "FP8E8M0"};
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

float pld__fp8e4m3fn_to_float(uint8_t c)
{
    unsigned exp = (c >> 3) & 0xf, man = c & 7;
    float f;
    if (exp == 15 && man == 7)
        f = NAN;
    else if (exp == 0)
        f = ldexpf((float)man, -9); /* subnormal: man * 2^-9 */
    else
        f = ldexpf((float)(8 + man), (int)exp - 10); /* 1.man * 2^(exp - 7) */
    return (c & 0x80) ? -f : f;
}

/* Round to nearest even and saturate at 448, as torch's float8_e4m3fn
 * conversion and a saturating hardware cast do: the format has no infinity,
 * and a value past its largest is the largest, not NaN. */
uint8_t pld__float_to_fp8e4m3fn(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint8_t sign = (uint8_t)((x >> 24) & 0x80);
    uint32_t ax = x & 0x7fffffffu;
    float a;
    memcpy(&a, &ax, sizeof a);

    if (ax > 0x7f800000u)
        return sign | 0x7f;
    if (a >= 448.0f)
        return sign | 0x7e;
    if (a < 0x1p-6f) /* below the smallest normal: a multiple of 2^-9, ties to even */
        return sign | (uint8_t)lrintf(a * 512.0f); /* 8 rounds up into the normal 0x08 */
    uint32_t mant = ax & 0x7fffff, exp = (ax >> 23) - 120;
    uint32_t q = (exp << 3) | (mant >> 20), rest = mant & 0xfffff;
    if (rest > 0x80000 || (rest == 0x80000 && (q & 1)))
        q++; /* carries into the exponent correctly; stays <= 0x7e below 448 */
    return sign | (uint8_t)q;
}

float pld__fp8e8m0_to_float(uint8_t c)
{
    return c == 0xff ? NAN : ldexpf(1.0f, (int)c - 127);
}

/* A power of two from a float's exponent field: the sign is dropped, a
 * mantissa of one half or more rounds up (one half exactly stays down for a
 * subnormal), and NaN, infinity and overflow give NaN (255).  This is what
 * torch's float8_e8m0fnu conversion does, bit for bit. */
uint8_t pld__float_to_fp8e8m0(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t exp = (x >> 23) & 0xff, mant = x & 0x7fffff;
    if (exp == 0xff)
        return 0xff;
    if (mant > 0x400000 || (mant == 0x400000 && exp != 0))
        exp++;
    return exp > 0xfe ? 0xff : (uint8_t)exp;
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
    case PL_UINT8:
        return *(const uint8_t *)p;
    case PL_FP8E4M3FN:
        return pld__fp8e4m3fn_to_float(*(const uint8_t *)p);
    case PL_FP8E8M0:
        return pld__fp8e8m0_to_float(*(const uint8_t *)p);
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
    case PL_UINT8:
        *(uint8_t *)p = (uint8_t)(int64_t)v;
        return;
    case PL_FP8E4M3FN:
        *(uint8_t *)p = pld__float_to_fp8e4m3fn((float)v);
        return;
    case PL_FP8E8M0:
        *(uint8_t *)p = pld__float_to_fp8e8m0((float)v);
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
    case PL_UINT8:
        __atomic_fetch_add((uint8_t *)dst, *(const uint8_t *)src, __ATOMIC_RELAXED);
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
    case PL_FP8E4M3FN:
    case PL_FP8E8M0:
        return; /* refused before any byte moves (pld__dtype_can_add) */
    default: {  /* FP16, BF16 */
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

int pld__dtype_can_add(pl_dtype dt)
{
    return pl_dtype_size(dt) && dt != PL_INT64 && dt != PL_FP8E4M3FN && dt != PL_FP8E8M0;
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
