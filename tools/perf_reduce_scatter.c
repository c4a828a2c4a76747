/* perf_reduce_scatter.c: nccl-tests' reduce_scatter_perf (its
 * src/reduce_scatter.cu) on pld_tensor_reduce_scatter: rank r ends with
 * the reduction of every rank's row r. */
#include "perf.h"

static void reduce_scatter_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_reduce_scatter(v->tgt, a->sig, .op = S.op);
}

/* Only row `me` holds a result; the others are scratch. */
static int reduce_scatter_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    *want = perf_reduce_ref((int64_t)me * n + j);
    return row == me;
}

const struct perf_coll perf_reduce_scatter = {
    .name = "reduce_scatter",
    .nccl = "reduce_scatter_perf",
    .per_peer_rows = 1,
    .in_place = 1,
    .has_op = 1,
    .call = reduce_scatter_call,
    .expected = reduce_scatter_expected,
    .busbw_factor = perf_busbw_parts, /* a rank sends the P-1 parts it does not keep */
};
