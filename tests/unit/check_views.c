/* check_views.c: tensor views (pl_slice), the tile cast, and the
 * tensor-level remote_store (pld_tensor_remote_store).  What a user sees:
 * a slice reads and writes its tensor's own memory, dense or strided, on
 * the host and in a window; the push lands at the peer's offsets, plain or
 * accumulated; and every misuse is one message naming the user's file:line,
 * the rank and the op, with a non-zero exit. */
#include "checktools.h"

#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = 4, COLS = 16 };

/* ---- slices of host tensors, outside a run ---- */

START_TEST(a_slice_of_whole_rows_is_the_rows_memory)
{
    pl_tensor x = pl_tensor_new(PL_SHAPE(ROWS, COLS), PL_FP32, "x");
    pl_fill_arange(x, 0, 1);
    pl_tensor s = pl_slice(x, PL_SHAPE(2, COLS), PL_IDX(1, 0));
    ck_assert_int_eq(s.shape.ndim, 2);
    ck_assert_int_eq(s.layout.ndim, 0); /* dense: no layout */
    ck_assert(s.data == (char *)x.data + COLS * 4);
    ck_assert(pl_tensor_get(s, 0) == COLS);
    pl_tensor_set(s, 2 * COLS - 1, -1);
    ck_assert(pl_tensor_get(x, 3 * COLS - 1) == -1);
    pl_tensor_free(&x);
}
END_TEST

START_TEST(a_slice_of_columns_is_strided_and_reads_its_elements)
{
    pl_tensor x = pl_tensor_new(PL_SHAPE(ROWS, COLS), PL_FP32, "x");
    pl_fill_arange(x, 0, 1);
    pl_tensor s = pl_slice(x, PL_SHAPE(3, 8), PL_IDX(1, 4));
    ck_assert_int_eq(s.layout.ndim, 2);
    ck_assert_int_eq(s.layout.dim[1], COLS);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 8; c++)
            ck_assert(pl_tensor_get(s, r * 8 + c) == (r + 1) * COLS + 4 + c);
    /* a slice of the slice, and pl_at of a strided view */
    pl_tensor ss = pl_slice(s, PL_SHAPE(2, 2), PL_IDX(1, 6));
    ck_assert(pl_tensor_get(ss, 3) == 3 * COLS + 11);
    pl_tensor row = pl_at(s, 2);
    ck_assert_int_eq(row.shape.ndim, 1);
    ck_assert(pl_tensor_get(row, 7) == 3 * COLS + 11);
    pl_tensor_free(&x);
}
END_TEST

START_TEST(a_three_dim_slice_keeps_the_outer_strides)
{
    pl_tensor x = pl_tensor_new(PL_SHAPE(2, 3, 8), PL_INT32, "x");
    pl_fill_arange(x, 0, 1);
    pl_tensor s = pl_slice(x, PL_SHAPE(2, 1, 8), PL_IDX(0, 2, 0)); /* row 2 of each plane */
    ck_assert_int_eq(s.layout.ndim, 3);
    ck_assert(pl_tensor_get(s, 0) == 16);
    ck_assert(pl_tensor_get(s, 8) == 24 + 16);
    pl_tensor_free(&x);
}
END_TEST

/* ---- in a run: loads and stores through slices, windows, the push ---- */

static double got_strided[8], got_window[COLS], got_pushed[2][2 * COLS], got_cast[2];

struct rank_args {
    pl_tensor x, y;
    pld_dtensor win, dst, sig;
    int add;
};

