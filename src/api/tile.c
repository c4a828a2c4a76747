/* tile.c: the local ops between global memory and UB (pl_load, pl_store,
 * pl_read, pl_write) and on tiles (pl_add, pl_mul). */
#include "internal.h"
#include "cost.h"
#include "mem.h"
#include "observe.h"
#include "backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check_gm(const char *file, int line, const char *op, const char *what, pl_tensor t)
{
    pld__check_tensor(file, line, op, what, t);
    pld__check_member(file, line, op, what, &t);
}

static int64_t flat_offset_bytes(pl_tensor t, pl_shape offsets)
{
    return pld__offset_bytes(t, offsets);
}

pl_shape pld__load_extent(const char *file, int line, const char *op, const char *what, pl_tensor t,
                          pl_shape offsets, pl_shape shape, pl_shape valid, int clamp)
{
    char a[64], b[64], c[64];
    /* the shape first: without a valid_shape it stands in for one, and a
     * message about it must not name a valid_shape nobody gave */
    for (int i = 0; i < shape.ndim; i++)
        if (shape.dim[i] < 1)
            pld__fail(
                PLD_EINVAL, file, line, op,
                "shape %s at offsets %s of %s '%s' %s: dim %d is %lld; expected every dim >= 1",
                pld__shape_str(shape, a, sizeof a), pld__shape_str(offsets, b, sizeof b), what,
                t.name, pld__shape_str(t.shape, c, sizeof c), i, (long long)shape.dim[i]);
    if (valid.ndim == 0)
        valid = shape;
    else if (valid.ndim != shape.ndim)
        pld__fail(PLD_EINVAL, file, line, op, "valid_shape %s has %d dims but the shape %s has %d",
                  pld__shape_str(valid, a, sizeof a), valid.ndim,
                  pld__shape_str(shape, b, sizeof b), shape.ndim);
    for (int i = 0; i < valid.ndim; i++)
        if (valid.dim[i] < 1 || valid.dim[i] > shape.dim[i])
            pld__fail(PLD_EINVAL, file, line, op,
                      "valid_shape %s: dim %d is %lld; expected 1..%lld (it narrows the shape %s, "
                      "never widens it)",
                      pld__shape_str(valid, a, sizeof a), i, (long long)valid.dim[i],
                      (long long)shape.dim[i], pld__shape_str(shape, b, sizeof b));
    if (clamp && offsets.ndim == t.shape.ndim && valid.ndim == t.shape.ndim)
        for (int i = 0; i < valid.ndim; i++) {
            if (offsets.dim[i] < 0) /* pld__check_region says so; the difference could wrap */
                continue;
            int64_t left = t.shape.dim[i] - offsets.dim[i];
            if (left < 1)
                pld__fail(
                    PLD_EINVAL, file, line, op,
                    "clamp: offsets %s are past the end of '%s' %s in dim %d: nothing is left "
                    "to read",
                    pld__shape_str(offsets, a, sizeof a), t.name,
                    pld__shape_str(t.shape, b, sizeof b), i);
            if (left < valid.dim[i])
                valid.dim[i] = left;
        }
    pld__check_region(file, line, op, what, t, offsets, valid);
    return valid;
}

static int is_partial(const pl_tile *t)
{
    for (int i = 0; i < t->shape.ndim; i++)
        if (t->valid.dim[i] != t->shape.dim[i])
            return 1;
    return 0;
}

void pld__tile_zero_tail(pl_tile *t)
{
    if (t->no_data || !is_partial(t))
        return;
    int nd = t->shape.ndim;
    size_t es = pl_dtype_size(t->dtype);
    int64_t idx[PL_MAX_DIMS] = {0}, n = pl_shape_numel(t->shape);
    for (int64_t k = 0; k < n; k++) {
        int outside = 0;
        for (int i = 0; i < nd; i++)
            outside |= idx[i] >= t->valid.dim[i];
        if (outside)
            memset((unsigned char *)t->data + k * (int64_t)es, 0, es);
        for (int i = nd - 1; i >= 0 && ++idx[i] == t->shape.dim[i]; i--)
            idx[i] = 0;
    }
}

pl_tile pl__load(const char *file, int line, pl_tensor t, pl_shape offsets, pl_shape shape,
                 struct pl_load_kw kw)
{
    return pld__load_as(file, line, "pl_load", t, offsets, shape, kw);
}

