/* Step 10: allreduce around a ring.  Each rank talks only to its neighbours:
 * P-1 rounds of reduce-scatter, then P-1 rounds of allgather, one signal row
 * per round (signal [2(P-1), P]).  Every round moves one chunk of SIZE/P per
 * rank over one link, so the ring uses every link at once and suits large
 * vectors on ring-shaped interconnects.  The kernel is in allreduce_hand.h.
 * P must divide SIZE = 64.  Golden: y[r] = sum_k x[k].  Default P = 4. */
#include "allreduce_hand.h"

struct rank_args {
    pl_tensor x, y;
    pld_dtensor scratch, signal;
    int64_t chunk_elems; /* upstream passes it as an INDEX scalar */
};

static void per_device(const struct rank_args *a)
{
    pl_incore(ar_ring_hand, a->x, a->y, a->scratch, a->signal, a->chunk_elems);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer scratch = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "scratch");
    pld_buffer sig =
        pld_alloc_window_buffer(PL_SHAPE(2 * (nr - 1), nr), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r),
                              pld_window(scratch, PL_SHAPE(1, AR_SIZE), PL_FP32),
                              pld_window(sig, PL_SHAPE(2 * (nr - 1), nr), PL_INT32), AR_SIZE / nr};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const struct tut_spec spec = {
        .name = "10_allreduce_ring",
        .summary = "Step 10: allreduce around a ring (reduce-scatter + allgather).",
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
