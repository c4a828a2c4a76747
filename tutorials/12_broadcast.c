/* Step 12: broadcast from root 0.
 *
 * --mode hand (default): only the root stores its x into the window; a
 * barrier; then every rank (the root too) pulls the root's copy with
 * remote_load, the root passed as an INT32 scalar.
 * --mode builtin: again only the root stores its x, then
 * pld_tensor_broadcast(data, signal, .root = 0) replaces every rank's copy
 * with the root's.
 *
 * The windows use the byte form: SIZE*4 bytes viewed as [1, SIZE] FP32, and
 * P*4 bytes viewed as [P, 1] INT32.  Inputs: x[0] = arange(64),
 * x[r] = arange(100r, 100r + 64).  Golden: y[r] = x[0], and y[r] != x[r] for
 * r > 0 (the broadcast really replaced something).  Default P = 2. */
#include "common.h"

#include <stdio.h>
#include <string.h>

enum { SIZE = 64, ROOT = 0 };

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

static void hand(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal, int root)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    if (me == root)
        pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    barrier(signal, me, nr); /* the root's data is in place */
    pl_tile t = pld_tile_remote_load(data, .peer = root, .offsets = PL_IDX(0, 0),
                                     .shape = PL_SHAPE(1, SIZE));
    pl_store(t, PL_IDX(0, 0), y);
}

static void builtin(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal, int root)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    if (pld_rank(ctx) == root) /* the others' copies are overwritten anyway */
        pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    data = pld_tensor_broadcast(data, signal, .root = root);
    pl_store(pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
    int root, builtin;
};

static void per_device(const struct rank_args *a)
{
    if (a->builtin)
        pl_incore(builtin, a->x, a->y, a->data, a->signal, a->root);
    else
        pl_incore(hand, a->x, a->y, a->data, a->signal, a->root);
}

struct host_args {
    pl_tensor x, y;
    int builtin;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    /* byte form: sizes in bytes, typed by the views */
    pld_buffer data = pld_alloc_window_buffer(SIZE * 4, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(nr * 4, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r),
                              pl_at(h->y, r),
                              pld_window(data, PL_SHAPE(1, SIZE), PL_FP32),
                              pld_window(sig, PL_SHAPE(nr, 1), PL_INT32),
                              ROOT,
                              h->builtin};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"hand", "builtin", NULL};
    static const struct tut_spec spec = {
        .name = "12_broadcast",
        .summary = "Step 12: broadcast root 0's vector, by hand or with pld_tensor_broadcast.",
        .modes = modes,
        .default_mode = "hand",
        .min_p = 2,
        .default_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "y"),
                          strcmp(t.mode, "builtin") == 0};
    for (int r = 0; r < t.P; r++)
        pl_fill_arange(pl_at(h.x, r), 100.0 * r, 1);
    int rc = pld_run(&t.cfg, host, &h);

    char why[256] = "";
    pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "golden");
    for (int r = 0; r < t.P; r++)
        pl_fill_arange(pl_at(want, r), 0, 1);
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    for (int r = 1; ok && r < t.P; r++)
        if (pl_equal(pl_at(h.y, r), pl_at(h.x, r), NULL, 0)) {
            snprintf(why, sizeof why, "y[%d] still equals x[%d]: nothing was broadcast", r, r);
            ok = 0;
        }
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