/* What a load does once its region is checked: charge the GM read (from
 * HBM when the `extent` bytes of the array it reads do not fit L2),
 * record it for the race detector, copy the values into `dst` (laid out
 * as `full`; NULL: no values) and write the trace line. */
static void load_region(const char *file, int line, const char *op, double t0, pl_tensor t,
                        pl_shape offsets, pl_shape valid, void *dst, pl_shape full,
                        struct pld__rank *cube, double extent)
{
    int me = pld__self();
    size_t bytes = (size_t)pl_shape_numel(valid) * pl_dtype_size(t.dtype);
    double t1 = 0;
    int hbm = me >= 0 && pld__from_hbm(&pld__R->ranks[me].dev, extent);
    if (cube) /* into the cube's L1, on its MTE2 pipe */
        t0 = pld__pipe_issue_gm(cube, PLD__PIPE_MTE2, (double)bytes, hbm, &t1);
    else
        pld__charge_gm(bytes, 0, hbm);
    if (dst)
        pld__copy_region(t.dtype, valid, dst, full, pld__elem_ptr(t, me, offsets), pld__layout(t),
                         PL_ATOMIC_NONE);
    pld__observe(&(struct pld__observed){.op = PLD__OP_LOAD,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .t1 = t1,
                                         .PLD__TOUCHES({t, me, offsets, valid, 0, 0}),
                                         .peer = -1,
                                         .t = &t,
                                         .elem_off = flat_offset_bytes(t, offsets),
                                         .bytes = (int64_t)bytes,
                                         .value = PLD__MISSING});
}

pl_tile pld__load_as(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                     pl_shape shape, struct pl_load_kw kw)
{
    pld__op_rank(file, line, op);
    double t0 = pld__now();
    check_gm(file, line, op, "source", t);
    pl_shape valid =
        pld__load_extent(file, line, op, "source", t, offsets, shape, kw.valid_shape, kw.clamp);
    pld__check_tile_rows(file, line, op, shape, t.dtype);
    pld__check_array_bytes(file, line, op, kw);
    pl_tile tile = pld__tile_alloc(file, line, op, t.dtype, shape, !pld__has_data(&t));
    tile.valid = valid;
    load_region(file, line, op, t0, t, offsets, valid, tile.no_data ? NULL : tile.data, shape, NULL,
                pld__array_bytes(t, valid, kw));
    pld__tile_zero_tail(&tile);
    return tile;
}

int pld__load_into(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                   pl_shape shape, struct pl_load_kw kw, void *dst, pl_shape *valid)
{
    struct pld__rank *rk = pld__cube_rank(file, line, op);
    double t0 = pld__now();
    check_gm(file, line, op, "source", t);
    *valid =
        pld__load_extent(file, line, op, "source", t, offsets, shape, kw.valid_shape, kw.clamp);
    pld__check_array_bytes(file, line, op, kw);
    int data = pld__has_data(&t) && pld__keeps_values(t.dtype);
    if (data)
        memset(dst, 0, (size_t)pl_shape_numel(shape) * pl_dtype_size(t.dtype));
    load_region(file, line, op, t0, t, offsets, *valid, data ? dst : NULL, shape, rk,
                pld__array_bytes(t, *valid, kw));
    return data;
}

pl_tensor pl__store(const char *file, int line, pl_tile tile, pl_shape offsets, pl_tensor t,
                    struct pl_store_kw kw)
{
    return pld__store_as(file, line, "pl_store", tile, offsets, t, kw);
}

/* A store of `dtype` values laid out as `shape`, of which the leading
 * `valid` part is written (`data` NULL: no values, --no-data), once the
 * caller has checked where they come from. */
/* `drain`: the values leave the cube's L0C (a drain, priced as such), not
 * the vector core's UB (a GM store). */
