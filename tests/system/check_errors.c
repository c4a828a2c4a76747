/* check_errors.c: every error path ends with one clear message (the user's
 * file:line, the rank, the op, what was expected) and a non-zero exit: no
 * crash, no hang.  Each test runs in its own forked process (Check's fork
 * mode) and exits with pld_exit_code(rc), which the test case asserts. */
#include "checktools.h"

#include <pld/pld.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum misuse {
    PEER_OUT_OF_RANGE,
    OFFSETS_OUT_OF_BOUNDS,
    SHAPE_OUT_OF_BOUNDS,
    DTYPE_MISMATCH,
    UB_OVERFLOW,
    MISSING_CMP,
    MISSING_OP,
    MISSING_PEER,
    MISSING_EXPECTED,
    WORLD_SIZE_IN_KERNEL,
    RANK_ON_HOST,
    SIGNAL_NOT_INT32,
    PUT_PARTIAL_REGION,
    LOAD_HOST_TENSOR_AS_WINDOW,
    VIEW_LARGER_THAN_BUFFER,
    TILE_ROW_MISALIGNED,
    DEADLOCK,
    UB_PEAK,
    RING_SIGNAL_SHAPE,
    ALLGATHER_ALIAS,
    BROADCAST_NO_ROOT,
    SKIP_COLLECTIVE,
    WAIT_CYCLE,
    WAIT_ON_FINISHED,
    WAIT_TIMEOUT,
    /* the rest of the matrix (docs/errors.md) */
    STORE_DTYPE_MISMATCH,
    NOTIFY_VALUE_RANGE,
    NOTIFY_PEER_RANGE,
    UNINIT_NOTIFY,
    UNINIT_COMM_CTX,
    UNINIT_REMOTE_LOAD,
    WAIT_CMP_INVALID,
    PUT_SHAPE_MISMATCH,
    GET_WITH_ATOMIC,
    PUT_PIPELINE_NO_CHUNKS,
    TILE_AFTER_KERNEL,
    NESTED_INCORE,
    CAST_OVERFLOW,
    ALLREDUCE_BAD_DTYPE,
    REDUCE_OP_INVALID,
    BARRIER_BAD_SHAPE,
    ALL_TO_ALL_SHAPES,
    BROADCAST_ROOT_RANGE,
    LOAD_OFFSETS_RANK,
    DISPATCH_BAD_RANK,
    AT_OUT_OF_RANGE,
    BIND_SHAPE_MISMATCH,
    ALLOC_SHAPE_NO_DTYPE,
    ALLOC_BYTES_NONPOSITIVE,
    ADD_SHAPE_MISMATCH,
    READ_OUT_OF_BOUNDS,
    COMM_CTX_OF_HOST_TENSOR,
    VALID_SHAPE_WIDER,
    VALID_SHAPE_RANK,
    CLAMP_PAST_THE_END,
    LOAD_ARRAY_BYTES_NEGATIVE,
    VALID_READ_OUT_OF_BOUNDS,
    A2AV_ROWS_NOT_PER_RANK,
    A2AV_ALIAS,
    EXTRA_BARRIER,
    TILE_GET_PAST_END,
    TILE_GET_FAR_AWAY,
    TILE_GET_NEGATIVE,
    /* offsets near INT64_MAX, whose offset + extent once wrapped and passed */
    LOAD_HUGE_OFFSET,
    REMOTE_LOAD_HUGE_OFFSET,
    PUT_HUGE_DST_OFFSET,
    PUT_ASYNC_HUGE_DST_OFFSET,
    PUT_ASYNC_HUGE_SRC_OFFSET,
    PUT_ASYNC_NEGATIVE_SRC_OFFSET,
    CLAMP_NEGATIVE_OFFSET,
    VIEW_OF_HUGE_SHAPE,
    ALLOC_OF_HUGE_SHAPE,
    TILE_OF_HUGE_SHAPE,
    TILE_PUT_ONE_STAGE_TWICE,
    TILE_GET_ONE_STAGE_TWICE,
};

#define HUGE (INT64_MAX - 10)

static _Atomic int bad_line; /* the offending call's line (atomic: ranks may be threads) */
static const char *backend;  /* --backend for the next run_misuse, or NULL (sim) */

struct rank_args {
    pl_tensor x;
    pld_dtensor data, sig, rows, rows_first;
    enum misuse what;
};

static pl_tile stash; /* a tile kept past its kernel (TILE_AFTER_KERNEL) */

static void stash_kernel(const struct rank_args *a)
{
    stash = pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, 64));
}

static void inner_kernel(void) {}

static void kernel(const struct rank_args *a)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(a->data);
    int me = pld_rank(ctx);
    pl_tile t = pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, 64));
    /* Each bad call shares its line with the assignment that records it. */
    // clang-format off
    switch (a->what) {
    case PEER_OUT_OF_RANGE:
        bad_line = __LINE__; (void)pld_tile_remote_load(a->data, .peer = 5, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 64));
        break;
    case OFFSETS_OUT_OF_BOUNDS:
        bad_line = __LINE__; pld_tile_remote_store(t, a->data, .peer = 1 - me, .offsets = PL_IDX(0, 32));
        break;
    case SHAPE_OUT_OF_BOUNDS:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(2, 64));
        break;
    case DTYPE_MISMATCH:
        bad_line = __LINE__; pld_tile_remote_store(t, a->sig, .peer = 1 - me, .offsets = PL_IDX(0, 0));
        break;
    case UB_OVERFLOW:
        bad_line = __LINE__; (void)pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 50000));
        break;
    case MISSING_CMP:
        bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 1);
        break;
    case MISSING_OP:
        bad_line = __LINE__; pld_system_notify(a->sig, .peer = 1 - me, .offsets = PL_IDX(0, 0), .value = 1);
        break;
    case MISSING_PEER:
        bad_line = __LINE__; pld_system_notify(a->sig, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
        break;
    case MISSING_EXPECTED:
        bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .cmp = PLD_WAIT_EQ);
        break;
    case WORLD_SIZE_IN_KERNEL:
        bad_line = __LINE__; (void)pld_world_size();
        break;
    case SIGNAL_NOT_INT32:
        bad_line = __LINE__; pld_system_notify(a->data, .peer = 1 - me, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_ATOMIC_ADD);
        break;
    case PUT_PARTIAL_REGION:
        bad_line = __LINE__; pld_tensor_put(a->data, .peer = 1 - me, .src = a->data, .dst_offsets = PL_IDX(0, 0));
        break;
    case LOAD_HOST_TENSOR_AS_WINDOW:
        bad_line = __LINE__; (void)pld_tile_remote_load(a->x, .peer = 1 - me, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 64));
        break;
    case TILE_ROW_MISALIGNED:
        bad_line = __LINE__; (void)pl_load(a->sig, PL_IDX(0, 0), PL_SHAPE(2, 1));
        break;
    case DEADLOCK:
        /* Each rank waits for a notify that nobody sends. */
        bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
        break;
    case UB_PEAK: {
        /* four 48 KiB tiles are live together while t1 + t2 is computed:
         * t1 and t2 are used again, so the sum cannot take either's UB */
        pl_tile t1 = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 12288));
        pl_tile t2 = pl_load(a->x, PL_IDX(0, 12288), PL_SHAPE(1, 12288));
        pl_tile t3 = pl_load(a->x, PL_IDX(0, 24576), PL_SHAPE(1, 12288));
        bad_line = __LINE__; pl_tile sum = pl_add(t1, t2);
        (void)pl_add(pl_add(sum, t3), pl_add(t1, t2));
        break;
    }
    case RING_SIGNAL_SHAPE:
        bad_line = __LINE__; pld_tensor_allreduce(a->data, a->sig, .mode = PLD_ALLREDUCE_RING);
        break;
    case ALLGATHER_ALIAS:
        bad_line = __LINE__; pld_tensor_allgather(a->rows_first, a->rows, a->sig);
        break;
    case BROADCAST_NO_ROOT:
        bad_line = __LINE__; pld_tensor_broadcast(a->data, a->sig);
        break;
    case SKIP_COLLECTIVE:
        /* rank 1 forgets the collective that rank 0 enters */
        if (me == 0) {
            bad_line = __LINE__; pld_tensor_allreduce(a->data, a->sig, .op = PLD_REDUCE_SUM);
        }
        break;
    case WAIT_CYCLE: /* each sends one credit but waits for two */
        pld_system_notify(a->sig, .peer = 1 - me, .offsets = PL_IDX(me, 0), .value = 1, .op = PLD_NOTIFY_ATOMIC_ADD);
        bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(1 - me, 0), .expected = 2, .cmp = PLD_WAIT_GE);
        break;
    case WAIT_ON_FINISHED: /* rank 0 sends one credit and leaves */
        if (me == 0)
            pld_system_notify(a->sig, .peer = 1, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_ATOMIC_ADD);
        else {
            bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 2, .cmp = PLD_WAIT_GE);
        }
        break;
    case WAIT_TIMEOUT: /* rank 1 waits for nothing while rank 0 works on */
        if (me == 0)
            /* sim: 2000 GM loads; threads: up to 5 s of wall time, which the
               timeout ends at 50 ms, and which a loaded machine that starts
               rank 1 late still leaves long enough for its wait to time out */
            for (int k = 0; backend ? pld_time() < 5.0 : k < 2000; k++)
                (void)pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, 64));
        else {
            bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
        }
        break;
    case STORE_DTYPE_MISMATCH:
        bad_line = __LINE__; pl_store(t, PL_IDX(0, 0), a->sig);
        break;
    case NOTIFY_VALUE_RANGE:
        bad_line = __LINE__; pld_system_notify(a->sig, .peer = 1 - me, .offsets = PL_IDX(0, 0), .value = 1LL << 40, .op = PLD_NOTIFY_SET);
        break;
    case UNINIT_NOTIFY:
        bad_line = __LINE__; pld_system_notify((pl_tensor){0}, .peer = 1 - me, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
        break;
    case UNINIT_COMM_CTX:
        bad_line = __LINE__; (void)pld_get_comm_ctx((pl_tensor){0});
        break;
    case UNINIT_REMOTE_LOAD:
        bad_line = __LINE__; (void)pld_tile_remote_load((pl_tensor){0}, .peer = 1 - me, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 64));
        break;
    case NOTIFY_PEER_RANGE:
        bad_line = __LINE__; pld_system_notify(a->sig, .peer = -1, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
        break;
    case WAIT_CMP_INVALID:
        bad_line = __LINE__; pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = (pld_wait_cmp)7);
        break;
    case PUT_SHAPE_MISMATCH:
        bad_line = __LINE__; pld_tensor_put(a->data, .peer = 1 - me, .src = a->rows);
        break;
    case GET_WITH_ATOMIC:
        bad_line = __LINE__; pld_tensor_get(a->data, .peer = 1 - me, .src = a->data, .atomic = PL_ATOMIC_ADD);
        break;
    case PUT_PIPELINE_NO_CHUNKS:
        bad_line = __LINE__; pld_tensor_put(a->data, .peer = 1 - me, .src = a->data, .pipeline = 1);
        break;
    case TILE_AFTER_KERNEL:
        bad_line = __LINE__; pld_tile_remote_store(stash, a->data, .peer = 1 - me, .offsets = PL_IDX(0, 0));
        break;
    case NESTED_INCORE:
        bad_line = __LINE__; pl_incore(inner_kernel);
        break;
    case CAST_OVERFLOW:
        bad_line = __LINE__; (void)pl_cast(1e12, PL_INT32);
        break;
    case ALLREDUCE_BAD_DTYPE:
        bad_line = __LINE__; pld_tensor_allreduce(a->sig, a->sig);
        break;
    case REDUCE_OP_INVALID:
        bad_line = __LINE__; pld_tensor_allreduce(a->data, a->sig, .op = (pld_reduce_op)9);
        break;
    case BARRIER_BAD_SHAPE:
        bad_line = __LINE__; pld_tensor_barrier(a->data);
        break;
    case ALL_TO_ALL_SHAPES:
        bad_line = __LINE__; pld_tensor_all_to_all(a->rows, a->data, a->sig);
        break;
    case A2AV_ROWS_NOT_PER_RANK:
        bad_line = __LINE__; pld_tensor_all_to_all_v(a->rows_first, a->data, a->sig, a->sig, a->sig);
        break;
    case A2AV_ALIAS:
        bad_line = __LINE__; pld_tensor_all_to_all_v(a->rows, a->rows, a->sig, a->sig, a->sig);
        break;
    case BROADCAST_ROOT_RANGE:
        bad_line = __LINE__; pld_tensor_broadcast(a->data, a->sig, .root = 7);
        break;
    case LOAD_OFFSETS_RANK:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0), PL_SHAPE(1, 64));
        break;
    case ADD_SHAPE_MISMATCH:
        bad_line = __LINE__; (void)pl_add(t, pl_load(a->rows, PL_IDX(0, 0), PL_SHAPE(2, 64)));
        break;
    case READ_OUT_OF_BOUNDS:
        bad_line = __LINE__; (void)pl_read(a->sig, PL_IDX(2, 0));
        break;
    case COMM_CTX_OF_HOST_TENSOR:
        bad_line = __LINE__; (void)pld_get_comm_ctx(a->x);
        break;
    case VALID_SHAPE_WIDER:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, 32), .valid_shape = PL_SHAPE(1, 40));
        break;
    case VALID_SHAPE_RANK:
        bad_line = __LINE__; (void)pld_tile_remote_load(a->data, .peer = 1 - me, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 32), .valid_shape = PL_SHAPE(32));
        break;
    case CLAMP_PAST_THE_END:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 64), PL_SHAPE(1, 8), .clamp = 1);
        break;
    case LOAD_ARRAY_BYTES_NEGATIVE:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, 8), .array_bytes = -1);
        break;
    case EXTRA_BARRIER: /* both meet once; rank 0 then waits for a second barrier */
        pld_tensor_barrier(a->sig);
        if (me == 0) {
            bad_line = __LINE__; pld_tensor_barrier(a->sig);
        }
        break;
    case TILE_GET_PAST_END:
        bad_line = __LINE__; (void)pl_tile_get(t, 64);
        break;
    case TILE_GET_FAR_AWAY:
        bad_line = __LINE__; (void)pl_tile_get(t, (int64_t)1 << 40);
        break;
    case TILE_GET_NEGATIVE:
        bad_line = __LINE__; (void)pl_tile_get(t, -1000000000000LL);
        break;
    case LOAD_HUGE_OFFSET:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, HUGE), PL_SHAPE(1, 64));
        break;
    case REMOTE_LOAD_HUGE_OFFSET:
        bad_line = __LINE__; (void)pld_tile_remote_load(a->data, .peer = 1 - me, .offsets = PL_IDX(0, HUGE), .shape = PL_SHAPE(1, 64));
        break;
    case PUT_HUGE_DST_OFFSET:
        bad_line = __LINE__; pld_tensor_put(a->data, .peer = 1 - me, .src = a->data, .dst_offsets = PL_IDX(0, HUGE), .src_offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 64));
        break;
    case PUT_ASYNC_HUGE_DST_OFFSET:
    case PUT_ASYNC_HUGE_SRC_OFFSET:
    case PUT_ASYNC_NEGATIVE_SRC_OFFSET: {
        pld_async_session s = pld_system_async_session();
        int64_t dst = a->what == PUT_ASYNC_HUGE_DST_OFFSET ? HUGE : 0;
        int64_t src = a->what == PUT_ASYNC_HUGE_SRC_OFFSET ? HUGE : a->what == PUT_ASYNC_NEGATIVE_SRC_OFFSET ? -64 : 0;
        bad_line = __LINE__; (void)pld_tensor_put_async(a->data, .peer = 1 - me, .src = a->data, .dst_offsets = PL_IDX(0, dst), .src_offsets = PL_IDX(0, src), .shape = PL_SHAPE(1, 64), .session = s);
        break;
    }
    case CLAMP_NEGATIVE_OFFSET:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, INT64_MIN), PL_SHAPE(1, 8), .clamp = 1);
        break;
    case TILE_OF_HUGE_SHAPE: /* 2^66 elements: their byte count once wrapped to 0 */
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1LL << 33, 1LL << 33), .valid_shape = PL_SHAPE(1, 64));
        break;
    case TILE_PUT_ONE_STAGE_TWICE:
        bad_line = __LINE__; pld_tile_put(a->data, .peer = 1 - me, .src = a->data, .stage = t, .stage2 = t);
        break;
    case TILE_GET_ONE_STAGE_TWICE:
        bad_line = __LINE__; pld_tile_get(a->data, .peer = 1 - me, .src = a->data, .stage = t, .stage2 = t);
        break;
    case VALID_READ_OUT_OF_BOUNDS:
        bad_line = __LINE__; (void)pl_load(a->data, PL_IDX(0, 48), PL_SHAPE(1, 32), .valid_shape = PL_SHAPE(1, 24));
        break;
    default: /* the host-side cases */
        break;
    }
    // clang-format on
}

