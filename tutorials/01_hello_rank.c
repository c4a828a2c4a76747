/* Step 01: hello, rank.  The three levels and nothing else.
 *
 * The host orchestrator loops over the ranks and dispatches a per-device
 * function to each (upstream: fn(..., device=r)); that function calls one
 * kernel; the kernel loads its rank's slice of x into a UB tile, adds the rank,
 * and stores the tile into y.  There is no window and no communication.
 * Golden: y[r] = x[r] + r.  Needs exactly 2 devices. */
#include "common.h"

enum { ROWS = 8, COLS = 8 };

/* The kernel (upstream @pl.jit.incore): runs on the device's vector core. */
static void add_rank(pl_tensor x, pl_tensor y, int rank)
{
    pl_tile t = pl_load(x, PL_IDX(0, 0), PL_SHAPE(ROWS, COLS));
    /* Scalar FP arithmetic is illegal on AICore, so the rank becomes an FP32
     * scalar that the vector unit broadcasts over the tile. */
    t = pl_add(t, pl_cast(rank, PL_FP32));
    pl_store(t, PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    int rank;
};

/* The per-device orchestrator (upstream @pl.jit): calls the kernel. */
static void per_device(const struct rank_args *a)
{
    pl_incore(add_rank, a->x, a->y, a->rank);
}

struct host_args {
    pl_tensor x, y;
};

/* The host orchestrator (upstream @pl.jit.host). */
static void host(const struct host_args *h)
{
    for (int r = 0; r < pld_world_size(); r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r), r};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "01_hello_rank",
        .summary = "Step 01: each rank computes y[r] = x[r] + r (no communication).",
        .exact_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);

    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, ROWS, COLS), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, ROWS, COLS), PL_FP32, "y")};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);

    pl_tensor want = pl_tensor_new(PL_SHAPE(t.P, ROWS, COLS), PL_FP32, "golden");
    for (int r = 0; r < t.P; r++)
        for (int i = 0; i < ROWS * COLS; i++) {
            int64_t k = (int64_t)r * ROWS * COLS + i;
            pl_tensor_set(want, k, pl_tensor_get(h.x, k) + r);
        }
    char why[256];
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