static void store_values(const char *file, int line, const char *op, double t0, pl_dtype dtype,
                         void *data_in, pl_shape shape, pl_shape valid, pl_shape offsets,
                         pl_tensor t, struct pl_store_kw kw, int drain)
{
    int me = pld__self();
    double t1 = 0;
    check_gm(file, line, op, "destination", t);
    if (dtype != t.dtype)
        pld__fail(PLD_EINVAL, file, line, op,
                  "dtype mismatch: tile is %s but destination '%s' is %s", pl_dtype_name(dtype),
                  t.name, pl_dtype_name(t.dtype));
    if (kw.atomic != PL_ATOMIC_NONE && kw.atomic != PL_ATOMIC_ADD)
        pld__fail(PLD_EINVAL, file, line, op, "atomic must be PL_ATOMIC_NONE or PL_ATOMIC_ADD");
    if (kw.atomic == PL_ATOMIC_ADD && !pld__dtype_can_add(t.dtype))
        pld__fail(PLD_EINVAL, file, line, op, "atomic Add does not support %s",
                  pl_dtype_name(t.dtype));
    pld__check_region(file, line, op, "destination", t, offsets, valid);
    size_t bytes = (size_t)pl_shape_numel(valid) * pl_dtype_size(t.dtype);
    /* --timing-only asks for the charge alone; --no-data alone would lose a result */
    if (!data_in && !t.win && !pld__R->cfg->timing_only)
        pld__fail_no_data(file, line, op,
                          "the tile holds window data and the destination is a host tensor");
    int data = pld__has_data(&t) && data_in;
    if (t.win) {
        /* the backend's write: on MPI an atomic Add is atomic only
         * against other MPI atomics, a peer's included */
        struct pld__cost c;
        struct pld__region rg = pld__region_of(t, offsets, valid);
        pld__price_store(&c, bytes, drain);
        pld__R->be->write(me, t.win, &rg, (struct pld__span){data ? data_in : NULL, shape},
                          kw.atomic, &c);
    } else {
        if (drain) /* on the cube's FIX pipe */
            t0 = pld__pipe_issue_gm(&pld__R->ranks[me], PLD__PIPE_FIX, (double)bytes, 0, &t1);
        else
            pld__charge_gm(bytes, 1, 0);
        if (data)
            pld__copy_region(t.dtype, valid, pld__elem_ptr(t, me, offsets), pld__layout(t), data_in,
                             shape, kw.atomic);
    }
    pld__host_written(t, offsets, valid);
    pld__observe(&(struct pld__observed){
        .op = kw.atomic == PL_ATOMIC_ADD ? PLD__OP_STORE_ADD : PLD__OP_STORE,
        .api = op,
        .file = file,
        .line = line,
        .t0 = t0,
        .t1 = t1,
        .PLD__TOUCHES({t, me, offsets, valid, 1, kw.atomic == PL_ATOMIC_ADD}),
        .peer = -1,
        .t = &t,
        .elem_off = flat_offset_bytes(t, offsets),
        .bytes = (int64_t)bytes,
        .value = PLD__MISSING});
}

pl_tensor pld__store_as(const char *file, int line, const char *op, pl_tile tile, pl_shape offsets,
                        pl_tensor t, struct pl_store_kw kw)
{
    pld__op_rank(file, line, op); /* a cube kernel's pipes settle first */
    double t0 = pld__now();
    pld__check_tile(file, line, op, "tile", tile);
    store_values(file, line, op, t0, tile.dtype, tile.no_data ? NULL : tile.data, tile.shape,
                 tile.valid, offsets, t, kw, 0);
    return t;
}

void pld__store_from(const char *file, int line, const char *op, pl_dtype dtype, const void *data,
                     pl_shape shape, pl_shape valid, pl_shape offsets, pl_tensor t,
                     struct pl_store_kw kw, int drain)
{
    /* a drain into a host tensor runs on the cube's FIX pipe; into a window
     * (which peers read) it settles the pipes first, as other ops do */
    if (drain && !t.win)
        pld__cube_rank(file, line, op);
    else
        pld__op_rank(file, line, op);
    double t0 = pld__now();
    /* the values are only read; the backend's span type is not const */
    store_values(file, line, op, t0, dtype, (void *)(uintptr_t)data, shape, valid, offsets, t, kw,
                 drain);
}

enum binop { ADD, MUL, MAX, MIN, SUB };
static const enum pld__op binop_trace[] = {PLD__OP_ADD, PLD__OP_MUL, PLD__OP_MAX, PLD__OP_MIN,
                                           PLD__OP_SUB};
static const enum pld__op binop_trace_s[] = {PLD__OP_ADDS, PLD__OP_MULS, PLD__OP_MAXS, PLD__OP_MINS,
                                             PLD__OP_SUBS};

/* One element: exact in int64 for integer dtypes, in float for the float
 * dtypes (FP16 and BF16 compute through float, like the vector unit). */