static _Atomic int incore_line;

static void per_device(const struct rank_args *a)
{
    if (a->what == TILE_AFTER_KERNEL)
        pl_incore(stash_kernel, a);
    // clang-format off
    incore_line = __LINE__; pl_incore(kernel, a);
    // clang-format on
}

struct host_args {
    pl_tensor x;
    enum misuse what;
};

static void host(const struct host_args *h)
{
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, 64), PL_FP32, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "sig");
    pld_dtensor sig = pld_window(s, PL_SHAPE(2, 1), PL_INT32);
    pld_buffer rows = pld_alloc_window_buffer(PL_SHAPE(2, 64), PL_FP32, .name = "rows");
    // clang-format off
    if (h->what == VIEW_LARGER_THAN_BUFFER) {
        bad_line = __LINE__; (void)pld_window(d, PL_SHAPE(2, 64), PL_FP32);
    }
    if (h->what == RANK_ON_HOST) {
        bad_line = __LINE__; (void)pld_rank(pld_get_comm_ctx(sig));
    }
    if (h->what == AT_OUT_OF_RANGE) {
        bad_line = __LINE__; (void)pl_at(h->x, 3);
    }
    if (h->what == BIND_SHAPE_MISMATCH) {
        bad_line = __LINE__; pl_bind_shape(h->x, PL_SHAPE(2, 3));
    }
    if (h->what == ALLOC_SHAPE_NO_DTYPE) {
        bad_line = __LINE__; (void)pld_alloc_window_buffer(PL_SHAPE(1, 8));
    }
    if (h->what == VIEW_OF_HUGE_SHAPE) { /* 2^66 elements: once 0 bytes, and accepted */
        bad_line = __LINE__; (void)pld_window(d, PL_SHAPE(1LL << 33, 1LL << 33), PL_FP32);
    }
    if (h->what == ALLOC_OF_HUGE_SHAPE) {
        bad_line = __LINE__; (void)pld_alloc_window_buffer(PL_SHAPE(1LL << 33, 1LL << 33), PL_FP32, .name = "huge");
    }
    if (h->what == ALLOC_BYTES_NONPOSITIVE) {
        bad_line = __LINE__; (void)pld_alloc_window_buffer(0);
    }
    if (h->what == DISPATCH_BAD_RANK) {
        struct rank_args a = {h->x, pld_window(d, PL_SHAPE(1, 64), PL_FP32), sig, sig, sig, h->what};
        bad_line = __LINE__; pld_dispatch(5, per_device, a);
    }
    // clang-format on
    for (int r = 0; r < pld_world_size(); r++) {
        struct rank_args a = {h->x,
                              pld_window(d, PL_SHAPE(1, 64), PL_FP32),
                              sig,
                              pld_window(rows, PL_SHAPE(2, 64), PL_FP32),
                              pld_window(rows, PL_SHAPE(1, 64), PL_FP32),
                              h->what};
        pld_dispatch(r, per_device, a);
    }
}

/* Runs the misuse on two devices; returns stderr, exit code in *code. */
static double wait_timeout; /* --wait-timeout for the next run_misuse */

static char *run_misuse(enum misuse what, int *code)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.wait_timeout = wait_timeout;
    if (backend)
        cfg.backend = backend;
    struct host_args h = {pl_tensor_new(PL_SHAPE(1, 50000), PL_FP32, "x"), what};
    capture_stderr_begin();
    int rc = pld_run(&cfg, host, &h);
    char *err = capture_stderr_end();
    pl_tensor_free(&h.x);
    *code = pld_exit_code(rc);
    return err;
}

static void expect_message(char *err, const char *op, const char *who, const char *what)
{
    char head[256];
    snprintf(head, sizeof head, "%s:%d: %s: %s: ", __FILE__, bad_line, who, op);
    ck_assert_contains(err, head);
    ck_assert_contains(err, what);
    ck_assert_msg(count_error_lines(err) == 1, "expected one line, got:\n%s", err);
}

