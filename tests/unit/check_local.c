/* check_local.c: the local vocabulary: dtypes and their conversions, shapes
 * and the bounds test of their regions, host tensors and views, golden
 * helpers, and the local ops inside a kernel (load, store, add, mul, read,
 * write, cast, atomic add). */
#include "checktools.h"
#define FUZZ_REGION_NO_MAIN
#include "../fuzz/fuzz_region.c"

#include <math.h>
#include <pld/pld.h>
#include <stdlib.h>
#include <string.h>

START_TEST(dtype_sizes_and_names)
{
    ck_assert_uint_eq(pl_dtype_size(PL_FP32), 4);
    ck_assert_uint_eq(pl_dtype_size(PL_FP16), 2);
    ck_assert_uint_eq(pl_dtype_size(PL_BF16), 2);
    ck_assert_uint_eq(pl_dtype_size(PL_INT8), 1);
    ck_assert_uint_eq(pl_dtype_size(PL_INT16), 2);
    ck_assert_uint_eq(pl_dtype_size(PL_INT32), 4);
    ck_assert_uint_eq(pl_dtype_size(PL_INT64), 8);
    ck_assert_uint_eq(pl_dtype_size((pl_dtype)0), 0);
    ck_assert_str_eq(pl_dtype_name(PL_BF16), "BF16");
    ck_assert_str_eq(pl_dtype_name((pl_dtype)99), "?");
    ck_assert_uint_eq(pl_dtype_size(PL_UINT8), 1);
    ck_assert_uint_eq(pl_dtype_size(PL_FP8E4M3FN), 1);
    ck_assert_uint_eq(pl_dtype_size(PL_FP8E8M0), 1);
    ck_assert_str_eq(pl_dtype_name(PL_FP8E4M3FN), "FP8E4M3FN");
    ck_assert_str_eq(pl_dtype_name(PL_FP8E8M0), "FP8E8M0");
    ck_assert_str_eq(pl_dtype_name(PL_UINT8), "UINT8");
    ck_assert(pl_dtype_is_int(PL_UINT8) && pl_dtype_is_int(PL_INT64) && pl_dtype_is_int(PL_UINT32));
    ck_assert(!pl_dtype_is_int(PL_FP8E4M3FN) && !pl_dtype_is_int(PL_FP8E8M0) &&
              !pl_dtype_is_int(PL_BF16) && !pl_dtype_is_int((pl_dtype)0));
}
END_TEST

/* FP8 through host tensors, the bytes torch 2.13's float8_e4m3fn and
 * float8_e8m0fnu give for the same values (tests/python/test_v41_patterns.py
 * compares every code with torch itself where torch has them). */