static void views_kernel(const struct rank_args *a)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(a->win);
    int me = pld_rank(ctx), peer = 1 - me;
    /* a strided slice of a host tensor through a tile into another slice */
    pl_tile t =
        pl_load(pl_slice(a->x, PL_SHAPE(ROWS, 8), PL_IDX(0, 8)), PL_IDX(0, 0), PL_SHAPE(ROWS, 8));
    pl_store(t, PL_IDX(0, 0), pl_slice(a->y, PL_SHAPE(ROWS, 8), PL_IDX(0, 0)));
    for (int i = 0; i < 8; i++)
        got_strided[i] = pl_read(a->y, PL_IDX(1, i));
    /* a window's row slice is still a window view */
    pld_dtensor row1 = pl_slice(a->win, PL_SHAPE(1, COLS), PL_IDX(1, 0));
    pl_store(pl_load(a->x, PL_IDX(2, 0), PL_SHAPE(1, COLS)), PL_IDX(0, 0), row1);
    for (int i = 0; i < COLS; i++)
        got_window[i] = pl_read(a->win, PL_IDX(1, i));
    /* the tile cast */
    pl_tile c = pl_cast(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, COLS)), PL_INT32);
    got_cast[0] = pl_tile_get(c, 3);
    got_cast[1] = c.dtype;
    /* the tensor-level push: row `me` of x into the peer's dst row me, then
     * (when add) accumulated once more */
    pl_tensor mine = pl_slice(a->x, PL_SHAPE(1, COLS), PL_IDX(me, 0));
    pld_tensor_remote_store(mine, a->dst, .peer = peer, .offsets = PL_IDX(me, 0));
    if (a->add)
        pld_tensor_remote_store(mine, a->dst, .peer = peer, .offsets = PL_IDX(me, 0),
                                .atomic = PL_ATOMIC_ADD);
    pld_tensor_barrier(a->sig);
    for (int i = 0; i < 2 * COLS; i++)
        got_pushed[me][i] = pl_read(a->dst, PL_IDX(i / COLS, i % COLS));
}

static void views_device(const struct rank_args *a)
{
    pl_incore(views_kernel, a);
}

struct host_args {
    pl_tensor x, y;
    int add;
};

static void views_host(const struct host_args *h)
{
    pld_buffer w = pld_alloc_window_buffer(PL_SHAPE(ROWS, COLS), PL_FP32, .name = "win");
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(2, COLS), PL_FP32, .name = "dst");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "sig");
    for (int r = 0; r < 2; r++) {
        struct rank_args a = {.x = pl_at(h->x, r),
                              .y = pl_at(h->y, r),
                              .win = pld_window(w, PL_SHAPE(ROWS, COLS), PL_FP32),
                              .dst = pld_window(d, PL_SHAPE(2, COLS), PL_FP32),
                              .sig = pld_window(s, PL_SHAPE(2, 1), PL_INT32),
                              .add = h->add};
        pld_dispatch(r, views_device, a);
    }
}

static void run_views(int add)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    struct host_args h = {.x = pl_tensor_new(PL_SHAPE(2, ROWS, COLS), PL_FP32, "x"),
                          .y = pl_tensor_new(PL_SHAPE(2, ROWS, COLS), PL_FP32, "y"),
                          .add = add};
    pl_fill_arange(h.x, 0.5, 1); /* rank r's x[i][j] = r*64 + i*16 + j + 0.5 */
    ck_assert_int_eq(pld_run(&cfg, views_host, &h), 0);
    /* rank 1 ran last: its values are in the got_* arrays but for the pushes */
    for (int i = 0; i < 8; i++)
        ck_assert(got_strided[i] == ROWS * COLS + COLS + 8 + i + 0.5);
    /* the store went to y's columns 0..7, whose other columns stay zero */
    ck_assert(pl_tensor_get(h.y, ROWS * COLS + COLS + 8) == 0);
    ck_assert(pl_tensor_get(h.y, COLS + 2) == 8 + 2 + 0.5 + COLS);
    for (int i = 0; i < COLS; i++)
        ck_assert(got_window[i] == ROWS * COLS + 2 * COLS + i + 0.5);
    ck_assert(got_cast[0] == ROWS * COLS + 3); /* 67.5 truncated */
    ck_assert(got_cast[1] == PL_INT32);
    for (int me = 0; me < 2; me++) {
        int from = 1 - me; /* the peer pushed its row `from` into my row `from` */
        for (int i = 0; i < COLS; i++) {
            double v = from * ROWS * COLS + from * COLS + i + 0.5;
            ck_assert(got_pushed[me][from * COLS + i] == (add ? 2 * v : v));
            ck_assert(got_pushed[me][me * COLS + i] == 0);
        }
    }
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
}

START_TEST(slices_load_store_and_push_in_a_run)
{
    run_views(0);
}
END_TEST

START_TEST(tensor_remote_store_accumulates_with_atomic_add)
{
    run_views(1);
}
END_TEST

/* ---- misuse ---- */