static const struct {
    enum misuse what;
    const char *op, *who, *text;
} cases[] = {
    {PEER_OUT_OF_RANGE, "pld_tile_remote_load", "rank 0", "peer 5 out of range [0, 2)"},
    {OFFSETS_OUT_OF_BOUNDS, "pld_tile_remote_store", "rank 0",
     "region at offsets [0, 32] with shape [1, 64] is out of bounds of target 'data' [1, 64] "
     "(dim 1: 32 + 64 > 64)"},
    {SHAPE_OUT_OF_BOUNDS, "pl_load", "rank 0", "(dim 0: 0 + 2 > 1)"},
    {DTYPE_MISMATCH, "pld_tile_remote_store", "rank 0",
     "dtype mismatch: tile is FP32 but target 'sig' is INT32"},
    {UB_OVERFLOW, "pl_load", "rank 0",
     "UB overflow in kernel kernel: a [1, 50000] FP32 tile needs 200000 bytes and the limit is "
     "188416 bytes usable of 196608"},
    {MISSING_CMP, "pld_system_wait", "rank 0", "missing required keyword .cmp"},
    {MISSING_OP, "pld_system_notify", "rank 0", "missing required keyword .op"},
    {MISSING_PEER, "pld_system_notify", "rank 0", "missing required keyword .peer"},
    {MISSING_EXPECTED, "pld_system_wait", "rank 0", "missing required keyword .expected"},
    {WORLD_SIZE_IN_KERNEL, "pld_world_size", "rank 0", "not allowed in a kernel; it is host-only"},
    {RANK_ON_HOST, "pld_rank", "host", "not allowed in the host orchestrator; it is kernel-only"},
    {STORE_DTYPE_MISMATCH, "pl_store", "rank 0",
     "dtype mismatch: tile is FP32 but destination 'sig' is INT32"},
    {NOTIFY_VALUE_RANGE, "pld_system_notify", "rank 0",
     "value 1099511627776 does not fit in INT32"},
    {NOTIFY_PEER_RANGE, "pld_system_notify", "rank 0", "peer -1 out of range [0, 2)"},
    {UNINIT_NOTIFY, "pld_system_notify", "rank 0", "target is not a tensor (uninitialised?)"},
    {UNINIT_COMM_CTX, "pld_get_comm_ctx", "rank 0", "argument is not a tensor (uninitialised?)"},
    {UNINIT_REMOTE_LOAD, "pld_tile_remote_load", "rank 0",
     "target is not a tensor (uninitialised?)"},
    {WAIT_CMP_INVALID, "pld_system_wait", "rank 0",
     ".cmp is 7; expected PLD_WAIT_EQ or PLD_WAIT_GE"},
    {PUT_SHAPE_MISMATCH, "pld_tensor_put", "rank 0",
     "without a region dst and src must have the same shape: dst 'data' [1, 64], src 'rows' "
     "[2, 64]"},
    {GET_WITH_ATOMIC, "pld_tensor_get", "rank 0", "get has no .atomic"},
    {PUT_PIPELINE_NO_CHUNKS, "pld_tensor_put", "rank 0",
     ".pipeline needs both .chunk_rows and .chunk_cols > 0"},
    {TILE_AFTER_KERNEL, "pld_tile_remote_store", "rank 0",
     "source tile belongs to a kernel that has returned"},
    {NESTED_INCORE, "pl_incore", "rank 0",
     "kernel inner_kernel called from inside kernel kernel: kernels do not nest"},
    {CAST_OVERFLOW, "pl_cast", "rank 0", "1000000000000 does not fit in INT32"},
    {ALLREDUCE_BAD_DTYPE, "pld_tensor_allreduce", "rank 0",
     "target 'sig' is INT32; expected FP32 or FP16"},
    {REDUCE_OP_INVALID, "pld_tensor_allreduce", "rank 0",
     ".op is 9; expected PLD_REDUCE_SUM, _MAX, _MIN or _PROD"},
    {BARRIER_BAD_SHAPE, "pld_tensor_barrier", "rank 0",
     "signal 'data' is [1, 64] FP32; expected an INT32 window view of shape [2] or [2, 1]"},
    {ALL_TO_ALL_SHAPES, "pld_tensor_all_to_all", "rank 0",
     "input 'rows' is [2, 64] FP32 and target 'data' is [1, 64] FP32; expected both [2, S]"},
    {BROADCAST_ROOT_RANGE, "pld_tensor_broadcast", "rank 0", "root 7 out of range [0, 2)"},
    {LOAD_OFFSETS_RANK, "pl_load", "rank 0",
     "offsets [0] of source have 1 dims but source 'data' has shape [1, 64] (2 dims)"},
    {DISPATCH_BAD_RANK, "pld_dispatch", "host", "device 5 out of range [0, 2)"},
    {AT_OUT_OF_RANGE, "pl_at", "host", "index 3 out of range for 'x' [1, 50000] (dim 0 is 1)"},
    {BIND_SHAPE_MISMATCH, "pl_bind_shape", "host",
     "tensor 'x' has shape [1, 50000], expected dim 0 to be 2"},
    {ALLOC_SHAPE_NO_DTYPE, "pld_alloc_window_buffer", "host",
     "the shape form needs a dtype: pld_alloc_window_buffer([1, 8], PL_FP32)"},
    {ALLOC_BYTES_NONPOSITIVE, "pld_alloc_window_buffer", "host", "size is 0 bytes, expected > 0"},
    {ADD_SHAPE_MISMATCH, "pl_add", "rank 0", "shape mismatch: [1, 64] vs [2, 64]"},
    {TILE_GET_PAST_END, "pl_tile_get", "rank 0",
     "index 64 out of range [0, 64) of a [1, 64] FP32 tile"},
    {TILE_GET_FAR_AWAY, "pl_tile_get", "rank 0",
     "index 1099511627776 out of range [0, 64) of a [1, 64] FP32 tile"},
    {TILE_GET_NEGATIVE, "pl_tile_get", "rank 0",
     "index -1000000000000 out of range [0, 64) of a [1, 64] FP32 tile"},
    {READ_OUT_OF_BOUNDS, "pl_read", "rank 0",
     "out of bounds of tensor 'sig' [2, 1] (dim 0: 2 + 1 > 2)"},
    {COMM_CTX_OF_HOST_TENSOR, "pld_get_comm_ctx", "rank 0",
     "'x' is a host tensor; a comm context comes from a window view (pld_window)"},
    {A2AV_ROWS_NOT_PER_RANK, "pld_tensor_all_to_all_v", "rank 0",
     "expected both [2 * MAX_RECV, S] of the same dtype"},
    {A2AV_ALIAS, "pld_tensor_all_to_all_v", "rank 0", "input 'rows' aliases target 'rows'"},
    {VALID_SHAPE_WIDER, "pl_load", "rank 0",
     "valid_shape [1, 40]: dim 1 is 40; expected 1..32 (it narrows the shape [1, 32], never "
     "widens it)"},
    {VALID_SHAPE_RANK, "pld_tile_remote_load", "rank 0",
     "valid_shape [32] has 1 dims but the shape [1, 32] has 2"},
    {CLAMP_PAST_THE_END, "pl_load", "rank 0",
     "clamp: offsets [0, 64] are past the end of 'data' [1, 64] in dim 1: nothing is left to read"},
    {LOAD_ARRAY_BYTES_NEGATIVE, "pl_load", "rank 0",
     "array_bytes -1: expected the bytes of the array the tensor lies in, 0 or more (0: the "
     "tensor's own layout)"},
    {VALID_READ_OUT_OF_BOUNDS, "pl_load", "rank 0",
     "region at offsets [0, 48] with shape [1, 24] is out of bounds of source 'data' [1, 64] (dim "
     "1: 48 + 24 > 64)"},
    {VIEW_LARGER_THAN_BUFFER, "pld_window", "host",
     "a [2, 64] FP32 view needs 512 bytes but buffer 'data' has 256"},
    {SIGNAL_NOT_INT32, "pld_system_notify", "rank 0",
     "target 'data' is FP32; signal cells must be INT32"},
    {PUT_PARTIAL_REGION, "pld_tensor_put", "rank 0",
     "give all of .dst_offsets, .src_offsets and .shape, or none of them"},
    {LOAD_HOST_TENSOR_AS_WINDOW, "pld_tile_remote_load", "rank 0",
     "target 'x' is a host tensor; cross-rank calls need a window view (pld_window)"},
    {RING_SIGNAL_SHAPE, "pld_tensor_allreduce", "rank 0",
     "ring mode needs an INT32 signal of shape [2(P-1), P] = [2, 2] (one row per round, one cell "
     "per rank); got 'sig' [2, 1] INT32"},
    {ALLGATHER_ALIAS, "pld_tensor_allgather", "rank 0", "local 'rows' aliases target 'rows'"},
    {BROADCAST_NO_ROOT, "pld_tensor_broadcast", "rank 0", "missing required keyword .root"},
    {LOAD_HUGE_OFFSET, "pl_load", "rank 0",
     "region at offsets [0, 9223372036854775797] with shape [1, 64] is out of bounds of source "
     "'data' [1, 64] (dim 1: 9223372036854775797 + 64 > 64)"},
    {REMOTE_LOAD_HUGE_OFFSET, "pld_tile_remote_load", "rank 0",
     "out of bounds of target 'data' [1, 64] (dim 1: 9223372036854775797 + 64 > 64)"},
    {PUT_HUGE_DST_OFFSET, "pld_tensor_put", "rank 0",
     "out of bounds of dst 'data' [1, 64] (dim 1: 9223372036854775797 + 64 > 64)"},
    {PUT_ASYNC_HUGE_DST_OFFSET, "pld_tensor_put_async", "rank 0",
     "out of bounds of dst 'data' [1, 64] (dim 1: 9223372036854775797 + 64 > 64)"},
    {PUT_ASYNC_HUGE_SRC_OFFSET, "pld_tensor_put_async", "rank 0",
     "out of bounds of src 'data' [1, 64] (dim 1: 9223372036854775797 + 64 > 64)"},
    {PUT_ASYNC_NEGATIVE_SRC_OFFSET, "pld_tensor_put_async", "rank 0",
     "region at offsets [0, -64] with shape [1, 64] is out of bounds of src 'data' [1, 64] (dim "
     "1: offset -64 is negative)"},
    {CLAMP_NEGATIVE_OFFSET, "pl_load", "rank 0",
     "(dim 1: offset -9223372036854775808 is negative)"},
    {VIEW_OF_HUGE_SHAPE, "pld_window", "host",
     "a [8589934592, 8589934592] FP32 view needs more than 2^63 bytes but buffer 'data' has 256"},
    {ALLOC_OF_HUGE_SHAPE, "pld_alloc_window_buffer", "host",
     "shape [8589934592, 8589934592] of FP32 needs more than 2^63 bytes"},
    {TILE_OF_HUGE_SHAPE, "pl_load", "rank 0",
     "UB overflow in kernel kernel: a [8589934592, 8589934592] FP32 tile needs more than 2^63 "
     "bytes"},
    {TILE_PUT_ONE_STAGE_TWICE, "pld_tile_put", "rank 0",
     ".stage2 is the same tile as .stage: double buffering alternates between two tiles; pass a "
     "second tile, or leave .stage2 out"},
    {TILE_GET_ONE_STAGE_TWICE, "pld_tile_get", "rank 0", ".stage2 is the same tile as .stage"},
    {TILE_ROW_MISALIGNED, "pl_load", "rank 0",
     "tile shape [2, 1] INT32 has 2 rows of 4 bytes; rows of a multi-row UB tile must be a "
     "multiple of 32 bytes"},
};