START_TEST(fp8_rounds_as_torch_does)
{
    const double in[] = {1.0,  1.0625, 1.1875,  448.0,     464.0,        1e30,  INFINITY, NAN,
                         -0.0, 0x1p-9, 0x1p-10, 0x1.8p-10, 2.5 * 0x1p-9, 248.0, -1e30};
    const uint8_t want_e4m3[] = {0x38, 0x38, 0x3a, 0x7e, 0x7e, 0x7e, 0x7e, 0x7f,
                                 0x80, 0x01, 0x00, 0x01, 0x02, 0x78, 0xfe};
    const double in_e8[] = {1.0,      1.5, 1.4, 3.0, 0.75, 0.0, -2.0, 0x1p-127, 0x1.fffffcp-127,
                            INFINITY, NAN, 3e38};
    const uint8_t want_e8[] = {127, 128, 127, 129, 127, 0, 128, 0, 1, 255, 255, 255};
    enum { N = sizeof in / sizeof in[0], M = sizeof in_e8 / sizeof in_e8[0] };
    pl_tensor q = pl_tensor_new(PL_SHAPE(N), PL_FP8E4M3FN, "q");
    pl_tensor e = pl_tensor_new(PL_SHAPE(M), PL_FP8E8M0, "e");
    for (int i = 0; i < N; i++)
        pl_tensor_set(q, i, in[i]);
    for (int i = 0; i < M; i++)
        pl_tensor_set(e, i, in_e8[i]);
    for (int i = 0; i < N; i++)
        ck_assert_msg(((uint8_t *)q.data)[i] == want_e4m3[i],
                      "e4m3fn(%g) = 0x%02x, expected 0x%02x", in[i], ((uint8_t *)q.data)[i],
                      want_e4m3[i]);
    for (int i = 0; i < M; i++)
        ck_assert_msg(((uint8_t *)e.data)[i] == want_e8[i], "e8m0(%g) = %u, expected %u", in_e8[i],
                      ((uint8_t *)e.data)[i], want_e8[i]);
    /* and back: 0x7e is 448, 0x01 the smallest subnormal, 0x7f NaN; E8M0 127 is 1 */
    ck_assert(pl_tensor_get(q, 3) == 448.0 && pl_tensor_get(q, 9) == 0x1p-9);
    ck_assert(isnan(pl_tensor_get(q, 7)) && pl_tensor_get(q, 14) == -448.0);
    ck_assert(pl_tensor_get(e, 0) == 1.0 && pl_tensor_get(e, 3) == 4.0 &&
              isnan(pl_tensor_get(e, 9)));
    pl_tensor_free(&q);
    pl_tensor_free(&e);
}
END_TEST

/* FP16 through a host tensor: IEEE binary16 encodings from the standard. */
START_TEST(fp16_rounds_like_ieee_binary16)
{
    pl_tensor t = pl_tensor_new(PL_SHAPE(8), PL_FP16, "h");
    const double in[] = {1.0,  65504.0, 65520.0, 1.0 / 3.0, 5.960464477539063e-08,
                         1e-9, -2.5,    2049.0};
    const double want[] = {1.0, 65504.0, INFINITY, 0.333251953125, 5.960464477539063e-08,
                           0.0, -2.5,    2048.0 /* ties to even */};
    for (int i = 0; i < 8; i++)
        pl_tensor_set(t, i, in[i]);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(pl_tensor_get(t, i) == want[i], "fp16(%g) = %.17g, expected %.17g", in[i],
                      pl_tensor_get(t, i), want[i]);
    uint16_t raw[8];
    memcpy(raw, t.data, sizeof raw);
    ck_assert_uint_eq(raw[0], 0x3c00);
    ck_assert_uint_eq(raw[1], 0x7bff);
    ck_assert_uint_eq(raw[2], 0x7c00);
    ck_assert_uint_eq(raw[4], 0x0001);
    pl_tensor_free(&t);
}
END_TEST

START_TEST(bf16_and_integers_convert)
{
    pl_tensor b = pl_tensor_new(PL_SHAPE(2), PL_BF16, "b");
    pl_tensor_set(b, 0, 1.0 + 1.0 / 256); /* halfway: ties to even -> 1.0 */
    pl_tensor_set(b, 1, 3.0);
    ck_assert(pl_tensor_get(b, 0) == 1.0);
    ck_assert(pl_tensor_get(b, 1) == 3.0);
    pl_tensor i64 = pl_tensor_new(PL_SHAPE(1), PL_INT64, "i");
    pl_tensor_set(i64, 0, 9007199254740992.0);
    ck_assert(pl_tensor_get(i64, 0) == 9007199254740992.0);
    pl_tensor i8 = pl_tensor_new(PL_SHAPE(1), PL_INT8, "c");
    pl_tensor_set(i8, 0, -128);
    ck_assert(pl_tensor_get(i8, 0) == -128);
    pl_tensor_free(&b);
    pl_tensor_free(&i64);
    pl_tensor_free(&i8);
}
END_TEST

