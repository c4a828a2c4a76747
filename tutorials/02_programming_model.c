/* Step 02: the programming model.  The same three levels as step 01, but the
 * kernel does rank-dependent floating-point math the way AICore must: with
 * vector ops on tiles, never with scalar FP arithmetic.  It computes
 * x * rank + x, so y[r] = x[r] * (r + 1).  Needs exactly 2 devices. */
#include "common.h"

enum { ROWS = 8, COLS = 8 };

static void scale_by_rank(pl_tensor x, pl_tensor y, int rank)
{
    pl_tile t = pl_load(x, PL_IDX(0, 0), PL_SHAPE(ROWS, COLS));
    /* rank is an INT32 scalar: cast it, then let the vector unit do the FP
     * work.  Writing x * (rank + 1) as one FP scalar product would need FP
     * scalar math, which the core does not have. */
    pl_tile scaled = pl_mul(t, pl_cast(rank, PL_FP32));
    pl_store(pl_add(scaled, t), PL_IDX(0, 0), y);
}

struct rank_args {
    pl_tensor x, y;
    int rank;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(scale_by_rank, a->x, a->y, a->rank);
}

struct host_args {
    pl_tensor x, y;
};

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
        .name = "02_programming_model",
        .summary = "Step 02: y[r] = x[r] * r + x[r], computed with vector ops.",
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
            pl_tensor_set(want, k, pl_tensor_get(h.x, k) * (r + 1));
        }
    char why[256];
    int ok = pl_allclose(h.y, want, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