START_TEST(api_misuse_is_one_clear_message)
{
    int code;
    char *err = run_misuse(cases[_i].what, &code);
    expect_message(err, cases[_i].op, cases[_i].who, cases[_i].text);
    free(err);
    exit(code); /* the test case asserts the exit status */
}
END_TEST

START_TEST(deadlock_is_reported_per_rank)
{
    int code;
    char *err = run_misuse(DEADLOCK, &code);
    char line[256];
    ck_assert_contains(err, "pldsim: deadlock at t=");
    ck_assert_contains(err, "2 ranks blocked in pld_system_wait");
    for (int r = 0; r < 2; r++) {
        snprintf(line, sizeof line, "%s:%d: rank %d: waits for sig[0, 0] >= 1; the cell holds 0",
                 __FILE__, bad_line, r);
        ck_assert_contains(err, line);
    }
    ck_assert_int_eq(count_error_lines(err), 3);
    free(err);
    exit(code);
}
END_TEST

START_TEST(a_rank_that_skips_a_collective_is_a_deadlock_naming_it)
{
    int code;
    char *err = run_misuse(SKIP_COLLECTIVE, &code);
    char line[256];
    ck_assert_contains(err, "pldsim: deadlock at t=");
    ck_assert_contains(err, "1 rank blocked in pld_system_wait");
    snprintf(line, sizeof line,
             "%s:%d: rank 0: waits for sig[1, 0] >= 1; the cell holds 0 (inside "
             "pld_tensor_allreduce)",
             __FILE__, bad_line);
    ck_assert_contains(err, line);
    ck_assert_contains(err, "pldsim: 1 other rank has finished or idle");
    free(err);
    exit(code);
}
END_TEST

/* The barrier's epilogue takes its credits back with a notify to itself;
 * that is no release, so the report names the peer that has finished, not
 * rank 0 waiting on itself. */
START_TEST(one_barrier_too_many_names_the_finished_peer)
{
    int code;
    char *err = run_misuse(EXTRA_BARRIER, &code);
    char line[256];
    snprintf(line, sizeof line,
             "%s:%d: rank 0: waits for sig[1, 0] >= 1; the cell holds 0 (inside "
             "pld_tensor_barrier); last notified by rank 1, which has finished or is idle",
             __FILE__, bad_line);
    ck_assert_contains(err, line);
    ck_assert_contains(err, "pldsim: rank 0 waits on rank 1, which has already finished");
    ck_assert_msg(!strstr(err, "rank 0 -> rank 0"), "a cycle of rank 0 on itself:\n%s", err);
    free(err);
    exit(code);
}
END_TEST

/* _i = 1: with the signal window sparse, whose cells keep their last
 * notifier beside their lines rather than in the report's table. */
START_TEST(deadlock_cycle_is_named)
{
    int code;
    if (_i == 1)
        setenv("PLD_SPARSE_WINDOWS", "all", 1);
    char *err = run_misuse(WAIT_CYCLE, &code);
    char line[256];
    snprintf(line, sizeof line,
             "%s:%d: rank 0: waits for sig[1, 0] >= 2; the cell holds 1; last notified by rank 1, "
             "which is blocked too",
             __FILE__, bad_line);
    ck_assert_contains(err, line);
    ck_assert_contains(err, "pldsim: wait-for cycle: rank 0 -> rank 1 -> rank 0 (each waits on "
                            "the next)");
    ck_assert_int_eq(count_lines_with(err, "wait-for cycle"), 1);
    free(err);
    exit(code);
}
END_TEST

START_TEST(deadlock_on_a_finished_rank_is_named)
{
    int code;
    char *err = run_misuse(WAIT_ON_FINISHED, &code);
    ck_assert_contains(err, "pldsim: deadlock at t=");
    ck_assert_contains(err, "rank 1: waits for sig[0, 0] >= 2; the cell holds 1; last notified by "
                            "rank 0, which has finished or is idle");
    ck_assert_contains(err, "pldsim: rank 1 waits on rank 0, which has already finished");
    free(err);
    exit(code);
}
END_TEST

START_TEST(wait_timeout_reports_while_others_run)
{
    int code;
    wait_timeout = 100e-6;
    char *err = run_misuse(WAIT_TIMEOUT, &code);
    char line[256];
    ck_assert_contains(err, "pldsim: wait timeout at t=");
    ck_assert_contains(err, "a wait blocked longer than --wait-timeout 100.000 us; 1 rank blocked");
    snprintf(line, sizeof line, "%s:%d: rank 1: waits for sig[0, 0] >= 1; the cell holds 0",
             __FILE__, bad_line);
    ck_assert_contains(err, line);
    /* the simulator sees the timeout once rank 0's loads are done */
    ck_assert_contains(err, "1 other rank has finished or idle");
    free(err);
    exit(code);
}
END_TEST

/* The threads backend gives the same reports. */
START_TEST(threads_deadlock_is_reported_per_rank)
{
    int code;
    backend = "threads";
    char *err = run_misuse(DEADLOCK, &code);
    char line[256];
    ck_assert_contains(err, "2 ranks blocked in pld_system_wait");
    for (int r = 0; r < 2; r++) {
        snprintf(line, sizeof line, "%s:%d: rank %d: waits for sig[0, 0] >= 1; the cell holds 0",
                 __FILE__, bad_line, r);
        ck_assert_contains(err, line);
    }
    free(err);
    exit(code);
}
END_TEST

START_TEST(threads_wait_timeout_reports_while_others_run)
{
    int code;
    backend = "threads";
    wait_timeout = 0.05;
    char *err = run_misuse(WAIT_TIMEOUT, &code);
    char line[256];
    ck_assert_contains(err, "pldsim: wait timeout at t=");
    ck_assert_contains(err, "longer than --wait-timeout 50000.000 us; 1 rank blocked");
    snprintf(line, sizeof line, "%s:%d: rank 1: waits for sig[0, 0] >= 1; the cell holds 0",
             __FILE__, bad_line);
    ck_assert_contains(err, line);
    /* rank 0 computes on for seconds: "finished or idle" sent the reader
     * to the wrong rank (issue 41) */
    ck_assert_contains(err, "pldsim: 1 other rank is still running (rank 0)");
    ck_assert_msg(!strstr(err, "finished or idle"), "%s", err);
    free(err);
    exit(code);
}
END_TEST

START_TEST(ub_peak_of_live_tiles_is_checked_when_the_kernel_returns)
{
    int code;
    char *err = run_misuse(UB_PEAK, &code);
    char want[512];
    snprintf(want, sizeof want,
             "%s:%d: rank 0: pl_incore: UB overflow in kernel kernel: 4 tiles totalling 196608 "
             "bytes are live at once (from %s:%d), and the limit is 188416 bytes usable of 196608",
             __FILE__, incore_line, __FILE__, bad_line);
    ck_assert_contains(err, want);
    ck_assert_int_eq(count_error_lines(err), 1);
    free(err);
    exit(code);
}
END_TEST

/* ---- the UB peak across builtin collectives ----
 * A builtin folds each piece's tiles into one record, and a piece that
 * peaks no higher than the one before extends that record instead of
 * adding one (ub.c).  These two runs pin down that the kernel's peak is
 * still exact: a tile held across a 2-rank ring allreduce of 8192 FP32
 * (one 16 KiB piece per round; its reduce round holds the received piece
 * and the local one, whose sum takes the local one's UB: 2 x 16384 = 32768
 * bytes) counts against it, and one that died before it does not. */

enum { HELD_FLOATS = 40000 }; /* 160000 bytes: fits beside 4 KiB pieces, not beside 16 KiB */

struct ub_args {
    pl_tensor held_src;          /* [2, HELD_FLOATS]: a row per rank */
    pld_dtensor big, small, sig; /* [1, 8192] and [1, 2048] FP32; [2, 2] INT32 */
    int held_dies_first;         /* the held tile's last use comes before the big allreduce */
};

static _Atomic int ub_big_line, ub_incore_line;

static void ub_kernel(const struct ub_args *a)
{
    pl_tensor mine = pl_at(a->held_src, pld_rank(pld_get_comm_ctx(a->sig)));
    pl_tile held = pl_load(mine, PL_IDX(0), PL_SHAPE(HELD_FLOATS));
    if (a->held_dies_first) {
        pld_tensor_allreduce(a->small, a->sig, .mode = PLD_ALLREDUCE_RING);
        pl_store(held, PL_IDX(0), mine);
        pld_tensor_allreduce(a->big, a->sig, .mode = PLD_ALLREDUCE_RING);
    } else {
        // clang-format off
        ub_big_line = __LINE__; pld_tensor_allreduce(a->big, a->sig, .mode = PLD_ALLREDUCE_RING);
        // clang-format on
        pld_tensor_allreduce(a->small, a->sig, .mode = PLD_ALLREDUCE_RING);
        pl_store(held, PL_IDX(0), mine);
    }
}

static void ub_per_device(const struct ub_args *a)
{
    // clang-format off
    ub_incore_line = __LINE__; pl_incore(ub_kernel, a);
    // clang-format on
}

static void ub_host(const struct ub_args *h)
{
    pld_buffer big = pld_alloc_window_buffer(PL_SHAPE(1, 8192), PL_FP32, .name = "big");
    pld_buffer small = pld_alloc_window_buffer(PL_SHAPE(1, 2048), PL_FP32, .name = "small");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(2, 2), PL_INT32, .name = "sig");
    struct ub_args a = {h->held_src, pld_window(big, PL_SHAPE(1, 8192), PL_FP32),
                        pld_window(small, PL_SHAPE(1, 2048), PL_FP32),
                        pld_window(sig, PL_SHAPE(2, 2), PL_INT32), h->held_dies_first};
    for (int r = 0; r < pld_world_size(); r++)
        pld_dispatch(r, ub_per_device, a);
}

static char *run_ub_case(int held_dies_first, int *code)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    struct ub_args h = {.held_src = pl_tensor_new(PL_SHAPE(2, HELD_FLOATS), PL_FP32, "held_src"),
                        .held_dies_first = held_dies_first};
    capture_stderr_begin();
    int rc = pld_run(&cfg, ub_host, &h);
    char *err = capture_stderr_end();
    pl_tensor_free(&h.held_src);
    *code = pld_exit_code(rc);
    return err;
}

START_TEST(ub_peak_counts_a_tile_held_across_builtins)
{
    int code;
    char *err = run_ub_case(0, &code);
    char want[512];
    /* 160000 + 32768 = 192768 > 188416: the big allreduce's reduce round,
     * though the small one's pieces, which come after, extend its record */
    snprintf(want, sizeof want,
             "%s:%d: rank 0: pl_incore: UB overflow in kernel ub_kernel: 3 tiles totalling 192768 "
             "bytes are live at once (from %s:%d), and the limit is 188416 bytes usable of 196608",
             __FILE__, ub_incore_line, __FILE__, ub_big_line);
    ck_assert_contains(err, want);
    ck_assert_int_eq(count_error_lines(err), 1);
    free(err);
    exit(code);
}
END_TEST

