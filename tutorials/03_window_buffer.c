/* Step 03: the window buffer.  The host allocates a slot in every rank's
 * symmetric window (shape form: [1, SIZE] FP32, so SIZE*4 bytes, zero-filled
 * and rounded up to 32 bytes) and hands each rank a typed view of it.  Used
 * in a kernel, a view always means the executing rank's own copy.  The kernel
 * stores x into the window and loads it back into y: y == x.
 * Needs exactly 2 devices. */
#include "common.h"

enum { SIZE = 256 };

static void roundtrip(pl_tensor x, pl_tensor y, pld_dtensor data)
{
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    pl_store(pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    pld_dtensor data;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(roundtrip, a->x, a->y, a->data);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    /* Shape form: the size is numel * dtype size, in bytes. */
    pld_buffer data_buf = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data");
    for (int r = 0; r < pld_world_size(); r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(data_buf, PL_SHAPE(1, SIZE), PL_FP32)};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "03_window_buffer",
        .summary = "Step 03: store x into the rank's window slot and load it back: y == x.",
        .exact_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);

    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "y")};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);

    char why[256];
    int ok = pl_allclose(h.y, h.x, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