enum misuse {
    SLICE_OUT_OF_BOUNDS,
    SLICE_RANK,
    SLICE_NEGATIVE_OFFSET,
    TRS_DTYPE_MISMATCH,
    TRS_REGION_OUT_OF_BOUNDS,
    TRS_TARGET_HOST_TENSOR,
    TRS_SRC_WINDOW,
    TRS_MISSING_PEER,
    TRS_ADD_INT64,
    SIGNAL_STRIDED,
    COLLECTIVE_STRIDED,
    CAST_BAD_DTYPE,
};

static _Atomic int bad_line;

struct misuse_args {
    pl_tensor x, xi, xl;
    pld_dtensor win, sig, big;
    enum misuse what;
};

static void misuse_kernel(const struct misuse_args *a)
{
    pl_tile t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, COLS));
    // clang-format off
    switch (a->what) {
    case SLICE_OUT_OF_BOUNDS:
        bad_line = __LINE__; (void)pl_slice(a->x, PL_SHAPE(2, 8), PL_IDX(3, 4));
        break;
    case SLICE_RANK:
        bad_line = __LINE__; (void)pl_slice(a->x, PL_SHAPE(COLS), PL_IDX(0));
        break;
    case SLICE_NEGATIVE_OFFSET:
        bad_line = __LINE__; (void)pl_slice(a->win, PL_SHAPE(1, 8), PL_IDX(0, -1));
        break;
    case TRS_DTYPE_MISMATCH:
        bad_line = __LINE__; pld_tensor_remote_store(a->xi, a->win, .peer = 1, .offsets = PL_IDX(0, 0));
        break;
    case TRS_REGION_OUT_OF_BOUNDS:
        bad_line = __LINE__; pld_tensor_remote_store(pl_slice(a->x, PL_SHAPE(2, COLS), PL_IDX(0, 0)), a->win, .peer = 1, .offsets = PL_IDX(3, 0));
        break;
    case TRS_TARGET_HOST_TENSOR:
        bad_line = __LINE__; pld_tensor_remote_store(a->x, a->x, .peer = 1, .offsets = PL_IDX(0, 0));
        break;
    case TRS_SRC_WINDOW:
        bad_line = __LINE__; pld_tensor_remote_store(a->win, a->win, .peer = 1, .offsets = PL_IDX(0, 0));
        break;
    case TRS_MISSING_PEER:
        bad_line = __LINE__; pld_tensor_remote_store(a->x, a->win, .offsets = PL_IDX(0, 0));
        break;
    case TRS_ADD_INT64:
        bad_line = __LINE__; pld_tensor_remote_store(a->xl, a->big, .peer = 1, .offsets = PL_IDX(0, 0), .atomic = PL_ATOMIC_ADD);
        break;
    case SIGNAL_STRIDED:
        bad_line = __LINE__; pld_system_notify(pl_slice(a->sig, PL_SHAPE(2, 1), PL_IDX(0, 1)), .peer = 1, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
        break;
    case COLLECTIVE_STRIDED:
        bad_line = __LINE__; (void)pld_tensor_allreduce(pl_slice(a->win, PL_SHAPE(ROWS, 8), PL_IDX(0, 0)), a->sig);
        break;
    case CAST_BAD_DTYPE:
        bad_line = __LINE__; (void)pl_cast(t, (pl_dtype)42);
        break;
    }
    // clang-format on
}

static void misuse_device(const struct misuse_args *a)
{
    pl_incore(misuse_kernel, a);
}

struct misuse_host {
    pl_tensor x, xi, xl;
    enum misuse what;
};

static void misuse_host(const struct misuse_host *h)
{
    pld_buffer w = pld_alloc_window_buffer(PL_SHAPE(ROWS, COLS), PL_FP32, .name = "win");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(2, 2), PL_INT32, .name = "sig");
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(1, 8), PL_INT64, .name = "big");
    struct misuse_args a = {.x = h->x,
                            .xi = h->xi,
                            .xl = h->xl,
                            .win = pld_window(w, PL_SHAPE(ROWS, COLS), PL_FP32),
                            .sig = pld_window(s, PL_SHAPE(2, 2), PL_INT32),
                            .big = pld_window(b, PL_SHAPE(1, 8), PL_INT64),
                            .what = h->what};
    pld_dispatch(0, misuse_device, a);
}