START_TEST(ub_peak_ignores_a_tile_that_died_before_a_larger_builtin)
{
    int code;
    char *err = run_ub_case(1, &code);
    /* at most 160000 + 2 x 4096 = 168192 with the small allreduce, and
     * 32768 with the big one once the held tile is dead */
    ck_assert_msg(code == 0, "exit %d:\n%s", code, err);
    ck_assert_msg(count_error_lines(err) == 0, "unexpected errors:\n%s", err);
    free(err);
}
END_TEST

/* ---- command-line and platform errors, through a real tutorial ---- */

static const char valid_one_device_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\"><host id=\"dev0\" speed=\"1Gf\"/></zone>\n"
    "</platform>\n";

static const char malformed_xml[] = "<?xml version='1.0'?>\n"
                                    "<platform version=\"4.1\">\n"
                                    "<zone id=\"z\" routing=\"Full\"><host id=\"dev0\"\n"
                                    "</platform>\n";

static const char no_route_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\"><host id=\"dev0\" speed=\"1Gf\"/>"
    "<host id=\"dev1\" speed=\"1Gf\"/></zone>\n"
    "</platform>\n";

static const char bad_prop_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\"><host id=\"dev0\" speed=\"1Gf\">"
    "<prop id=\"hbm_bw\" value=\"fast\"/></host><host id=\"dev1\" speed=\"1Gf\"/></zone>\n"
    "</platform>\n";

static void expect_cli(const char *args, int status, const char *text)
{
    struct cmd_result r = run_cmd("%s", args);
    ck_assert_msg(r.status == status, "'%s' exited %d, expected %d\nstderr:\n%s", args, r.status,
                  status, r.err);
    ck_assert_contains(r.err, text);
    ck_assert_msg(count_error_lines(r.err) == 1, "expected one line, got:\n%s", r.err);
    ck_assert_msg(!strstr(r.out, "\nOK") && strncmp(r.out, "OK", 2), "printed OK:\n%s", r.out);
    cmd_result_free(&r);
}

START_TEST(wrong_device_count)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -d 0,1,2", tutorial("03_window_buffer"));
    expect_cli(cmd, 2, "03_window_buffer needs exactly 2 devices (-d 0,1), got 3");
}
END_TEST

START_TEST(unknown_platform)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -p a9000", tutorial("01_hello_rank"));
    expect_cli(cmd, 2, "pldsim: unknown platform 'a9000'; expected a2a3sim, a2a3, a5sim, a5");
}
END_TEST

START_TEST(missing_platform_file)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -p /nonexistent/plat.xml", tutorial("01_hello_rank"));
    expect_cli(cmd, 2, "cannot read platform file /nonexistent/plat.xml: No such file");
}
END_TEST

/* Runs `step` on a platform file holding `text`; expects exit 2 and `msg`. */
static void expect_platform_error(const char *suffix, const char *text, const char *step,
                                  const char *msg)
{
    char cmd[4096], *path = write_temp(suffix, text);
    snprintf(cmd, sizeof cmd, "%s -p %s --no-summary", tutorial(step), path);
    expect_cli(cmd, 2, msg);
    unlink(path);
    free(path);
}

START_TEST(malformed_platform_file)
{
    expect_platform_error(".xml", malformed_xml, "01_hello_rank", "malformed platform file");
}
END_TEST

/* Found by fuzz_platform (CI, stop 59): a route from a host to itself in a
 * Dijkstra zone crashes SimGrid (a segfault in sg_platf_new_route), in a
 * Floyd zone it aborts; a Full zone takes it as a loopback.  pldsim names
 * the line first, and leaves comments and Full zones alone. */
START_TEST(platform_with_a_route_to_itself)
{
    static const char *const routings[] = {"Dijkstra", "DijkstraCache", "Floyd"};
    for (int k = 0; k < 3; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                 "<zone id=\"w\" routing=\"%s\">\n"
                 "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n"
                 "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                 "<!-- <route src=\"dev0\" dst=\"dev0\"> is not checked -->\n"
                 "<route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\"/></route>\n"
                 "<route gw_src=\"x\" src=\"dev1\"\n dst=\"dev1\"><link_ctn id=\"l\"/></route>\n"
                 "</zone>\n</platform>\n",
                 routings[k]);
        expect_platform_error(".xml", xml, "05_remote_load_store",
                              ":8: a route from dev1 to itself, in a zone not routed by Full");
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s -d 0,1 -p %s/tests/fuzz/seeds/fuzz_platform/regression-self-route.xml",
             tutorial("05_remote_load_store"), PLD_SRCDIR);
    expect_cli(cmd, 2, ":44: a route from dev1 to itself");
    /* in a Full zone it is a loopback: the run goes on to what is missing */
    static const char full[] =
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n<zone id=\"w\" routing=\"Full\">\n"
        "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n"
        "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
        "<route src=\"dev1\" dst=\"dev1\"><link_ctn id=\"l\"/></route>\n</zone>\n</platform>\n";
    expect_platform_error(".xml", full, "05_remote_load_store",
                          "has no route from dev0 (rank 0) to dev1 (rank 1)");
}
END_TEST

/* Found by fuzz_platform the same way: a link id declared twice, or a
 * plain link named as a split-duplex one's half, aborts SimGrid. */
START_TEST(platform_with_a_link_declared_twice)
{
    static const struct {
        const char *links, *msg;
    } c[] = {
        {"<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
         "<link id=\"l\" bandwidth=\"2GBps\" latency=\"1us\"/>\n",
         ":6: link 'l' is declared again (line 5 has it)"},
        {"<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
         "<link id=\"l_UP\" bandwidth=\"2GBps\" latency=\"1us\"/>\n",
         ":6: link 'l_UP' is declared again (line 5 has it)"},
        {"<link id=\"l_DOWN\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
         "<link id=\"l\" bandwidth=\"2GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n",
         ":6: link 'l' (with its _UP and _DOWN halves) is declared again (line 5 has it)"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                 "<zone id=\"w\" routing=\"Full\">\n"
                 "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n%s"
                 "<!-- <link id=\"l\"/> is not checked -->\n"
                 "</zone>\n</platform>\n",
                 c[i].links);
        expect_platform_error(".xml", xml, "05_remote_load_store", c[i].msg);
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s -d 0,1 -p %s/tests/fuzz/seeds/fuzz_platform/regression-link-twice.xml",
             tutorial("05_remote_load_store"), PLD_SRCDIR);
    expect_cli(cmd, 2, ":45: link 'port_1' (with its _UP and _DOWN halves) is declared again");
}
END_TEST

/* Found by fuzz_platform the same way: a second route between the same two
 * points (or the reverse of a symmetrical one) aborts SimGrid in Full and
 * Floyd zones and crashes it in Dijkstra ones. */
START_TEST(platform_with_a_route_given_twice)
{
    static const char *const routings[] = {"Full", "Floyd", "Dijkstra", "DijkstraCache"};
    static const struct {
        const char *routes, *msg;
    } c[] = {
        {"<route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\"/></route>\n"
         "<route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\"/></route>\n",
         ":8: a second route from dev0 to dev1 (line 7 has one or its reverse"},
        /* the reverse of a symmetrical route is a route too */
        {"<route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\"/></route>\n"
         "<route src=\"dev1\" dst=\"dev0\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n",
         ":8: a second route from dev1 to dev0 (line 7 has one"},
    };
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            char xml[1024];
            snprintf(xml, sizeof xml,
                     "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                     "<zone id=\"w\" routing=\"%s\">\n"
                     "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n"
                     "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                     "<!-- <route src=\"dev0\" dst=\"dev1\"> is not checked -->\n%s"
                     "</zone>\n</platform>\n",
                     routings[k], c[i].routes);
            expect_platform_error(".xml", xml, "05_remote_load_store", c[i].msg);
        }
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s -d 0,1 -p %s/tests/fuzz/seeds/fuzz_platform/regression-duplicate-route.xml",
             tutorial("05_remote_load_store"), PLD_SRCDIR);
    expect_cli(cmd, 2, ":47: a second route from dev1 to switch (line 46 has one");
    /* one route each way, neither symmetrical, and the same pair in
     * another zone: the run goes on */
    static const char fine[] =
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n<zone id=\"top\" routing=\"Full\">\n"
        "<zone id=\"w\" routing=\"DijkstraCache\">\n"
        "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n"
        "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
        "<route src=\"dev0\" dst=\"dev1\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
        "<route src=\"dev1\" dst=\"dev0\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
        "</zone>\n<zone id=\"v\" routing=\"Full\">\n"
        "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
        "<link id=\"m\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
        "<route src=\"a\" dst=\"b\"><link_ctn id=\"m\"/></route>\n"
        "</zone>\n</zone>\n</platform>\n";
    char *path = write_temp(".xml", fine);
    snprintf(cmd, sizeof cmd, "%s -p %s --no-summary", tutorial("05_remote_load_store"), path);
    struct cmd_result r = run_cmd("%s", cmd);
    ck_assert_msg(r.status == 0, "%s: exit %d\n%s", cmd, r.status, r.err);
    cmd_result_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* Found by fuzz_platform: SimGrid dies (exit 134) on a routing it does not
 * know; pldsim names it first. */
START_TEST(platform_with_an_unknown_routing)
{
    static const char xml[] = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                              "<!-- routing=\"InComment\" is not checked -->\n"
                              "<zone id=\"w\" routing=\"Fwll\">\n"
                              "<host id=\"dev0\" speed=\"1Gf\"/><host id=\"dev1\" speed=\"1Gf\"/>\n"
                              "</zone>\n</platform>\n";
    expect_platform_error(".xml", xml, "01_hello_rank",
                          "routing=\"Fwll\" is not a SimGrid routing; expected Full");
    /* a value across lines is quoted up to the line's end: one line */
    static const char split[] = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                                "<zone id=\"w\" routing=\"F0\n<x\">\n</zone>\n</platform>\n";
    expect_platform_error(".xml", split, "01_hello_rank",
                          "routing=\"F0 is not a SimGrid routing; expected Full");
    /* a NUL byte would hide the rest of the file from that check */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -p %s/tests/fuzz/seeds/fuzz_platform/regression-nul-byte.xml",
             tutorial("01_hello_rank"), PLD_SRCDIR);
    expect_cli(cmd, 2, "it holds a NUL byte at offset");
}
END_TEST

START_TEST(platform_with_a_bad_property)
{
    expect_platform_error(".xml", bad_prop_xml, "01_hello_rank",
                          "host dev0: <prop id=\"hbm_bw\" value=\"fast\"/> is not a valid value");
}
END_TEST