START_TEST(shapes_views_and_fills)
{
    pl_shape s = PL_SHAPE(2, 3, 4);
    ck_assert_int_eq(s.ndim, 3);
    ck_assert_int_eq(pl_shape_numel(s), 24);
    ck_assert_int_eq(PL_IDX(7).ndim, 1);
    pl_tensor t = pl_tensor_new(s, PL_FP32, "t");
    pl_fill_arange(t, 10, 2);
    pl_tensor v = pl_at(t, 1);
    ck_assert_int_eq(v.shape.ndim, 2);
    ck_assert_int_eq(v.shape.dim[0], 3);
    ck_assert(pl_tensor_get(v, 0) == 10 + 2 * 12);
    pl_tensor w = pl_at(pl_at(t, 1), 2);
    ck_assert(pl_tensor_get(w, 3) == 10 + 2 * 23);
    ck_assert_uint_eq(pl_tensor_bytes(t), 96);
    pl_tensor_free(&t);
}
END_TEST

START_TEST(allclose_and_equal_explain_mismatches)
{
    pl_tensor a = pl_tensor_new(PL_SHAPE(2, 2), PL_FP32, "y");
    pl_tensor b = pl_tensor_new(PL_SHAPE(2, 2), PL_FP32, "golden");
    pl_fill_arange(a, 0, 1);
    pl_fill_arange(b, 0, 1);
    char why[256] = "";
    ck_assert(pl_allclose(a, b, 1e-5, 1e-5, why, sizeof why));
    ck_assert(pl_equal(a, b, why, sizeof why));
    pl_tensor_set(b, 3, 3.001);
    ck_assert(!pl_allclose(a, b, 1e-5, 1e-5, why, sizeof why));
    ck_assert_str_eq(why, "y[1, 1] = 3 but golden[1, 1] = 3.00099993");
    ck_assert(pl_allclose(a, b, 1e-3, 0, why, sizeof why));
    pl_tensor c = pl_tensor_new(PL_SHAPE(4), PL_FP32, "flat");
    ck_assert(!pl_equal(a, c, why, sizeof why));
    ck_assert_str_eq(why, "shape mismatch: 'y' [2, 2] vs 'flat' [4]");
    pl_tensor_free(&a);
    pl_tensor_free(&b);
    pl_tensor_free(&c);
}
END_TEST

START_TEST(randn_is_seeded_and_standard)
{
    pl_tensor a = pl_tensor_new(PL_SHAPE(20000), PL_FP32, "a");
    pl_tensor b = pl_tensor_new(PL_SHAPE(20000), PL_FP32, "b");
    pl_fill_randn(a, 42);
    pl_fill_randn(b, 42);
    ck_assert(pl_equal(a, b, NULL, 0));
    double sum = 0, sq = 0;
    for (int i = 0; i < 20000; i++) {
        double v = pl_tensor_get(a, i);
        sum += v;
        sq += v * v;
    }
    double mean = sum / 20000, var = sq / 20000 - mean * mean;
    ck_assert_msg(fabs(mean) < 0.03 && fabs(var - 1) < 0.05, "mean %g var %g", mean, var);
    pl_fill_randn(b, 43);
    ck_assert(!pl_equal(a, b, NULL, 0));
    pl_tensor_free(&a);
    pl_tensor_free(&b);
}
END_TEST

/* ---- local ops inside a kernel on the simulator ---- */

struct ops_args {
    pl_tensor x16, y16, xi, yi, yf, cells;
    pld_dtensor acc;
};

