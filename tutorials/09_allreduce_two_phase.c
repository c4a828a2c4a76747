/* Step 09: allreduce in two phases.  Split the vector into P chunks.
 * Reduce-scatter: rank me sums chunk me over all ranks into `result`.
 * Allgather: every rank pulls chunk c of `result` from rank c.  Each rank now
 * moves 2 (P-1)/P of the vector instead of (P-1) times it (step 08).
 * Two barriers, on rows 0 and 1 of signal [2, P]: before the reduce-scatter
 * (every x is staged) and before the allgather (every chunk is summed).
 * P must divide SIZE = 64.  Golden: y[r] = sum_k x[k].  Default P = 4. */
#include "allreduce_hand.h"

static void barrier_row(pld_dtensor signal, int row, int me, int nr)
{
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld_system_notify(signal, .peer = p, .offsets = PL_IDX(row, me), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld_system_wait(signal, .offsets = PL_IDX(row, s), .expected = 1, .cmp = PLD_WAIT_GE);
}

static void two_phase(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor result,
                      pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    int64_t chunk = AR_SIZE / nr;
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, AR_SIZE)), PL_IDX(0, 0), data);
    barrier_row(signal, 0, me, nr); /* A: every rank's data is staged */
    pl_tile acc = pl_load(data, PL_IDX(0, me * chunk), PL_SHAPE(1, chunk));
    for (int p = 0; p < nr; p++)
        if (p != me)
            acc =
                pl_add(acc, pld_tile_remote_load(data, .peer = p, .offsets = PL_IDX(0, me * chunk),
                                                 .shape = PL_SHAPE(1, chunk)));
    pl_store(acc, PL_IDX(0, me * chunk), result);
    barrier_row(signal, 1, me, nr); /* B: every chunk is summed */
    for (int c = 0; c < nr; c++)    /* our own chunk too: a remote_load to self is a local copy */
        pl_store(pld_tile_remote_load(result, .peer = c, .offsets = PL_IDX(0, c * chunk),
                                      .shape = PL_SHAPE(1, chunk)),
                 PL_IDX(0, c * chunk), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, result, signal;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(two_phase, a->x, a->y, a->data, a->result, a->signal);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "data");
    pld_buffer result = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "result");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(2, nr), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(data, PL_SHAPE(1, AR_SIZE), PL_FP32),
                              pld_window(result, PL_SHAPE(1, AR_SIZE), PL_FP32),
                              pld_window(sig, PL_SHAPE(2, nr), PL_INT32)};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "09_allreduce_two_phase",
        .summary = "Step 09: allreduce as reduce-scatter then allgather (two barriers).",
        .min_p = 2,
        .default_p = 4,
        .p_divides = AR_SIZE,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, AR_SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, AR_SIZE), PL_FP32, "y")};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);
    char why[256];
    int ok = ar_check(h.x, h.y, t.P, why, sizeof why);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
