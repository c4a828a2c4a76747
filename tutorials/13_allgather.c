/* Step 13: allgather.  Afterwards every rank holds every rank's vector:
 * y[r] = concat_k x[k], shape [1, P*64].
 *
 * --mode hand (default): store our x into row `me` of our window [P, 64], a
 * barrier, then pull row p from rank p for every p (ourselves included).
 * --mode builtin: pld_tensor_allgather(x, data, signal) pushes our x into row
 * `me` of every rank's window, then a barrier; we read the rows.
 * Inputs: x[r] = arange(100r, 100r + 64).  Default P = 2. */
#include "common.h"

#include <string.h>

enum { SIZE = 64 };

static void barrier(pld_dtensor signal, int me, int nr)
{
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld_system_notify(signal, .peer = p, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld_system_wait(signal, .offsets = PL_IDX(s, 0), .expected = 1, .cmp = PLD_WAIT_GE);
}

static void hand(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(me, 0), data);
    barrier(signal, me, nr);
    for (int p = 0; p < nr; p++)
        pl_store(pld_tile_remote_load(data, .peer = p, .offsets = PL_IDX(p, 0),
                                      .shape = PL_SHAPE(1, SIZE)),
                 PL_IDX(0, p * SIZE), y);
}

static void builtin(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int nr = pld_nranks(ctx);
    data = pld_tensor_allgather(x, data, signal);
    for (int p = 0; p < nr; p++)
        pl_store(pl_load(data, PL_IDX(p, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, p * SIZE), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
    int builtin;
};

static void per_device(const struct rank_args *a)
{
    if (a->builtin)
        pl_incore(builtin, a->x, a->y, a->data, a->signal);
    else
        pl_incore(hand, a->x, a->y, a->data, a->signal);
}

struct host_args {
    pl_tensor x, y;
    int builtin;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(nr, SIZE), PL_FP32, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(data, PL_SHAPE(nr, SIZE), PL_FP32),
                              pld_window(sig, PL_SHAPE(nr, 1), PL_INT32), h->builtin};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"hand", "builtin", NULL};
    static const struct tut_spec spec = {
        .name = "13_allgather",
        .summary = "Step 13: gather every rank's vector everywhere, by hand or with "
                   "pld_tensor_allgather.",
        .modes = modes,
        .default_mode = "hand",
        .min_p = 2,
        .default_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, t.P * SIZE), PL_FP32, "y"),
                          strcmp(t.mode, "builtin") == 0};
    for (int r = 0; r < t.P; r++)
        pl_fill_arange(pl_at(h.x, r), 100.0 * r, 1);
    int rc = pld_run(&t.cfg, host, &h);

    pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, 1, t.P * SIZE), PL_FP32, "golden");
    for (int r = 0; r < t.P; r++)
        for (int k = 0; k < t.P; k++)
            for (int j = 0; j < SIZE; j++)
                pl_tensor_set(want, ((int64_t)r * t.P + k) * SIZE + j, 100.0 * k + j);
    char why[256];
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
