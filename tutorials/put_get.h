/* put_get.h: the kernels of steps 06 and 07 (07 is 06 with the rank count
 * bound at run time), shared so that both steps run the very same code. */
#ifndef PLD_TUTORIAL_PUT_GET_H
#define PLD_TUTORIAL_PUT_GET_H

#include "common.h"

enum { PG_SIZE = 64 };

/* put: stage x in our src window, push it into the right neighbour's dst,
 * then tell that neighbour it has arrived.  Our own dst is filled by our left
 * neighbour; we may read it once our wait sees that neighbour's notify.
 * Golden: y[r] = x[(r - 1) % P]. */
static inline void pg_put_kernel(pl_tensor x, pl_tensor y, pld_dtensor src, pld_dtensor dst,
                                 pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(src);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    int right = (me + 1) % nr;
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, PG_SIZE)), PL_IDX(0, 0), src);
    pld_tensor_put(dst, .peer = right, .src = src, .atomic = PL_ATOMIC_NONE);
    /* The put has completed; the notify releases it to the neighbour. */
    pld_system_notify(signal, .peer = right, .offsets = PL_IDX(0, 0), .value = 1,
                      .op = PLD_NOTIFY_ATOMIC_ADD);
    pld_system_wait(signal, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    pl_store(pl_load(dst, PL_IDX(0, 0), PL_SHAPE(1, PG_SIZE)), PL_IDX(0, 0), y);
}

/* get: stage x in our src window and tell the left neighbour it is ready;
 * wait until the right neighbour says the same, then pull its src into our
 * dst.  Golden: y[r] = x[(r + 1) % P]. */
static inline void pg_get_kernel(pl_tensor x, pl_tensor y, pld_dtensor src, pld_dtensor dst,
                                 pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(src);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    int left = (me + nr - 1) % nr, right = (me + 1) % nr;
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, PG_SIZE)), PL_IDX(0, 0), src);
    pld_system_notify(signal, .peer = left, .offsets = PL_IDX(0, 0), .value = 1,
                      .op = PLD_NOTIFY_ATOMIC_ADD);
    /* Only after this wait is the right neighbour's src complete. */
    pld_system_wait(signal, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    pld_tensor_get(dst, .peer = right, .src = src);
    pl_store(pl_load(dst, PL_IDX(0, 0), PL_SHAPE(1, PG_SIZE)), PL_IDX(0, 0), y);
}

struct pg_rank_args {
    pl_tensor x, y;
    pld_dtensor src, dst, signal;
    int get;
};

static inline void pg_per_device(const struct pg_rank_args *a)
{
    if (a->get)
        pl_incore(pg_get_kernel, a->x, a->y, a->src, a->dst, a->signal);
    else
        pl_incore(pg_put_kernel, a->x, a->y, a->src, a->dst, a->signal);
}

/* The host side shared by 06 and 07: one src, one dst and one signal cell
 * per rank, whatever the rank count, then one dispatch per rank. */
static inline void pg_dispatch_all(pl_tensor x, pl_tensor y, int get)
{
    pld_buffer src_buf = pld_alloc_window_buffer(PL_SHAPE(1, PG_SIZE), PL_FP32, .name = "src");
    pld_buffer dst_buf = pld_alloc_window_buffer(PL_SHAPE(1, PG_SIZE), PL_FP32, .name = "dst");
    pld_buffer sig_buf = pld_alloc_window_buffer(PL_SHAPE(1, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < pld_world_size(); r++) {
        struct pg_rank_args a = {pl_at(x, r),
                                 pl_at(y, r),
                                 pld_window(src_buf, PL_SHAPE(1, PG_SIZE), PL_FP32),
                                 pld_window(dst_buf, PL_SHAPE(1, PG_SIZE), PL_FP32),
                                 pld_window(sig_buf, PL_SHAPE(1, 1), PL_INT32),
                                 get};
        pld_dispatch(r, pg_per_device, a);
    }
}

/* Golden for both modes. */
static inline int pg_check(pl_tensor x, pl_tensor y, int P, int get, char *why, size_t len)
{
    pl_tensor want = pl_tensor_new(PL_SHAPE(P, 1, PG_SIZE), PL_FP32, "golden");
    for (int r = 0; r < P; r++) {
        int src = get ? (r + 1) % P : (r - 1 + P) % P;
        for (int j = 0; j < PG_SIZE; j++)
            pl_tensor_set(want, r * PG_SIZE + j, pl_tensor_get(x, src * PG_SIZE + j));
    }
    int ok = pl_allclose(y, want, 1e-5, 1e-5, why, len);
    pl_tensor_free(&want);
    return ok;
}

#endif
