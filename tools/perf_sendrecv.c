/* perf_sendrecv.c: nccl-tests' sendrecv_perf (its src/sendrecv.cu) with
 * pld_tensor_put: each rank sends to the next and receives from the
 * previous. */
#include "perf.h"

/* The barrier is the receiver's "it has arrived". */
static void sendrecv_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_put(v->tgt, .peer = (a->rank + 1) % S.P, .src = v->in, .chunk_cols = 4096);
    pld_tensor_barrier(a->sig);
}

static int sendrecv_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    (void)row;
    (void)n;
    *want = perf_input_value((me + S.P - 1) % S.P, j);
    return 1;
}

/* nccl-tests prints -o's op for sendrecv too, though nothing is reduced. */
const struct perf_coll perf_sendrecv = {
    .name = "sendrecv",
    .nccl = "sendrecv_perf",
    .has_op = 1,
    .call = sendrecv_call,
    .expected = sendrecv_expected,
    .busbw_factor = perf_busbw_whole, /* a rank sends the whole buffer once */
};
