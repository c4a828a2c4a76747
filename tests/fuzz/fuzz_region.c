/* fuzz_region.c: libFuzzer target for the one bounds test of every
 * accessor and transfer, pld__region_fit, and the byte count of a shape,
 * pld__shape_bytes (shape.c).  Each input is a tensor shape, offsets and a
 * region shape; the verdict must equal one computed in 128-bit arithmetic,
 * where offset + extent cannot wrap.  (The test once formed that sum in 64
 * bits: an offset near INT64_MAX wrapped it negative, and pl_load read
 * outside the window.)
 *
 * check_units replays region_property() on random inputs in every `make
 * check` (define FUZZ_REGION_NO_MAIN before including this file), so the
 * property is held even where clang is missing. */
#include "internal.h"

#include <string.h>

/* Values that reach the edges: small ones, and ones near INT64_MAX and
 * INT64_MIN, as often as arbitrary 64-bit ones. */
static int64_t take(const uint8_t **p, size_t *n)
{
    uint8_t kind = 0;
    uint64_t raw = 0;
    if (*n) {
        kind = **p;
        (*p)++;
        (*n)--;
    }
    size_t k = *n < sizeof raw ? *n : sizeof raw;
    memcpy(&raw, *p, k);
    *p += k;
    *n -= k;
    switch (kind % 4) {
    case 0:
        return (int64_t)(raw % 200) - 4;
    case 1:
        return INT64_MAX - (int64_t)(raw % 200);
    case 2:
        return INT64_MIN + (int64_t)(raw % 200);
    default:
        return (int64_t)raw;
    }
}

static enum pld__region_fit reference_fit(pl_shape full, pl_shape off, pl_shape shape, int *dim)
{
    *dim = -1;
    if (off.ndim != full.ndim)
        return PLD__REGION_OFFSETS_RANK;
    if (shape.ndim != full.ndim)
        return PLD__REGION_SHAPE_RANK;
    for (int i = 0; i < full.ndim; i++) {
        *dim = i;
        if (shape.dim[i] <= 0)
            return PLD__REGION_EMPTY;
        if (off.dim[i] < 0)
            return PLD__REGION_NEGATIVE;
        if ((__int128)off.dim[i] + shape.dim[i] > full.dim[i])
            return PLD__REGION_PAST_END;
    }
    *dim = -1;
    return PLD__REGION_INSIDE;
}

static int64_t reference_bytes(pl_shape s, size_t es)
{
    __int128 n = (__int128)es;
    for (int i = 0; i < s.ndim; i++)
        if (s.dim[i] <= 0)
            return 0;
    for (int i = 0; i < s.ndim; i++) {
        n *= s.dim[i]; /* < 2^63 * 2^63: no wrap */
        if (n > INT64_MAX)
            return INT64_MAX;
    }
    return (int64_t)n;
}

/* 1 when pld__region_fit and pld__shape_bytes agree with the references
 * on the input, else 0. */
static int region_property(const uint8_t *data, size_t size)
{
    const uint8_t *p = data;
    size_t n = size;
    pl_shape full = {0}, off = {0}, shape = {0};
    uint8_t ranks = n ? *p : 0;
    if (n) {
        p++;
        n--;
    }
    /* 1..4 dims; now and then offsets or shape of another rank */
    full.ndim = 1 + ranks % PL_MAX_DIMS;
    off.ndim = ranks & 0x40 ? 1 + (ranks >> 2) % PL_MAX_DIMS : full.ndim;
    shape.ndim = ranks & 0x80 ? 1 + (ranks >> 4) % PL_MAX_DIMS : full.ndim;
    for (int i = 0; i < PL_MAX_DIMS; i++) {
        full.dim[i] = take(&p, &n);
        off.dim[i] = take(&p, &n);
        shape.dim[i] = take(&p, &n);
    }
    int got_dim, want_dim;
    enum pld__region_fit got = pld__region_fit(full, off, shape, &got_dim);
    enum pld__region_fit want = reference_fit(full, off, shape, &want_dim);
    if (got != want || got_dim != want_dim)
        return 0;
    for (size_t es = 1; es <= 8; es *= 2)
        if (pld__shape_bytes(shape, es) != reference_bytes(shape, es))
            return 0;
    return 1;
}

#ifndef FUZZ_REGION_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!region_property(data, size))
        __builtin_trap(); /* the fuzzer keeps the input as a crash */
    return 0;
}
#endif
