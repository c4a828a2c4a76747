/* Step 04: a barrier from notify and wait.
 *
 * Hand mode (default): each rank adds 1 (AtomicAdd) to cell [me, 0] of every
 * peer's signal, then waits until each of its own cells [src, 0] holds >= 1.
 * Once every wait returns, every rank has arrived.  The kernel then copies
 * its signal cells into y, so the golden can see the tally: y[r][i] = 1 for
 * every peer i and 0 for i == r (nobody notifies itself).
 *
 * --use-builtin: the same idea as one call, pld_tensor_barrier, used to make
 * a remote read safe: store x into the window, barrier, then load the right
 * neighbour's copy.  Golden: y[r] = x[(r + 1) % P].  Needs exactly 2 devices. */
#include "common.h"

#include <string.h>

enum { N_RANKS = 2, SIZE = 64 };

static void hand_barrier(pl_tensor y, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(signal);
    int me = pld_rank(ctx);
    for (int p = 0; p < N_RANKS; p++)
        if (p != me)
            pld_system_notify(signal, .peer = p, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < N_RANKS; s++)
        if (s != me)
            pld_system_wait(signal, .offsets = PL_IDX(s, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    /* The cells now hold 1 and nothing resets them: a second barrier on the
     * same cells with Ge 1 would pass at once, before any peer arrives.  Reuse
     * needs a higher threshold (Ge 2) or a reset, which is what the builtin's
     * self-clearing epilogue does.
     *
     * A [2, 1] INT32 tile would have two 4-byte rows, and the rows of a
     * multi-row UB tile must be 32-byte multiples, so the cells are copied
     * one element at a time. */
    for (int i = 0; i < N_RANKS; i++)
        pl_write(y, PL_IDX(i, 0), pl_read(signal, PL_IDX(i, 0)));
}

static void builtin_barrier(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    /* Without this barrier the load below could read the neighbour's window
     * before the neighbour has stored into it. */
    pld_tensor_barrier(signal);
    pl_tile t = pld_tile_remote_load(data, .peer = (me + 1) % nr, .offsets = PL_IDX(0, 0),
                                     .shape = PL_SHAPE(1, SIZE));
    pl_store(t, PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
    int builtin;
};

static void per_device(const struct rank_args *a)
{
    if (a->builtin)
        pl_incore(builtin_barrier, a->x, a->y, a->data, a->signal);
    else
        pl_incore(hand_barrier, a->y, a->signal);
}

struct host_args {
    pl_tensor x, y;
    int builtin;
};

static void host(const struct host_args *h)
{
    /* data first, then the signal, as upstream allocates them: the 256-byte
     * data slot keeps the signal off its cache line */
    pld_buffer data_buf = {0};
    if (h->builtin)
        data_buf = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data");
    pld_buffer sig_buf = pld_alloc_window_buffer(PL_SHAPE(N_RANKS, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < pld_world_size(); r++) {
        struct rank_args a = {
            .y = pl_at(h->y, r),
            .signal = pld_window(sig_buf, PL_SHAPE(N_RANKS, 1), PL_INT32),
            .builtin = h->builtin,
        };
        if (h->builtin) {
            a.x = pl_at(h->x, r);
            a.data = pld_window(data_buf, PL_SHAPE(1, SIZE), PL_FP32);
        }
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "04_barrier",
        .summary = "Step 04: a barrier from notify/wait (hand), or pld_tensor_barrier "
                   "(--use-builtin) guarding a remote read.",
        .use_builtin_flag = 1,
        .exact_p = 2,
    };
    struct tut t;
    char why[256] = "";
    int ok, rc;
    tut_init(&t, &spec, argc, argv);

    struct host_args h = {.builtin = t.use_builtin};
    if (!t.use_builtin) {
        h.y = pl_tensor_new(PL_SHAPE(t.P, N_RANKS, 1), PL_INT32, "y");
        rc = pld_run(&t.cfg, host, &h);
        pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, N_RANKS, 1), PL_INT32, "golden");
        for (int r = 0; r < t.P; r++)
            for (int i = 0; i < N_RANKS; i++)
                pl_tensor_set(want, r * N_RANKS + i, i == r ? 0 : 1);
        ok = pl_equal(h.y, want, why, sizeof why);
        pl_tensor_free(&want);
    } else {
        h.x = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x");
        h.y = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "y");
        pl_fill_randn(h.x, t.cfg.seed);
        rc = pld_run(&t.cfg, host, &h);
        pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "golden");
        for (int r = 0; r < t.P; r++)
            for (int j = 0; j < SIZE; j++)
                pl_tensor_set(want, r * SIZE + j, pl_tensor_get(h.x, ((r + 1) % t.P) * SIZE + j));
        ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
        pl_tensor_free(&want);
        pl_tensor_free(&h.x);
    }
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
