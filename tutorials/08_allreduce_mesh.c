/* Step 08: allreduce, mesh.  Every rank stages x in its window, meets the
 * others at a hand-rolled barrier on signal [P, 1], then pulls each peer's
 * vector with remote_load and adds it to its own.  Golden: y[r] = sum_k x[k].
 * Any P >= 2 (default 4). */
#include "allreduce_hand.h"

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data, signal;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(ar_mesh_hand, a->x, a->y, a->data, a->signal);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(data, PL_SHAPE(1, AR_SIZE), PL_FP32),
                              pld_window(sig, PL_SHAPE(nr, 1), PL_INT32)};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "08_allreduce_mesh",
        .summary = "Step 08: allreduce by pulling every peer's vector (mesh).",
        .min_p = 2,
        .default_p = 4,
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
