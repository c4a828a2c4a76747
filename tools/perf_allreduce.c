/* perf_allreduce.c: nccl-tests' all_reduce_perf (its src/all_reduce.cu) on
 * pld_tensor_allreduce, by mesh or ring (--mode). */
#include "perf.h"

static const char *allreduce_mode(void)
{
    return S.mode == PLD_ALLREDUCE_RING ? "ring" : "mesh";
}

/* The ring counts its steps on a signal of its own, 2 (P-1) rows of P. */
static void allreduce_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_allreduce(v->tgt, S.mode == PLD_ALLREDUCE_RING ? a->ring_sig : a->sig, .op = S.op,
                         .mode = S.mode);
}

static int allreduce_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    (void)me;
    (void)row;
    (void)n;
    *want = perf_reduce_ref(j);
    return 1;
}

/* A reduce-scatter and an allgather: each rank moves 2 (P-1)/P of the data. */
static double allreduce_busbw_factor(double n)
{
    return 2 * (n - 1) / n;
}

const struct perf_coll perf_allreduce = {
    .name = "allreduce",
    .nccl = "all_reduce_perf",
    .in_place = 1,
    .has_op = 1,
    .mode = allreduce_mode,
    .call = allreduce_call,
    .expected = allreduce_expected,
    .busbw_factor = allreduce_busbw_factor,
};