START_TEST(platform_without_a_route)
{
    expect_platform_error(".xml", no_route_xml, "05_remote_load_store",
                          "has no route from dev0 (rank 0) to dev1 (rank 1)");
}
END_TEST

START_TEST(more_ranks_than_the_platform_holds)
{
    expect_platform_error(".xml", valid_one_device_xml, "01_hello_rank",
                          "has no host 'dev1' for rank 1: it holds 1 devices (dev0..dev0)");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -d 0,1,20000", tutorial("07_dynamic_rank_count"));
    expect_cli(cmd, 2, "model a2a3 holds at most 16384 devices (ids 0..16383); device id 20000");
}
END_TEST

/* Platform files SimGrid would take and then abort on, or run wrongly. */
static const char link_xml[] =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
    "<host id=\"%s0\" speed=\"1Gf\"/><host id=\"%s1\" speed=\"1Gf\"/>\n"
    "<link id=\"l\" bandwidth=\"%s\" latency=\"%s\"/>\n"
    "<route src=\"%s0\" dst=\"%s1\"><link_ctn id=\"l\"/></route>\n</zone></platform>\n";

START_TEST(platform_links_and_hosts_are_checked_before_the_run)
{
    static const struct {
        const char *host, *bw, *lat, *msg;
    } c[] = {
        {"dev", "0Bps", "1us", "link l has bandwidth 0 B/s; expected a finite bandwidth > 0"},
        {"dev", "10GBps", "-5us", "link l has latency -5e-06 s; expected a finite latency >= 0"},
        {"x", "10GBps", "1us",
         "has no host 'dev0' for rank 0, nor a dev0: pldsim runs rank r on "
         "host devN"},
    };
    char text[2048];
    snprintf(text, sizeof text, link_xml, c[_i].host, c[_i].host, c[_i].bw, c[_i].lat, c[_i].host,
             c[_i].host);
    expect_platform_error(".xml", text, "05_remote_load_store", c[_i].msg);
}
END_TEST

START_TEST(a_directory_is_not_a_platform)
{
    char dir[4096], cmd[8192];
    const char *tmp = getenv("TMPDIR");
    for (int k = 0; k < 2; k++) {
        snprintf(dir, sizeof dir, "%s/pldtest-dir-%d.%s", tmp && *tmp ? tmp : "/tmp", (int)getpid(),
                 k ? "model" : "xml");
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        snprintf(cmd, sizeof cmd, "%s -p %s", tutorial("01_hello_rank"), dir);
        expect_cli(cmd, 2,
                   k ? "is a directory; expected a .model file"
                     : "is a directory; expected a SimGrid platform XML file");
        rmdir(dir);
    }
}
END_TEST

START_TEST(malformed_model_file)
{
    expect_platform_error(".model", "name = broken\nlink_bw = fast\n", "01_hello_rank",
                          ":2: bad value 'fast' for 'link_bw'");
}
END_TEST

/* A bad --topology spec: one message naming the bad field and the form. */
static const struct {
    const char *spec, *devices, *msg;
} bad_specs[] = {
    {"ring:16,bw=fast", "0,1",
     "--topology 'ring:16,bw=fast': bad value 'fast' for bw; expected a bandwidth such as 56GBps"},
    {"hexagon:3", "0,1", "unknown kind 'hexagon'; expected one of hccs, mesh, star, ring"},
    {"ring:16,speed=9", "0,1", "unknown field 'speed'; fields are bw, lat"},
    {"torus2d:4", "0,1", "topology torus2d takes 2 dimensions, got 1 (e.g. 4x4)"},
    {"ring:4", "0-7", "topology ring holds 4 devices (ids 0..3); device id 7 was asked for"},
    {"ring:8,link=0-1:bw", "0,1",
     "bad value '0-1:bw' for link; expected A-B:bw=BANDWIDTH[:lat=TIME]"},
    {"mesh:8,slow=3", "0,1", "bad value '3' for slow; expected DEVICE:FACTOR"},
    {"ring:8,lat", "0,1", "'lat' is not key=value"},
    /* empty, repeated, and naming devices the platform does not have */
    {"", "0,1", "--topology '': empty; the form is KIND[:DIMS]"},
    {"ring:4,", "0,1", "--topology 'ring:4,': an empty field"},
    {"ring:4,,bw=1GBps", "0,1", "an empty field"},
    {"ring:4,bw=1GBps,bw=2GBps", "0,1", "'bw' is given twice; give each field once"},
    {"ring:4,lat=1us,link_lat=2us", "0,1", "'link_lat' is given twice"},
    {"ring:4,slow=9:2", "0,1", "slow=9:... names device 9, but the platform holds devices 0..3"},
    {"ring:4,link=0-7:bw=1GBps", "0,1", "link=0-7:... names a device past the platform's"},
    /* non-finite numbers, which SimGrid would abort the process on */
    {"ring:4,bw=1e400GBps", "0,1", "bad value '1e400GBps' for bw; expected a bandwidth"},
    {"ring:4,lat=infus", "0,1", "bad value 'infus' for lat"},
    {"ring:4,slow=1:inf", "0,1", "bad value '1:inf' for slow; expected DEVICE:FACTOR"},
    {"ring:4,hbm_bw=1e300TBps", "0,1",
     "bad value '1e300TBps' for hbm_bw; expected a bandwidth such as 1.6TBps"},
    {"ring:4,aiv_cores=0", "0,1", "bad value '0' for aiv_cores; expected a whole number"},
    /* a bandwidth so low that a transfer's time overflows to inf: the run
     * printed time=inf us and exit 0 (issue 41) */
    {"mesh:2,bw=1e-300Bps", "0,1",
     "bad value '1e-300Bps' for bw; expected a bandwidth such as 56GBps or 400Gbps (at least "
     "1Bps)"},
    {"ring:4,pull_bw=1e-300Bps", "0,1",
     "bad value '1e-300Bps' for pull_bw; expected a bandwidth such as 1.6TBps (0, or at least "
     "1Bps)"},
    /* times, rates and factors so large or small that the run's time had
     * 300 digits (issue 41, class 4) */
    {"mesh:2,lat=1e300s", "0,1",
     "bad value '1e300s' for lat; expected a time such as 1us or 500ns (at most 1e6 s)"},
    {"mesh:2,hbm_lat=2e6s", "0,1",
     "bad value '2e6s' for hbm_lat; expected a time such as 500ns (at most 1e6 s)"},
    {"mesh:2,vector_rate=1e-300", "0,1",
     "bad value '1e-300' for vector_rate; expected a number, with an optional k, M, G or T (0, "
     "or from 1 to 1e21)"},
    {"mesh:2,speed_factor=1e308", "0,1",
     "bad value '1e308' for speed_factor; expected a factor from 1e-6 to 1e6, such as 2.5"},
    {"mesh:2,slow=1:1e300", "0,1", "bad value '1:1e300' for slow; expected DEVICE:FACTOR"},
    /* a field that contradicts the kind or its size: the last one won, or
     * the field was dropped without a word (issue 41) */
    {"mesh:4,topology=ring", "0,1",
     "--topology 'mesh:4,topology=ring': topology=ring contradicts the kind mesh the spec starts "
     "with; the kind is the first field, given once"},
    {"mesh:4,topology=mesh", "0,1", "topology=mesh repeats the kind mesh the spec starts with"},
    {"ring:8,dims=4", "0,1",
     "--topology 'ring:8,dims=4': dims=4 contradicts the size 8 given with the kind (ring:8); "
     "the size follows the kind, once"},
    {"torus2d:2x2,dims=2x2", "0,1", "dims=2x2 repeats the size 2x2 given with the kind"},
    {"ring:8,nodes=2", "0,1",
     "--topology 'ring:8,nodes=2': nodes=2 does not apply to kind ring; nodes is a field of "
     "fattree and superpod"},
    {"mesh:8,per_node=4", "0,1",
     "per_node=4 does not apply to kind mesh; per_node is a "
     "field of hccs, fattree and superpod"},
    {"hccs:16,nodes=2", "0,1",
     "nodes=2 does not apply to kind hccs; nodes is a field of fattree and superpod"},
    {"superpod:16,nodes=3", "0,1",
     "--topology 'superpod:16,nodes=3': nodes=3 of per_node=8 devices is 24 devices, but the "
     "size is 16; give the size or the nodes"},
    {"star:4,nic=25GBps", "0,1", "nic=25GBps does not apply to kind star"},
    {"fattree:8,nodes=2,per_node=8", "0,1",
     "--topology 'fattree:8,nodes=2,per_node=8': nodes=2 of per_node=8 devices is 16 devices, "
     "but the size is 8; give the size or the nodes"},
};

START_TEST(bad_topology_specs)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -d %s --topology '%s'", tutorial("07_dynamic_rank_count"),
             bad_specs[_i].devices, bad_specs[_i].spec);
    expect_cli(cmd, 2, bad_specs[_i].msg);
}
END_TEST

/* --no-data keeps no payloads: reading one back is one clear error. */
START_TEST(no_data_refuses_to_read_window_data)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s --no-data --no-summary", tutorial("05_remote_load_store"));
    struct cmd_result r = run_cmd("%s", cmd);
    ck_assert_int_eq(r.status, 3);
    ck_assert_contains(r.err, "05_remote_load_store.c:");
    ck_assert_contains(r.err, "pl_store: the tile holds window data and the destination is a host "
                              "tensor: this run is --no-data, which keeps no window payloads");
    ck_assert_int_eq(count_error_lines(r.err), 1);
    cmd_result_free(&r);
    /* a run that only signals is fine */
    snprintf(cmd, sizeof cmd, "%s --no-data", tutorial("04_barrier"));
    r = run_cmd("%s", cmd);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
}
END_TEST

/* pldsim-perf's own flags: each bad value is one message and exit 2, and
 * none of them hangs (a size of 0 used to spin the doubling sweep). */
START_TEST(pldsim_perf_refuses_bad_values)
{
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"-b 0", "bad size '0' for -b; expected 1 byte to 1P"},
        {"-b 1e30", "bad size '1e30' for -b"},
        {"-b 18446744073709551616", "bad size '18446744073709551616' for -b"},
        {"-e 1e30", "bad size '1e30' for -e"},
        {"--root abc", "bad --root 'abc'; expected a rank number"},
        {"--root 1x", "bad --root '1x'"},
        {"-g 8 --root 9", "--root 9 is outside the ranks 0..7"},
        {"-g 20000", "bad device count '20000' for -g; expected 1..16384"},
        {"-n 0", "bad iteration count '0' for -n; expected a whole number from 1 to 2147483647"},
        /* past INT_MAX: the message said only ">= 1" (issue 41) */
        {"-n 2147483648",
         "bad iteration count '2147483648' for -n; expected a whole number from 1 to 2147483647"},
        {"-d int8", "bad --datatype 'int8'; expected float or half"},
        {"-J out.txt", "-J out.txt: only JSON output is supported"},
        {"--mode", "--mode needs a value"},
    };
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 60 %s/tools/pldsim-perf allreduce %s", PLD_BUILDDIR,
             bad[_i].args);
    expect_cli(cmd, 2, bad[_i].msg);
}
END_TEST

