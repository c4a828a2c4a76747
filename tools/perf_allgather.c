/* perf_allgather.c: nccl-tests' all_gather_perf (its src/all_gather.cu) on
 * pld_tensor_allgather: each rank's part lands in row `rank` of every
 * rank's target. */
#include "perf.h"

/* The send buffer is the input window's first row: one part per rank. */
static void allgather_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_allgather(pld_window((pld_buffer){a->input.win}, PL_SHAPE(1, v->n), S.dt), v->tgt,
                         a->sig);
}

static int allgather_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    (void)me;
    (void)n;
    *want = perf_input_value(row, j); /* rank row's first row */
    return 1;
}

const struct perf_coll perf_allgather = {
    .name = "allgather",
    .nccl = "all_gather_perf",
    .per_peer_rows = 1,
    .call = allgather_call,
    .expected = allgather_expected,
    .busbw_factor = perf_busbw_parts, /* a rank receives the P-1 parts it lacks */
};