static void ops_kernel(const struct ops_args *a)
{
    /* FP16 through float: (x * 2) + x, then + 0.5, minus x, plus x */
    pl_tile h = pl_load(a->x16, PL_IDX(0, 0), PL_SHAPE(1, 16));
    pl_store(pl_add(pl_sub(pl_add(pl_add(pl_mul(h, 2), h), 0.5), h), h), PL_IDX(0, 0), a->y16);
    /* INT32 exact: x * x + 7 - x - 1 */
    pl_tile i = pl_load(a->xi, PL_IDX(0, 0), PL_SHAPE(1, 8));
    pl_store(pl_sub(pl_sub(pl_add(pl_mul(i, i), 7), i), 1), PL_IDX(0, 0), a->yi);
    /* atomic add into a window, twice, then read back */
    pl_tile f = pl_load(a->x16, PL_IDX(0, 0), PL_SHAPE(1, 16));
    pl_store(f, PL_IDX(0, 0), a->acc, .atomic = PL_ATOMIC_ADD);
    pl_store(f, PL_IDX(0, 0), a->acc, .atomic = PL_ATOMIC_ADD);
    pl_store(pl_load(a->acc, PL_IDX(0, 0), PL_SHAPE(1, 16)), PL_IDX(0, 0), a->yf);
    /* scalar read/write and casts */
    pl_write(a->cells, PL_IDX(0), pl_read(a->xi, PL_IDX(0, 3)) + 1);
    pl_write(a->cells, PL_IDX(1), pl_cast(3.9, PL_INT32));
    pl_write(a->cells, PL_IDX(2), pl_cast(-3.9, PL_INT32));
}

static void ops_device(const struct ops_args *a)
{
    pl_incore(ops_kernel, a);
}

static void ops_host(struct ops_args *a)
{
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(1, 16), PL_FP16, .name = "acc");
    a->acc = pld_window(b, PL_SHAPE(1, 16), PL_FP16);
    pld_dispatch(0, ops_device, *a);
}

START_TEST(local_ops_compute_what_they_say)
{
    struct ops_args a = {
        pl_tensor_new(PL_SHAPE(1, 16), PL_FP16, "x16"),
        pl_tensor_new(PL_SHAPE(1, 16), PL_FP16, "y16"),
        pl_tensor_new(PL_SHAPE(1, 8), PL_INT32, "xi"),
        pl_tensor_new(PL_SHAPE(1, 8), PL_INT32, "yi"),
        pl_tensor_new(PL_SHAPE(1, 16), PL_FP16, "yf"),
        pl_tensor_new(PL_SHAPE(4), PL_INT32, "cells"),
        {0},
    };
    pl_fill_arange(a.x16, -4, 0.5);
    pl_fill_arange(a.xi, -3, 1000);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_run(&cfg, ops_host, &a), 0);
    for (int k = 0; k < 16; k++) {
        double x = -4 + 0.5 * k;
        ck_assert(pl_tensor_get(a.y16, k) == 3 * x + 0.5);
        ck_assert(pl_tensor_get(a.yf, k) == 2 * x);
    }
    for (int k = 0; k < 8; k++) {
        int64_t x = -3 + 1000 * k;
        ck_assert(pl_tensor_get(a.yi, k) == (double)(x * x + 7 - x - 1));
    }
    ck_assert(pl_tensor_get(a.cells, 0) == 2998);
    ck_assert(pl_tensor_get(a.cells, 1) == 3);
    ck_assert(pl_tensor_get(a.cells, 2) == -3);
    pl_tensor *all[] = {&a.x16, &a.y16, &a.xi, &a.yi, &a.yf, &a.cells};
    for (int k = 0; k < 6; k++)
        pl_tensor_free(all[k]);
}
END_TEST

/* 100 iterations of acc = acc + load(...) on 32 KiB tiles: 6.4 MB if tiles
 * piled up, but at most three are live at once (96 KiB), as the compiler's
 * buffer planner would have it. */
struct loop_args {
    pl_tensor x, y;
};

static void loop_kernel(const struct loop_args *a)
{
    pl_tile acc = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 8192));
    for (int i = 1; i < 100; i++)
        acc = pl_add(acc, pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 8192)));
    pl_store(acc, PL_IDX(0, 0), a->y);
}

static void loop_device(const struct loop_args *a)
{
    pl_incore(loop_kernel, a);
}

static void loop_host(const struct loop_args *a)
{
    pld_dispatch(0, loop_device, *a);
}