/* Issue 41, class 1: SIGTERM to `pldsim-perf -j 2` killed the parent alone;
 * its children went on simulating, holding the output open.  Ctrl-C (the
 * whole group) exited silently.  Now either stops every child, says so in
 * one line, and ends with the signal; the children's results files are
 * unlinked tmpfiles, so nothing is left behind.  Issue 51, class 1: started
 * with SIGINT ignored (a shell script's background job is), Ctrl-C to the
 * group left the parent and both children running; it had to be killed. */
START_TEST(pldsim_perf_interrupted_stops_its_children)
{
    static const struct {
        int sig, group, ignored;
        const char *said;
    } cases[] = {
        {SIGTERM, 0, 0,
         "pldsim-perf: terminated (SIGTERM): the simulations still running were stopped"},
        {SIGINT, 1, 0,
         "pldsim-perf: interrupted (SIGINT): the simulations still running were stopped"},
        {SIGINT, 0, 0,
         "pldsim-perf: interrupted (SIGINT): the simulations still running were stopped"},
        {SIGINT, 1, 1,
         "pldsim-perf: interrupted (SIGINT): the simulations still running were stopped"},
    };
    int left = -1;
    /* sizes that take minutes: the signal comes once both children run */
    struct cmd_result r =
        run_cmd_signalled(cases[_i].sig, cases[_i].group, 3, "pldsim-perf", &left,
                          "%s%s/tools/pldsim-perf allreduce -g 64 -b 256M -e 1G -f 2 -n 20 -j 2%s",
                          cases[_i].ignored ? "sh -c \"trap '' INT; exec " : "", PLD_BUILDDIR,
                          cases[_i].ignored ? "\"" : "");
    ck_assert_msg(r.status == 128 + cases[_i].sig, "exit %d\n%s", r.status, r.err);
    ck_assert_int_eq(left, 0);
    ck_assert_int_eq(count_lines_with(r.err, ""), 1);
    ck_assert_contains(r.err, cases[_i].said);
    cmd_result_free(&r);
}
END_TEST

START_TEST(pldsim_perf_reports_a_failed_csv_and_no_inf_at_one_rank)
{
    struct cmd_result r =
        run_cmd("%s/tools/pldsim-perf allreduce -b 1K -e 2K --csv /dev/full", PLD_BUILDDIR);
    ck_assert_int_eq(r.status, 1);
    ck_assert_contains(r.err, "pldsim-perf: writing /dev/full failed: No space left on device");
    cmd_result_free(&r);
    r = run_cmd("%s/tools/pldsim-perf allreduce -g 1 -b 1K -e 2K", PLD_BUILDDIR);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(!strstr(r.out, "inf") && !strstr(r.out, "nan"), "inf or nan in:\n%s", r.out);
    ck_assert_msg(!strstr(r.err, "warning"), "a warning at P = 1:\n%s", r.err);
    cmd_result_free(&r);
}
END_TEST

/* Found by the flag fuzzer: a flag that needs a value, given last. */
START_TEST(flag_without_its_value)
{
    static const char *const flags[] = {"--seed",         "--platform",     "-d",
                                        "--topology",     "--trace",        "--races",
                                        "--wait-timeout", "--network-model"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        char cmd[4096], msg[64];
        snprintf(cmd, sizeof cmd, "%s %s", tutorial("07_dynamic_rank_count"), flags[k]);
        snprintf(msg, sizeof msg, "pldsim: %s needs a value (see --help)", flags[k]);
        expect_cli(cmd, 2, msg);
    }
}
END_TEST

/* Malformed values of the flags the fuzzer exercises. */
START_TEST(malformed_flag_values)
{
    static const struct {
        const char *flag, *msg;
    } bad[] = {
        {"--races=sometimes", "--races 'sometimes': expected off, warn or error"},
        {"--wait-timeout=soon", "--wait-timeout 'soon': expected a simulated time such as 100us"},
        {"--wait-timeout=-1us", "--wait-timeout '-1us': expected a simulated time"},
        {"--wait-timeout=inf", "--wait-timeout 'inf': expected a simulated time"},
        {"--wait-timeout=1e400s", "--wait-timeout '1e400s': expected a simulated time"},
        {"--network-model=NS3", "--network-model 'NS3': expected CM02 or LV08"},
        {"--seed=-4", "--seed '-4': expected a non-negative integer"},
        {"--seed=12abc", "--seed '12abc': expected a non-negative integer"},
        {"-d 3-1", "-d/--device '3-1': a range is FIRST-LAST with FIRST <= LAST"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "%s %s", tutorial("07_dynamic_rank_count"), bad[k].flag);
        expect_cli(cmd, 2, bad[k].msg);
    }
}
END_TEST

/* A device list of thousands of ids that is too long or wrong is one
 * short line naming the item at fault and its place (it quoted the whole
 * list: 49 KB for 10 000 ids); the variable is named as itself. */
START_TEST(a_huge_device_list_is_one_short_line)
{
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"-d \"$(seq -s, 0 19999)\"",
         "pldsim: -d/--device '0,1,2,3,4,5,6,7,8,9,10,11,12,13,...' (108889 characters) at "
         "'16384' (item 16385): more than 16384 devices; expected at most 16384"},
        {"-d 0-19999",
         "pldsim: -d/--device '0-19999': more than 16384 devices; expected at most 16384"},
        {"-d \"$(seq -s, 0 3000),x\"",
         "(13896 characters) at 'x' (item 3002): expected ids like 0,1,2,3 or 0-7"},
        {"-d \"$(seq -s, 0 3000),5\"", "at '5' (item 3002): device 5 is listed twice"},
        {"-d \"$(seq -s, 0 3000),\"",
         "at '3000' (item 3001): a ',' ends the list; expected ids like 0,1,2,3 or 0-7"},
        {"-d \"$(seq -s, 0 3000),$(printf '9%.0s' $(seq 300))\"",
         "at '999999999999999999999999...' (item 3002): an id is too large; expected ids 0 to "
         "1048575"},
        {"-d 0-99999999999999999999",
         "-d/--device '0-99999999999999999999': an id is too large; expected ids 0 to 1048575"},
        {"-d 1048576", "-d/--device '1048576': id 1048576 is too large; expected ids 0 to 1048575"},
        {"-d 0,1,5-3", "-d/--device '0,1,5-3' at '5-3' (item 3): a range is FIRST-LAST"},
        {"-d ''", "pldsim: -d/--device: empty device list; expected ids like 0,1,2,3 or 0-7"},
    };
    const char *prog = tutorial("07_dynamic_rank_count");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0] + 1; k++) {
        char cmd[4096];
        if (k < sizeof bad / sizeof bad[0])
            snprintf(cmd, sizeof cmd, "%s %s", prog, bad[k].args);
        else
            snprintf(cmd, sizeof cmd, "PLD_DEVICE=\"$(seq -s, 0 19999)\" %s", prog);
        const char *msg = k < sizeof bad / sizeof bad[0]
                              ? bad[k].msg
                              : "pldsim: PLD_DEVICE '0,1,2,3,4,5,6,7,8,9,10,11,12,13,...' (108889 "
                                "characters) at '16384' (item 16385): more than 16384 devices";
        struct cmd_result r = run_cmd("%s", cmd);
        ck_assert_msg(strlen(r.err) < 200, "%s: %zu characters:\n%.400s", cmd, strlen(r.err),
                      r.err);
        ck_assert_msg(r.out[0] == '\0', "%s: it ran:\n%s", cmd, r.out);
        cmd_result_free(&r);
        expect_cli(cmd, 2, msg);
    }
}
END_TEST

/* --summary's values and --summary-json's file: one message naming the
 * flag (or the variable) and what it accepts, and a non-zero exit. */
START_TEST(summary_json_bad_values)
{
    char cmd[4096];
    const char *prog = tutorial("07_dynamic_rank_count");
    snprintf(cmd, sizeof cmd, "%s --summary=xml", prog);
    expect_cli(cmd, 2, "--summary='xml': expected text or json (or 1 or 0)");
    snprintf(cmd, sizeof cmd, "PLD_SUMMARY=xml %s", prog);
    expect_cli(cmd, 2, "PLD_SUMMARY='xml': expected text or json (or 1 or 0)");
    snprintf(cmd, sizeof cmd, "%s --summary-json /dev/full", prog);
    expect_cli(cmd, 3, "--summary-json: cannot write /dev/full");
    /* a name that can never be written is refused before the run, saying
     * why (it ran, then said "cannot write FILE", exit 3; issue 41) */
    static const struct {
        const char *args, *msg;
    } names[] = {
        {"--summary-json /nonexistent-dir/s.json",
         "pldsim: --summary-json '/nonexistent-dir/s.json': directory /nonexistent-dir does not "
         "exist; expected a file to write the JSON summary to (or - for stdout)"},
        {"--summary-json ''", "pldsim: --summary-json '': an empty name; expected a file"},
        {"--summary-json=", "pldsim: --summary-json '': an empty name; expected a file"},
        {"--summary-json /tmp",
         "pldsim: --summary-json '/tmp': it is a directory; expected a file"},
        {"--summary-json /dev/null/s.json",
         "pldsim: --summary-json '/dev/null/s.json': /dev/null is not a directory"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        snprintf(cmd, sizeof cmd, "%s %s", prog, names[k].args);
        struct cmd_result r = run_cmd("%s", cmd);
        ck_assert_msg(r.out[0] == '\0', "%s: the run went ahead:\n%s", cmd, r.out);
        cmd_result_free(&r);
        expect_cli(cmd, 2, names[k].msg);
    }
    snprintf(cmd, sizeof cmd, "PLD_SUMMARY_JSON=/tmp %s", prog);
    expect_cli(cmd, 2, "pldsim: PLD_SUMMARY_JSON '/tmp': it is a directory");
}
END_TEST

/* The options' table (src/options.c): a switch given a value, a variable
 * with a bad value named as the variable, a flag beating its variable, and
 * the program's own flags left in place around ours. */
START_TEST(options_from_flags_and_variables)
{
    static const struct {
        const char *cmd, *msg;
    } bad[] = {
        {"%s --no-data=1", "pldsim: --no-data takes no value (see --help)"},
        {"PLD_SEED=x %s", "pldsim: PLD_SEED 'x': expected a non-negative integer"},
        {"PLD_RACES=sometimes %s", "pldsim: PLD_RACES 'sometimes': expected off, warn or error"},
        {"PLD_NO_DATA=maybe %s", "pldsim: PLD_NO_DATA='maybe': expected 1 or 0"},
        {"PLD_DEVICE=3-1 %s", "pldsim: PLD_DEVICE '3-1': a range is FIRST-LAST with FIRST <= LAST"},
        /* the variables without a flag: refused alike, not warned about
         * and run with another value (issue 41) */
        {"PLD_SPARSE_WINDOWS=bogus %s",
         "pldsim: PLD_SPARSE_WINDOWS 'bogus': expected auto, all or off"},
        {"PLD_PROGRESS=soon %s",
         "pldsim: PLD_PROGRESS 'soon': expected seconds between progress lines (0: none)"},
        {"PLD_PROGRESS=-1 %s", "pldsim: PLD_PROGRESS '-1': expected seconds"},
        {"PLD_PROGRESS=nan %s", "pldsim: PLD_PROGRESS 'nan': expected seconds"},
    };
    char cmd[4096];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(cmd, sizeof cmd, bad[k].cmd, tutorial("07_dynamic_rank_count"));
        expect_cli(cmd, 2, bad[k].msg);
    }
    /* PLD_DEVICE picks four ranks, -d overrides it; --mode around ours */
    static const struct {
        const char *cmd, *want;
    } good[] = {
        {"PLD_DEVICE=0-3 %s --mode=put --seed 7 --mode get", "P=4 "},
        {"PLD_DEVICE=0-3 %s -d 0-5", "P=6 "},
    };
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        snprintf(cmd, sizeof cmd, good[k].cmd, tutorial("07_dynamic_rank_count"));
        struct cmd_result r = run_cmd("%s", cmd);
        ck_assert_msg(r.status == 0, "%s: %s", cmd, r.err);
        ck_assert_contains(r.out, good[k].want);
        cmd_result_free(&r);
    }
    snprintf(cmd, sizeof cmd, "PLD_NO_SUMMARY=1 %s", tutorial("07_dynamic_rank_count"));
    struct cmd_result r = run_cmd("%s", cmd);
    ck_assert_msg(r.status == 0 && !strstr(r.out, "[pldsim]"), "%s: %s%s", cmd, r.out, r.err);
    cmd_result_free(&r);
}
END_TEST

