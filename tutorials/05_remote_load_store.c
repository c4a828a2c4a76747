/* Step 05: remote load and remote store.
 *
 * --mode load (default): each rank stores x into its own window, all ranks
 * meet at a barrier, then each pulls its right neighbour's copy with
 * pld_tile_remote_load.  Golden: y[r] = x[(r + 1) % P].
 *
 * --mode store: each rank pushes x straight into its right neighbour's window
 * with pld_tile_remote_store, all meet at a barrier, then each reads its own
 * window.  Golden: y[r] = x[(r - 1) % P].
 *
 * Either way the order is: write, barrier, read.  Remote ops carry no signal
 * of their own; only the barrier makes the neighbour's write visible.
 * Needs exactly 2 devices. */
#include "common.h"

#include <string.h>

enum { SIZE = 64 };

static void load_mode(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    pld_tensor_barrier(signal); /* the neighbour's store is done and visible */
    pl_tile t = pld_tile_remote_load(data, .peer = (me + 1) % nr, .offsets = PL_IDX(0, 0),
                                     .shape = PL_SHAPE(1, SIZE));
    pl_store(t, PL_IDX(0, 0), y);
}

static void store_mode(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    pl_tile t = pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
    pld_tile_remote_store(t, data, .peer = (me + 1) % nr, .offsets = PL_IDX(0, 0));
    /* Reading our own window before this barrier could see zeros: the left
     * neighbour's store may not have landed yet. */
    pld_tensor_barrier(signal);
    pl_store(pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
    int store;
};

static void per_device(const struct rank_args *a)
{
    if (a->store)
        pl_incore(store_mode, a->x, a->y, a->data, a->signal);
    else
        pl_incore(load_mode, a->x, a->y, a->data, a->signal);
}

struct host_args {
    pl_tensor x, y;
    int store;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer data_buf = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data");
    pld_buffer sig_buf = pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(data_buf, PL_SHAPE(1, SIZE), PL_FP32),
                              pld_window(sig_buf, PL_SHAPE(nr, 1), PL_INT32), h->store};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"load", "store", NULL};
    static const struct tut_spec spec = {
        .name = "05_remote_load_store",
        .summary = "Step 05: read the right neighbour's window (load) or write into it (store).",
        .modes = modes,
        .default_mode = "load",
        .exact_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    int store = strcmp(t.mode, "store") == 0;

    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "y"), store};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);

    pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "golden");
    for (int r = 0; r < t.P; r++) {
        int src = store ? (r - 1 + t.P) % t.P : (r + 1) % t.P;
        for (int j = 0; j < SIZE; j++)
            pl_tensor_set(want, r * SIZE + j, pl_tensor_get(h.x, src * SIZE + j));
    }
    char why[256];
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
