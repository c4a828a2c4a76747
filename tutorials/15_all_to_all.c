/* Step 15: all-to-all.  Row d of rank r's x goes to rank d, which keeps it
 * in row r: with x[r, d, j] = 1000r + 100d + j, y[r, s, j] = 1000s + 100r + j.
 *
 * --mode hand (default): for each destination d (ourselves included: a put
 * to self is legal) put x row d into row `me` of d's window, then a barrier
 * whose notifies use NotifyOp Set (writing 1 is enough: each cell has one
 * writer and is never reused here), then read the rows.
 * --mode builtin: pld_tensor_all_to_all(x, data, signal) does the same, with
 * the self-clearing credit barrier.  Default P = 2. */
#include "common.h"

#include <string.h>

enum { SIZE = 64 };

static void hand(pl_tensor x, pld_dtensor data, pld_dtensor signal, int me, int nr)
{
    for (int d = 0; d < nr; d++)
        pld_tensor_put(data, .peer = d, .src = x, .dst_offsets = PL_IDX(me, 0),
                       .src_offsets = PL_IDX(d, 0), .shape = PL_SHAPE(1, SIZE));
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld_system_notify(signal, .peer = p, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_SET);
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld_system_wait(signal, .offsets = PL_IDX(s, 0), .expected = 1, .cmp = PLD_WAIT_GE);
}

static void exchange(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal,
                     int use_builtin)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    if (use_builtin)
        data = pld_tensor_all_to_all(x, data, signal);
    else
        hand(x, data, signal, me, nr);
    for (int s = 0; s < nr; s++)
        pl_store(pl_load(data, PL_IDX(s, 0), PL_SHAPE(1, SIZE)), PL_IDX(s, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
    int builtin;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(exchange, a->x, a->y, a->data, a->signal, a->builtin);
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
        .name = "15_all_to_all",
        .summary = "Step 15: every rank sends row d to rank d, by hand or with "
                   "pld_tensor_all_to_all.",
        .modes = modes,
        .default_mode = "hand",
        .min_p = 2,
        .default_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, t.P, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, t.P, SIZE), PL_FP32, "y"),
                          strcmp(t.mode, "builtin") == 0};
    pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, t.P, SIZE), PL_FP32, "golden");
    for (int r = 0; r < t.P; r++)
        for (int d = 0; d < t.P; d++)
            for (int j = 0; j < SIZE; j++) {
                int64_t k = ((int64_t)r * t.P + d) * SIZE + j;
                pl_tensor_set(h.x, k, 1000.0 * r + 100.0 * d + j);
                pl_tensor_set(want, k, 1000.0 * d + 100.0 * r + j); /* y[r, s=d, j] */
            }
    int rc = pld_run(&t.cfg, host, &h);
    char why[256];
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