START_TEST(unknown_backend)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "PLD_BACKEND=quantum %s", tutorial("01_hello_rank"));
    expect_cli(cmd, 2, "unknown backend 'quantum'; this build has: sim");
}
END_TEST

/* Every program says what it is and which pldsim it comes from, in one
 * form, and exits 0 (help2man and packagers read it). */
static const char *const versioned[] = {
    "tutorials/05_remote_load_store", "tools/pldsim-perf", "tools/pldsim-plot",
    "tools/pldsim-timeline",          "tools/pldsim-py",   "bench/pldsim-scale",
    "tools/pldsim-bench-backends",
};

START_TEST(every_program_prints_its_version)
{
    const char *path = versioned[_i], *name = strrchr(path, '/') + 1;
    const char *py = getenv("PLDSIM_HAVE_PYTHON"), *san = getenv("PLDSIM_SAN_FLAGS");
    if (strcmp(name, "pldsim-py") == 0 && (!py || strcmp(py, "yes") != 0 || (san && *san)))
        return; /* no front end, or one a sanitizer build cannot load (check_python.sh says so) */
    struct cmd_result r = run_cmd("%s/%s --version", PLD_BUILDDIR, path);
    char want[256];
    snprintf(want, sizeof want, "%s (pldsim) %s\n", name, pld_version());
    ck_assert_msg(r.status == 0, "%s --version exited %d:\n%s", path, r.status, r.err);
    ck_assert_msg(strcmp(r.out, want) == 0, "%s --version printed \"%s\", expected \"%s\"", path,
                  r.out, want);
    cmd_result_free(&r);
}
END_TEST

/* Every program takes --help and refuses a bad command line alike: --help
 * prints usage on stdout and exits 0; an unknown flag, or a flag without
 * its value, is one line on stderr, "PROG: what is wrong (see --help)",
 * with nothing on stdout, and exit 2. */
static const struct {
    const char *path, *args, *valued; /* args: what the program needs first */
    const char *by;                   /* who refuses the missing value: the program, or libpld */
    const char *bad;                  /* the flag with a bad value */
} refusing[] = {
    {"tutorials/05_remote_load_store", "", "--mode", NULL, "--mode sideways"},
    {"tutorials/05_remote_load_store", "", "--platform", "pldsim", "--compile-only=1"},
    {"tools/pldsim-perf", "all_reduce_perf ", "-b", NULL, "-b 1x"},
    {"tools/pldsim-bench-backends", "", "-b", NULL, "-b 1x"},
    {"bench/pldsim-scale", "ring ", "--bytes", NULL, "--bytes 1e30"},
    {"tools/pldsim-py", "", "--platform", NULL, "--races sometimes prog.py"},
    {"tools/pldsim-timeline", "", "--from", NULL, "--width 1x in.txt out.svg"},
    {"tools/pldsim-plot", "", "-o", NULL, "-y speed -o x.svg a.csv"},
};

START_TEST(every_program_refuses_a_bad_command_line_alike)
{
    const char *path = refusing[_i].path, *name = strrchr(path, '/') + 1;
    const char *py = getenv("PLDSIM_HAVE_PYTHON"), *san = getenv("PLDSIM_SAN_FLAGS");
    if (strcmp(name, "pldsim-py") == 0 && (!py || strcmp(py, "yes") != 0 || (san && *san)))
        return; /* as every_program_prints_its_version */
    struct cmd_result r = run_cmd("%s/%s --help", PLD_BUILDDIR, path);
    ck_assert_msg(r.status == 0 && strstr(r.out, "usage") && !*r.err,
                  "%s --help: exit %d, stdout \"%.80s\", stderr \"%s\"", path, r.status, r.out,
                  r.err);
    cmd_result_free(&r);
    char want[256];
    for (int k = 0; k < 3; k++) {
        if (k == 2) { /* a bad value: named, on one line */
            r = run_cmd("%s/%s %s%s", PLD_BUILDDIR, path, refusing[_i].args, refusing[_i].bad);
            snprintf(want, sizeof want, "%s: ", name);
            char flag[64];
            snprintf(flag, sizeof flag, "%.*s", (int)strcspn(refusing[_i].bad, " ="),
                     refusing[_i].bad);
            ck_assert_msg(strstr(r.err, flag) != NULL, "%s %s: the message does not name %s:\n%s",
                          path, refusing[_i].bad, flag, r.err);
            if (strcmp(name, "pldsim-py") == 0)
                snprintf(want, sizeof want, "pldsim: "); /* libpld checks the value */
        } else if (k == 0) {
            r = run_cmd("%s/%s %s--bogus", PLD_BUILDDIR, path, refusing[_i].args);
            snprintf(want, sizeof want, "%s: unknown option '--bogus' (see --help", name);
        } else {
            r = run_cmd("%s/%s %s%s", PLD_BUILDDIR, path, refusing[_i].args, refusing[_i].valued);
            snprintf(want, sizeof want, "%s: %s needs a value (see --help)\n",
                     refusing[_i].by ? refusing[_i].by : name, refusing[_i].valued);
        }
        ck_assert_msg(r.status == 2, "%s (case %d) exited %d:\n%s", path, k, r.status, r.err);
        ck_assert_msg(!*r.out, "%s (case %d) printed on stdout:\n%s", path, k, r.out);
        ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0 &&
                          strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "%s (case %d) printed \"%s\", expected one line starting \"%s\"", path, k,
                      r.err, want);
        cmd_result_free(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("errors");
    TCase *api = tcase_create("api");
    tcase_set_timeout(api, 30);
    tcase_add_loop_exit_test(api, api_misuse_is_one_clear_message, 3, 0,
                             (int)(sizeof cases / sizeof cases[0]));
    tcase_add_exit_test(api, deadlock_is_reported_per_rank, 4);
    tcase_add_test(api, options_from_flags_and_variables);
    tcase_add_exit_test(api, a_rank_that_skips_a_collective_is_a_deadlock_naming_it, 4);
    tcase_add_exit_test(api, one_barrier_too_many_names_the_finished_peer, 4);
    tcase_add_loop_exit_test(api, deadlock_cycle_is_named, 4, 0, 2);
    tcase_add_exit_test(api, deadlock_on_a_finished_rank_is_named, 4);
    tcase_add_exit_test(api, wait_timeout_reports_while_others_run, 4);
    tcase_add_exit_test(api, threads_deadlock_is_reported_per_rank, 4);
    tcase_add_exit_test(api, threads_wait_timeout_reports_while_others_run, 4);
    tcase_add_exit_test(api, ub_peak_of_live_tiles_is_checked_when_the_kernel_returns, 3);
    tcase_add_exit_test(api, ub_peak_counts_a_tile_held_across_builtins, 3);
    tcase_add_test(api, ub_peak_ignores_a_tile_that_died_before_a_larger_builtin);
    suite_add_tcase(s, api);

    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 30);
    tcase_add_test(cli, wrong_device_count);
    tcase_add_loop_test(cli, every_program_refuses_a_bad_command_line_alike, 0,
                        (int)(sizeof refusing / sizeof refusing[0]));
    tcase_add_test(cli, unknown_platform);
    tcase_add_test(cli, missing_platform_file);
    tcase_add_test(cli, malformed_platform_file);
    tcase_add_test(cli, platform_with_an_unknown_routing);
    tcase_add_test(cli, platform_with_a_route_to_itself);
    tcase_add_test(cli, platform_with_a_route_given_twice);
    tcase_add_test(cli, platform_with_a_link_declared_twice);
    tcase_add_test(cli, platform_with_a_bad_property);
    tcase_add_loop_test(cli, platform_links_and_hosts_are_checked_before_the_run, 0, 3);
    tcase_add_test(cli, a_directory_is_not_a_platform);
    tcase_add_test(cli, platform_without_a_route);
    tcase_add_test(cli, more_ranks_than_the_platform_holds);
    tcase_add_test(cli, malformed_model_file);
    tcase_add_test(cli, unknown_backend);
    tcase_add_test(cli, flag_without_its_value);
    tcase_add_test(cli, malformed_flag_values);
    tcase_add_test(cli, summary_json_bad_values);
    tcase_add_test(cli, a_huge_device_list_is_one_short_line);
    tcase_add_test(cli, no_data_refuses_to_read_window_data);
    tcase_add_loop_test(cli, bad_topology_specs, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
    tcase_add_loop_test(cli, pldsim_perf_refuses_bad_values, 0, 12);
    tcase_add_test(cli, pldsim_perf_reports_a_failed_csv_and_no_inf_at_one_rank);
    tcase_add_loop_test(cli, pldsim_perf_interrupted_stops_its_children, 0, 4);
    tcase_add_loop_test(cli, every_program_prints_its_version, 0,
                        (int)(sizeof versioned / sizeof versioned[0]));
    suite_add_tcase(s, cli);
    return run_suite(s);
}
