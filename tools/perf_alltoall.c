/* perf_alltoall.c: nccl-tests' alltoall_perf (its src/alltoall.cu) on
 * pld_tensor_all_to_all: row p of rank r's input lands in row r of rank
 * p's target. */
#include "perf.h"

static void alltoall_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_all_to_all(v->in, v->tgt, a->sig);
}

static int alltoall_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    *want = perf_input_value(row, (int64_t)me * n + j); /* rank row's row `me` */
    return 1;
}

const struct perf_coll perf_alltoall = {
    .name = "all_to_all",
    .nccl = "alltoall_perf",
    .per_peer_rows = 1,
    .call = alltoall_call,
    .expected = alltoall_expected,
    .busbw_factor = perf_busbw_parts, /* a rank's own part stays */
};
