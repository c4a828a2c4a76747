/* perf_broadcast.c: nccl-tests' broadcast_perf (its src/broadcast.cu) on
 * pld_tensor_broadcast from -r's root. */
#include "perf.h"

static void broadcast_call(const struct dev_args *a, const struct views *v)
{
    pld_tensor_broadcast(v->tgt, a->sig, .root = S.root);
}

static int broadcast_expected(int me, int row, int64_t n, int64_t j, double *want)
{
    (void)me;
    (void)row;
    (void)n;
    *want = perf_input_value(S.root, j);
    return 1;
}

/* A broadcast ends when its receivers are done, not its readers of root's
 * window, so back to back, root's out-of-place copy would overwrite what a
 * late receiver still pulls: hence two targets, taking turns. */
const struct perf_coll perf_broadcast = {
    .name = "broadcast",
    .nccl = "broadcast_perf",
    .in_place = 1,
    .two_targets = 1,
    .has_root = 1,
    .call = broadcast_call,
    .expected = broadcast_expected,
    .busbw_factor = perf_busbw_whole, /* a rank receives the whole buffer once */
};