static double apply(enum binop k, double x, double y, int is_int)
{
    if (is_int) {
        int64_t a = (int64_t)x, b = (int64_t)y;
        switch (k) {
        case ADD:
            return (double)(a + b);
        case MUL:
            return (double)(a * b);
        case MAX:
            return (double)(a > b ? a : b);
        case MIN:
            return (double)(a < b ? a : b);
        case SUB:
            return (double)(a - b);
        }
    }
    float a = (float)x, b = (float)y;
    switch (k) {
    case ADD:
        return a + b;
    case MUL:
        return a * b;
    case MAX:
        return a > b ? a : b;
    case MIN:
        return a < b ? a : b;
    case SUB:
        return a - b;
    }
    return 0;
}

/* A loop the compiler is to vectorize.  At -O2, GCC 12's cost model keeps
 * these loops scalar (their trip count needs an epilogue); under
 * -fopenmp-simd (configure.ac) `omp simd` asks for vectors without any
 * OpenMP runtime.  Element by element the results are the same: nothing
 * is reassociated. */
#ifdef PLD_OPENMP_SIMD
#define PLD__SIMD _Pragma("omp simd")
#else
#define PLD__SIMD
#endif

/* On x86-64 the loops below are also built for AVX2, picked at load time
 * where the machine has it: 8 floats an instruction instead of SSE's 4 (the
 * ring allreduce's adds were 2 % of its instructions at P = 512).  Each
 * element is still one IEEE operation on the same operands, so the results
 * are the same bits. */
/* Not under ThreadSanitizer: the clones are picked by an ifunc resolver,
 * which the dynamic loader runs before TSan's runtime is up, and every
 * program then dies at load (the CI's TSan stage). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PLD__NO_CLONES
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) &&                              \
    !defined(__SANITIZE_THREAD__) && !defined(PLD__NO_CLONES)
#define PLD__VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PLD__VECTOR_CLONES
#endif

/* The same arithmetic as apply() for FP32 tiles, without the round trips
 * through double: the real backends spend their time here. */
PLD__VECTOR_CLONES static void apply_fp32(enum binop k, float *restrict r, const float *a,
                                          const float *b, int64_t n)
{
    switch (k) {
    case ADD:
        PLD__SIMD
        for (int64_t i = 0; i < n; i++)
            r[i] = a[i] + b[i];
        break;
    case MUL:
        PLD__SIMD
        for (int64_t i = 0; i < n; i++)
            r[i] = a[i] * b[i];
        break;
    case MAX:
        PLD__SIMD
        for (int64_t i = 0; i < n; i++)
            r[i] = a[i] > b[i] ? a[i] : b[i];
        break;
    case MIN:
        PLD__SIMD
        for (int64_t i = 0; i < n; i++)
            r[i] = a[i] < b[i] ? a[i] : b[i];
        break;
    case SUB:
        PLD__SIMD
        for (int64_t i = 0; i < n; i++)
            r[i] = a[i] - b[i];
        break;
    }
}

static pl_tile binop_tt(const char *file, int line, const char *op, enum binop k, pl_tile a,
                        pl_tile b)
{
    char sa[64], sb[64];
    pld__check_tile(file, line, op, "first operand", a); /* settles a cube's pipes */
    double t0 = pld__now();
    pld__check_tile(file, line, op, "second operand", b);
    if (a.dtype != b.dtype)
        pld__fail(PLD_EINVAL, file, line, op, "dtype mismatch: %s vs %s", pl_dtype_name(a.dtype),
                  pl_dtype_name(b.dtype));
    if (!pld__shape_eq(a.shape, b.shape))
        pld__fail(PLD_EINVAL, file, line, op, "shape mismatch: %s vs %s",
                  pld__shape_str(a.shape, sa, sizeof sa), pld__shape_str(b.shape, sb, sizeof sb));
    pl_tile r = pld__tile_alloc(file, line, op, a.dtype, a.shape, a.no_data || b.no_data);
    for (int i = 0; i < a.shape.ndim; i++) /* what holds data in both */
        r.valid.dim[i] = a.valid.dim[i] < b.valid.dim[i] ? a.valid.dim[i] : b.valid.dim[i];
    /* The operands' last stamps come before the result's first: where this
     * op is an operand's last use, the result may take that operand's UB,
     * as upstream's planner does (the vector unit computes in place). */
    int64_t n = pl_shape_numel(a.shape);
    size_t es = pl_dtype_size(a.dtype);
    int is_int = pl_dtype_is_int(a.dtype);
    if (a.dtype == PL_FP32 && !r.no_data)
        apply_fp32(k, r.data, a.data, b.data, n);
    for (int64_t i = 0; i < n && !r.no_data && a.dtype != PL_FP32; i++) {
        double x = pld__elem_get(a.dtype, (char *)a.data + i * es);
        double y = pld__elem_get(a.dtype, (char *)b.data + i * es);
        pld__elem_set(a.dtype, (char *)r.data + i * es, apply(k, x, y, is_int));
    }
    /* the vector unit works on the valid part; what lies past it is zeroed */
    pld__tile_zero_tail(&r);
    int64_t nv = pl_shape_numel(r.valid);
    pld__charge_vector(nv);
    pld__observe_work(binop_trace[k], t0, 0, -1, nv * (int64_t)es, file, line);
    return r;
}