START_TEST(ub_limit_counts_live_tiles_not_all_tiles)
{
    struct loop_args a = {pl_tensor_new(PL_SHAPE(1, 8192), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(1, 8192), PL_FP32, "y")};
    pl_fill_arange(a.x, 0, 1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_run(&cfg, loop_host, &a), 0);
    for (int k = 0; k < 8192; k += 1000)
        ck_assert(pl_tensor_get(a.y, k) == 100.0 * k);
    pl_tensor_free(&a.x);
    pl_tensor_free(&a.y);
}
END_TEST

/* ---- valid_shape: a ragged tail loads, computes and stores only real data ---- */

struct ragged_args {
    pl_tensor x, y, zeros;
    pld_dtensor win;
    double t_full, t_half, t_quarter; /* load times of 16, 8 and 4 valid elements */
};

static double load_time(const struct ragged_args *a, int64_t valid)
{
    double t0 = pld_time();
    (void)pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 16), .valid_shape = PL_SHAPE(1, valid));
    return pld_time() - t0;
}

static void ragged_kernel(struct ragged_args *a)
{
    /* 40 columns in tiles of 16: the last tile holds 8, and reads past x's end
     * would be out of bounds were it not for its valid part */
    for (int64_t col = 0; col < 40; col += 16) {
        int64_t valid = 40 - col < 16 ? 40 - col : 16;
        pl_tile t =
            pl_load(a->x, PL_IDX(0, col), PL_SHAPE(1, 16), .valid_shape = PL_SHAPE(1, valid));
        pl_store(pl_add(pl_mul(t, 2), t), PL_IDX(0, col), a->y); /* the valid part only */
    }
    /* clamp cuts the read at the edge; the rest of the tile reads as zero */
    pl_tile c = pl_load(a->x, PL_IDX(0, 32), PL_SHAPE(1, 16), .clamp = 1);
    ck_assert_int_eq((int)c.valid.dim[1], 8);
    for (int k = 0; k < 16; k++)
        pl_write(a->zeros, PL_IDX(0, k), pl_tile_get(c, k));
    /* a remote_load's valid part: only 8 of 16 columns come over */
    pl_store(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 16)), PL_IDX(0, 0), a->win);
    pl_tile r = pld_tile_remote_load(a->win, .peer = 0, .offsets = PL_IDX(0, 0),
                                     .shape = PL_SHAPE(1, 16), .valid_shape = PL_SHAPE(1, 8));
    pl_store(r, PL_IDX(0, 40), a->y);
    a->t_full = load_time(a, 16);
    a->t_half = load_time(a, 8);
    a->t_quarter = load_time(a, 4);
}

static void ragged_device(struct ragged_args *const *a)
{
    pl_incore(ragged_kernel, *a);
}

static void ragged_host(struct ragged_args *a)
{
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(1, 16), PL_FP32, .name = "win");
    a->win = pld_window(b, PL_SHAPE(1, 16), PL_FP32);
    pld_dispatch(0, ragged_device, a);
}

START_TEST(valid_shape_moves_and_charges_only_the_valid_part)
{
    struct ragged_args a = {.x = pl_tensor_new(PL_SHAPE(1, 40), PL_FP32, "x"),
                            .y = pl_tensor_new(PL_SHAPE(1, 56), PL_FP32, "y"),
                            .zeros = pl_tensor_new(PL_SHAPE(1, 16), PL_FP32, "zeros")};
    pl_fill_arange(a.x, 1, 1);
    for (int k = 0; k < 56; k++)
        pl_tensor_set(a.y, k, -1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_run(&cfg, ragged_host, &a), 0);
    for (int k = 0; k < 40; k++)
        ck_assert_msg(pl_tensor_get(a.y, k) == 3.0 * (k + 1), "y[%d] = %g", k,
                      pl_tensor_get(a.y, k));
    for (int k = 0; k < 8; k++) /* the remote_load's valid part, stored at 40 */
        ck_assert(pl_tensor_get(a.y, 40 + k) == k + 1);
    for (int k = 48; k < 56; k++) /* the store wrote the valid part and nothing past it */
        ck_assert(pl_tensor_get(a.y, k) == -1);
    for (int k = 0; k < 16; k++)
        ck_assert(pl_tensor_get(a.zeros, k) == (k < 8 ? 33 + k : 0));
    /* a load costs hbm_lat + bytes / hbm_bw: linear in the valid bytes */
    ck_assert(a.t_full > a.t_half && a.t_half > a.t_quarter && a.t_quarter > 0);
    ck_assert_msg(fabs((a.t_full - a.t_half) - 2 * (a.t_half - a.t_quarter)) < 1e-15,
                  "load times %.17g %.17g %.17g are not linear in the valid bytes", a.t_full,
                  a.t_half, a.t_quarter);
    pl_tensor_free(&a.x);
    pl_tensor_free(&a.y);
    pl_tensor_free(&a.zeros);
}
END_TEST

