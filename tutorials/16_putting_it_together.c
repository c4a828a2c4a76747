/* Step 16: putting it together.  One kernel runs three collectives, each on
 * its own window and signal:
 *  1. the root stores the weights into w_data; pld_tensor_broadcast gives
 *     every rank the root's weights (one unsliced weights tensor is passed to
 *     every rank; only the root reads it);
 *  2. x goes into ar_data; pld_tensor_allreduce (Sum, mesh) -> allred;
 *  3. pld_tensor_allgather(x, ag_data, sig_ag); row k times the weights
 *     -> gathered[0, k*64 : (k+1)*64].
 * Separate signals are harmless whether one reads the docs' "counters never
 * reset" or the builtins' self-clearing credits (pld-reference section 3).
 * Inputs: x[r] = arange(100r, 100r + 64), weights = arange(1, 65).
 * Golden: allred[r] = sum_k x[k]; gathered[r] = concat_k(x[k] * w).
 * Default P = 2. */
#include "common.h"

enum { SIZE = 64, ROOT = 0 };

struct windows {
    pld_dtensor w_data, ar_data, ag_data, sig_bcast, sig_ar, sig_ag;
};

static void together(pl_tensor x, pl_tensor weights, pl_tensor allred, pl_tensor gathered,
                     const struct windows *w)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(w->w_data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);

    if (me == ROOT)
        pl_store(pl_load(weights, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), w->w_data);
    pld_dtensor wd = pld_tensor_broadcast(w->w_data, w->sig_bcast, .root = ROOT);
    /* loaded now, as upstream does: the tile stays live (in UB) through the
     * two collectives below */
    pl_tile wt = pl_load(wd, PL_IDX(0, 0), PL_SHAPE(1, SIZE));

    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), w->ar_data);
    pld_dtensor ar = pld_tensor_allreduce(w->ar_data, w->sig_ar, .op = PLD_REDUCE_SUM,
                                          .mode = PLD_ALLREDUCE_MESH);
    pl_store(pl_load(ar, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), allred);

    pld_dtensor ag = pld_tensor_allgather(x, w->ag_data, w->sig_ag);
    for (int k = 0; k < nr; k++)
        pl_store(pl_mul(pl_load(ag, PL_IDX(k, 0), PL_SHAPE(1, SIZE)), wt), PL_IDX(0, k * SIZE),
                 gathered);
}

struct rank_args {
    pl_tensor x, weights, allred, gathered;
    struct windows w;
};

static void per_device(const struct rank_args *a)
{
    pl_incore(together, a->x, a->weights, a->allred, a->gathered, &a->w);
}

struct host_args {
    pl_tensor x, weights, allred, gathered;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer w = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "w_data");
    pld_buffer ar = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "ar_data");
    pld_buffer ag = pld_alloc_window_buffer(PL_SHAPE(nr, SIZE), PL_FP32, .name = "ag_data");
    /* Each signal fills whole 64-byte lines: TWAIT and TNOTIFY act on a line,
     * so two signals sharing one corrupt each other on hardware (pypto#2800). */
    int64_t sig_bytes = ((int64_t)nr * 4 + 63) / 64 * 64;
    pld_buffer sb = pld_alloc_window_buffer(sig_bytes, .name = "sig_bcast");
    pld_buffer sa = pld_alloc_window_buffer(sig_bytes, .name = "sig_ar");
    pld_buffer sg = pld_alloc_window_buffer(sig_bytes, .name = "sig_ag");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {
            pl_at(h->x, r),
            h->weights, /* unsliced: every rank gets the same tensor */
            pl_at(h->allred, r),
            pl_at(h->gathered, r),
            {pld_window(w, PL_SHAPE(1, SIZE), PL_FP32), pld_window(ar, PL_SHAPE(1, SIZE), PL_FP32),
             pld_window(ag, PL_SHAPE(nr, SIZE), PL_FP32), pld_window(sb, PL_SHAPE(nr, 1), PL_INT32),
             pld_window(sa, PL_SHAPE(nr, 1), PL_INT32), pld_window(sg, PL_SHAPE(nr, 1), PL_INT32)},
        };
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "16_putting_it_together",
        .summary = "Step 16: broadcast, allreduce and allgather in one kernel.",
        .min_p = 2,
        .default_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(1, SIZE), PL_FP32, "weights"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "allred"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, t.P * SIZE), PL_FP32, "gathered")};
    for (int r = 0; r < t.P; r++)
        pl_fill_arange(pl_at(h.x, r), 100.0 * r, 1);
    pl_fill_arange(h.weights, 1, 1);
    int rc = pld_run(&t.cfg, host, &h);

    pl_tensor want_ar = pl_tensor_new(PL_SHAPE(t.P, 1, SIZE), PL_FP32, "golden_allred");
    pl_tensor want_g = pl_tensor_new(PL_SHAPE(t.P, 1, t.P * SIZE), PL_FP32, "golden_gathered");
    for (int r = 0; r < t.P; r++)
        for (int j = 0; j < SIZE; j++) {
            double sum = 0;
            for (int k = 0; k < t.P; k++) {
                sum += 100.0 * k + j;
                pl_tensor_set(want_g, ((int64_t)r * t.P + k) * SIZE + j, (100.0 * k + j) * (j + 1));
            }
            pl_tensor_set(want_ar, (int64_t)r * SIZE + j, sum);
        }
    char why[256];
    int ok = pl_allclose(h.allred, want_ar, 1e-5, 1e-5, why, sizeof why) &&
             pl_allclose(h.gathered, want_g, 1e-5, 1e-5, why, sizeof why);
    pl_tensor_free(&want_ar);
    pl_tensor_free(&want_g);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.weights);
    pl_tensor_free(&h.allred);
    pl_tensor_free(&h.gathered);
    return tut_finish(rc, ok, why);
}