static pl_tile binop_ts(const char *file, int line, const char *op, enum binop k, pl_tile a,
                        double s)
{
    pld__check_tile(file, line, op, "tile operand", a); /* settles a cube's pipes */
    double t0 = pld__now();
    pl_tile r = pld__tile_alloc(file, line, op, a.dtype, a.shape, a.no_data);
    r.valid = a.valid; /* in place over `a` where this is its last use, as above */
    int64_t n = pl_shape_numel(a.shape);
    size_t es = pl_dtype_size(a.dtype);
    int is_int = pl_dtype_is_int(a.dtype);
    for (int64_t i = 0; i < n && !r.no_data; i++) {
        double x = pld__elem_get(a.dtype, (char *)a.data + i * es);
        pld__elem_set(a.dtype, (char *)r.data + i * es, apply(k, x, s, is_int));
    }
    pld__tile_zero_tail(&r);
    int64_t nv = pl_shape_numel(r.valid);
    pld__charge_vector(nv);
    pld__observe_work(binop_trace_s[k], t0, 0, -1, nv * (int64_t)es, file, line);
    return r;
}

#define PLD__BINOP(name, k, opname)                                                                \
    pl_tile pl__##name##_tt(const char *file, int line, pl_tile a, pl_tile b)                      \
    {                                                                                              \
        return binop_tt(file, line, opname, k, a, b);                                              \
    }                                                                                              \
    pl_tile pl__##name##_ts(const char *file, int line, pl_tile a, double b)                       \
    {                                                                                              \
        return binop_ts(file, line, opname, k, a, b);                                              \
    }
PLD__BINOP(add, ADD, "pl_add")
PLD__BINOP(mul, MUL, "pl_mul")
PLD__BINOP(max, MAX, "pl_max")
PLD__BINOP(min, MIN, "pl_min")
PLD__BINOP(sub, SUB, "pl_sub")

static void check_index(const char *file, int line, const char *op, pl_tensor t, pl_shape idx)
{
    pld__check_region(file, line, op, "tensor", t, idx,
                      (pl_shape){.ndim = t.shape.ndim, .dim = {1, 1, 1, 1}});
}

double pl__read(const char *file, int line, pl_tensor t, pl_shape idx)
{
    pld__op_rank(file, line, "pl_read");
    double t0 = pld__now();
    check_gm(file, line, "pl_read", "tensor", t);
    check_index(file, line, "pl_read", t, idx);
    /* one element: its latency, not a rate, is the cost; no HBM share */
    pld__charge_gm(pl_dtype_size(t.dtype), 0, 0);
    double v = pld__has_data(&t)
                   ? pld__elem_get(t.dtype, pld__cell(pld__elem_ptr(t, pld__self(), idx)))
                   : pld__no_value(file, line, "pl_read", t.dtype, "it reads a window element");
    pld__observe(&(struct pld__observed){
        .op = PLD__OP_READ,
        .api = "pl_read",
        .file = file,
        .line = line,
        .t0 = t0,
        .PLD__TOUCHES({t, pld__self(), idx, {.ndim = t.shape.ndim, .dim = {1, 1, 1, 1}}, 0, 0}),
        .peer = -1,
        .t = &t,
        .elem_off = flat_offset_bytes(t, idx),
        .bytes = (int64_t)pl_dtype_size(t.dtype),
        .value = (int64_t)v});
    return v;
}