/* Two 64 KiB tiles and their sum: the sum takes an operand's UB, since the
 * add is both operands' last use (upstream's planner computes in place), so
 * the kernel fits where three separate tiles (192 KiB) would not. */
static void in_place_kernel(const struct loop_args *a)
{
    pl_tile s = pl_add(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 16384)),
                       pl_load(a->x, PL_IDX(0, 16384), PL_SHAPE(1, 16384)));
    pl_store(s, PL_IDX(0, 0), a->y);
}

static void in_place_device(const struct loop_args *a)
{
    pl_incore(in_place_kernel, a);
}

static void in_place_host(const struct loop_args *a)
{
    pld_dispatch(0, in_place_device, *a);
}

START_TEST(an_op_writes_over_an_operand_it_is_the_last_use_of)
{
    struct loop_args a = {pl_tensor_new(PL_SHAPE(1, 32768), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(1, 16384), PL_FP32, "y")};
    pl_fill_arange(a.x, 0, 1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_run(&cfg, in_place_host, &a), 0);
    for (int k = 0; k < 16384; k += 1000)
        ck_assert(pl_tensor_get(a.y, k) == k + (k + 16384.0));
    pl_tensor_free(&a.x);
    pl_tensor_free(&a.y);
}
END_TEST

/* fuzz_region's property on random inputs and on its seeds (make fuzz
 * runs it for longer, instrumented, where clang is). */
START_TEST(region_bounds_match_128_bit_arithmetic)
{
    uint64_t x = 0x9e3779b97f4a7c15u; /* xorshift64: the same inputs every run */
    uint8_t in[1 + 3 * PL_MAX_DIMS * 9];
    for (int k = 0; k < 200000; k++) {
        for (size_t i = 0; i < sizeof in; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            in[i] = (uint8_t)x;
        }
        ck_assert_msg(region_property(in, sizeof in), "random input %d disagrees", k);
    }
    static const char *const seeds[] = {"huge-offset", "negative-offset", "inside"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fuzz/seeds/fuzz_region/%s", PLD_SRCDIR, seeds[i]);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        uint8_t buf[256];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ck_assert_msg(region_property(buf, n), "seed %s disagrees", seeds[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("local");
    TCase *tc = tcase_create("local");
    tcase_add_test(tc, dtype_sizes_and_names);
    tcase_add_test(tc, region_bounds_match_128_bit_arithmetic);
    tcase_add_test(tc, fp16_rounds_like_ieee_binary16);
    tcase_add_test(tc, fp8_rounds_as_torch_does);
    tcase_add_test(tc, bf16_and_integers_convert);
    tcase_add_test(tc, shapes_views_and_fills);
    tcase_add_test(tc, allclose_and_equal_explain_mismatches);
    tcase_add_test(tc, randn_is_seeded_and_standard);
    tcase_add_test(tc, local_ops_compute_what_they_say);
    tcase_add_test(tc, ub_limit_counts_live_tiles_not_all_tiles);
    tcase_add_test(tc, valid_shape_moves_and_charges_only_the_valid_part);
    tcase_add_test(tc, an_op_writes_over_an_operand_it_is_the_last_use_of);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