static const struct {
    enum misuse what;
    const char *op, *text;
} cases[] = {
    {SLICE_OUT_OF_BOUNDS, "pl_slice",
     "region at offsets [3, 4] with shape [2, 8] is out of bounds of tensor 'x' [4, 16] (dim 0: "
     "3 + 2 > 4)"},
    {SLICE_RANK, "pl_slice", "offsets [0] of tensor have 1 dims but tensor 'x' has shape [4, 16]"},
    {SLICE_NEGATIVE_OFFSET, "pl_slice",
     "is out of bounds of tensor 'win' [4, 16] (dim 1: offset -1 is negative)"},
    {TRS_DTYPE_MISMATCH, "pld_tensor_remote_store",
     "dtype mismatch: src 'xi' is INT32 but target 'win' is FP32"},
    {TRS_REGION_OUT_OF_BOUNDS, "pld_tensor_remote_store",
     "region at offsets [3, 0] with shape [2, 16] is out of bounds of target 'win' [4, 16] (dim "
     "0: 3 + 2 > 4)"},
    {TRS_TARGET_HOST_TENSOR, "pld_tensor_remote_store",
     "target 'x' is a host tensor; cross-rank calls need a window view (pld_window)"},
    {TRS_SRC_WINDOW, "pld_tensor_remote_store",
     "src 'win' is a window view; it must be a local tensor-level value (a host tensor or a "
     "slice of one): to push one window into another use pld_tensor_put"},
    {TRS_MISSING_PEER, "pld_tensor_remote_store", "missing required keyword .peer"},
    {TRS_ADD_INT64, "pld_tensor_remote_store",
     "atomic Add supports FP32, FP16, BF16, INT32, INT16, INT8, UINT32 and UINT8, not INT64"},
    {SIGNAL_STRIDED, "pld_system_notify",
     "target 'sig' is a strided view ([2, 1] of rows of [2, 2]): pld_system_notify needs a dense "
     "tensor"},
    {COLLECTIVE_STRIDED, "pld_tensor_allreduce",
     "'win' is a strided view ([4, 8] of rows of [4, 16]): pld_tensor_allreduce needs a dense "
     "tensor"},
    {CAST_BAD_DTYPE, "pl_cast", "invalid target dtype 42"},
};

START_TEST(misuse_is_one_clear_message)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    struct misuse_host h = {.x = pl_tensor_new(PL_SHAPE(ROWS, COLS), PL_FP32, "x"),
                            .xi = pl_tensor_new(PL_SHAPE(1, COLS), PL_INT32, "xi"),
                            .xl = pl_tensor_new(PL_SHAPE(1, 8), PL_INT64, "xl"),
                            .what = cases[_i].what};
    capture_stderr_begin();
    int rc = pld_run(&cfg, misuse_host, &h);
    char *err = capture_stderr_end();
    char head[256];
    snprintf(head, sizeof head, "%s:%d: rank 0: %s: ", __FILE__, bad_line, cases[_i].op);
    ck_assert_contains(err, head);
    ck_assert_contains(err, cases[_i].text);
    ck_assert_msg(count_error_lines(err) == 1, "expected one line, got:\n%s", err);
    free(err);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.xi);
    pl_tensor_free(&h.xl);
    exit(pld_exit_code(rc)); /* the test case asserts the exit status */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("views");
    TCase *host = tcase_create("host slices");
    tcase_add_test(host, a_slice_of_whole_rows_is_the_rows_memory);
    tcase_add_test(host, a_slice_of_columns_is_strided_and_reads_its_elements);
    tcase_add_test(host, a_three_dim_slice_keeps_the_outer_strides);
    suite_add_tcase(s, host);
    TCase *run = tcase_create("in a run");
    tcase_add_test(run, slices_load_store_and_push_in_a_run);
    tcase_add_test(run, tensor_remote_store_accumulates_with_atomic_add);
    tcase_set_timeout(run, 60);
    suite_add_tcase(s, run);
    TCase *bad = tcase_create("misuse");
    tcase_add_loop_exit_test(bad, misuse_is_one_clear_message, 3, 0,
                             (int)(sizeof cases / sizeof *cases));
    tcase_set_timeout(bad, 60);
    suite_add_tcase(s, bad);
    return run_suite(s);
}