void pl__write(const char *file, int line, pl_tensor t, pl_shape idx, double v)
{
    pld__op_rank(file, line, "pl_write");
    double t0 = pld__now();
    check_gm(file, line, "pl_write", "tensor", t);
    check_index(file, line, "pl_write", t, idx);
    pld__charge_gm(pl_dtype_size(t.dtype), 1, 0);
    if (pld__has_data(&t))
        pld__elem_set(t.dtype, pld__cell(pld__elem_ptr(t, pld__self(), idx)), v);
    pld__host_written(t, idx, (pl_shape){.ndim = t.shape.ndim, .dim = {1, 1, 1, 1}});
    pld__observe(&(struct pld__observed){
        .op = PLD__OP_WRITE,
        .api = "pl_write",
        .file = file,
        .line = line,
        .t0 = t0,
        .PLD__TOUCHES({t, pld__self(), idx, {.ndim = t.shape.ndim, .dim = {1, 1, 1, 1}}, 1, 0}),
        .peer = -1,
        .t = &t,
        .elem_off = flat_offset_bytes(t, idx),
        .bytes = (int64_t)pl_dtype_size(t.dtype),
        .value = (int64_t)v});
}

/* The integer dtypes' ranges, by pl_dtype (floats: unused). */
static const double int_lo[] = {0, 0, 0, 0, INT8_MIN, INT16_MIN, INT32_MIN, -9223372036854775808.0,
                                0, 0, 0, 0};
static const double int_hi[] = {
    0, 0, 0, 0, INT8_MAX, INT16_MAX, INT32_MAX, 9223372036854775807.0, UINT32_MAX, UINT8_MAX, 0, 0};

double pl__cast(const char *file, int line, double v, pl_dtype dt)
{
    unsigned char buf[8];
    if (pl_dtype_size(dt) == 0)
        pld__fail(PLD_EINVAL, file, line, "pl_cast", "invalid target dtype %d", (int)dt);
    if (pl_dtype_is_int(dt)) {
        double tv = trunc(v);
        if (!(tv >= int_lo[dt] && tv <= int_hi[dt]))
            pld__fail(PLD_EINVAL, file, line, "pl_cast", "%.17g does not fit in %s", v,
                      pl_dtype_name(dt));
        return tv;
    }
    pld__elem_set(dt, buf, v);
    return pld__elem_get(dt, buf);
}

pl_tile pl__cast_tile(const char *file, int line, pl_tile t, pl_dtype dt)
{
    static const char op[] = "pl_cast";
    pld__op_rank(file, line, op);
    double t0 = pld__now();
    pld__check_tile(file, line, op, "tile", t);
    if (pl_dtype_size(dt) == 0)
        pld__fail(PLD_EINVAL, file, line, op, "invalid target dtype %d", (int)dt);
    pl_tile r = pld__tile_alloc(file, line, op, dt, t.shape, t.no_data);
    r.valid = t.valid;
    int64_t n = pl_shape_numel(t.shape);
    size_t es = pl_dtype_size(t.dtype), rs = pl_dtype_size(dt);
    for (int64_t i = 0; i < n && !r.no_data; i++) {
        double v = pld__elem_get(t.dtype, (char *)t.data + i * es);
        if (pl_dtype_is_int(dt)) { /* truncate, then saturate: the vector unit's float-to-int */
            v = isnan(v) ? 0 : trunc(v);
            v = v < int_lo[dt] ? int_lo[dt] : v > int_hi[dt] ? int_hi[dt] : v;
        }
        pld__elem_set(dt, (char *)r.data + i * rs, v);
    }
    pld__tile_zero_tail(&r);
    int64_t nv = pl_shape_numel(r.valid);
    pld__charge_vector(nv);
    pld__observe_work(PLD__OP_CAST, t0, 0, -1, nv * (int64_t)rs, file, line);
    return r;
}

double pld__tile_get_as(const char *file, int line, const char *op, pl_tile t, int64_t flat)
{
    char a[64];
    pld__check_tile(file, line, op, "tile", t);
    int64_t n = pl_shape_numel(t.shape);
    if (flat < 0 || flat >= n)
        pld__fail(PLD_EINVAL, file, line, op, "index %lld out of range [0, %lld) of a %s %s tile",
                  (long long)flat, (long long)n, pld__shape_str(t.shape, a, sizeof a),
                  pl_dtype_name(t.dtype));
    if (t.no_data)
        return pld__no_value(file, line, op, t.dtype, "it reads a value of a tile that holds none");
    return pld__elem_get(t.dtype, (char *)t.data + (size_t)flat * pl_dtype_size(t.dtype));
}

double pl__tile_get(const char *file, int line, pl_tile t, int64_t flat)
{
    return pld__tile_get_as(file, line, "pl_tile_get", t, flat);
}
