/* allreduce.c: pld_tensor_allreduce, the checks and the choice between the
 * mesh and ring lowerings (chosen only by the caller's .mode, as upstream). */
#include "collective.h"

/* Upstream's compile-time checks of the host ring builtin, made on the
 * host before any rank is dispatched. */
static void check_host_ring(const char *file, int line, pld_dtensor target, pld_dtensor signal,
                            struct pld_allreduce_kw kw)
{
    static const char op[] = "pld_tensor_allreduce";
    char a[64];
    int P = pld__R->P;
    static const char *const names[] = {"", "SUM", "MAX", "MIN", "PROD"};
    if (kw.op != 0 && kw.op != PLD_REDUCE_SUM)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports only PLD_REDUCE_SUM, not %s%s; use the mesh "
                  "mode for other reductions",
                  kw.op > 0 && kw.op <= PLD_REDUCE_PROD ? "PLD_REDUCE_" : ".op ",
                  kw.op > 0 && kw.op <= PLD_REDUCE_PROD ? names[kw.op] : "out of range");
    if (target.dtype != PL_FP32)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports only FP32 targets; '%s' is %s", target.name,
                  pl_dtype_name(target.dtype));
    if (P > 16)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports at most 16 ranks; this run has %d", P);
    int64_t n = pl_shape_numel(target.shape);
    if (n % P != 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "target '%s' has %lld elements, not divisible by the %d ranks: the host ring "
                  "splits it into one chunk per rank",
                  target.name, (long long)n, P);
    int ok = signal.dtype == PL_INT32 && signal.win && signal.shape.ndim == 2 &&
             signal.shape.dim[0] == 2 * (P - 1) + 1 && signal.shape.dim[1] == P;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce needs an INT32 signal of shape [2(P-1)+1, P] = [%d, %d] "
                  "(one row per round and one for the final barrier); got '%s' %s %s",
                  2 * (P - 1) + 1, P, signal.name ? signal.name : "?",
                  pld__shape_str(signal.shape, a, sizeof a), pl_dtype_name(signal.dtype));
}

void pld__allreduce_host_ring_task(const char *file, int line, pld_dtensor target,
                                   pld_dtensor signal)
{
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_allreduce", target);
    pld__coll_check_target(&c, "target", target, 0);
    if (c.nr > 1)
        pld__allreduce_ring_host(&c, pld__flat(target), signal);
    pld__coll_end(&c);
}

pld_dtensor pld__tensor_allreduce(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_allreduce_kw kw)
{
    if (pld__on_host() && kw.mode == PLD_ALLREDUCE_RING) {
        check_host_ring(file, line, target, signal, kw);
        pld__host_builtin(&(struct pld__host_call){.kind = PLD__HB_ALLREDUCE_RING,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allreduce ring",
                                                   .t = {target, signal}});
        return target;
    }
    if (pld__on_host()) {
        pld__host_builtin(&(struct pld__host_call){.kind = PLD__HB_ALLREDUCE,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allreduce",
                                                   .t = {target, signal},
                                                   .allreduce = kw});
        return target;
    }
    struct pld__coll c;
    char a[64];
    pld__coll_begin(&c, file, line, "pld_tensor_allreduce", target);
    pld__coll_check_target(&c, "target", target, 0);
    pld_reduce_op op = pld__coll_reduce_op(&c, kw.op);
    pld_allreduce_mode mode = kw.mode ? kw.mode : PLD_ALLREDUCE_MESH;
    if (mode != PLD_ALLREDUCE_MESH && mode != PLD_ALLREDUCE_RING)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  ".mode is %d; expected PLD_ALLREDUCE_MESH or PLD_ALLREDUCE_RING", (int)mode);
    if (mode == PLD_ALLREDUCE_RING) {
        pld__check_dense(file, line, c.name, "signal", signal);
        int ok = signal.dtype == PL_INT32 && signal.win && signal.shape.ndim == 2 &&
                 signal.shape.dim[0] == 2 * (c.nr - 1) && signal.shape.dim[1] == c.nr;
        if (!ok)
            pld__fail(PLD_EINVAL, file, line, c.name,
                      "ring mode needs an INT32 signal of shape [2(P-1), P] = [%d, %d] (one row "
                      "per round, one cell per rank); got '%s' %s %s",
                      2 * (c.nr - 1), c.nr, signal.name ? signal.name : "?",
                      pld__shape_str(signal.shape, a, sizeof a), pl_dtype_name(signal.dtype));
        pld__coll_check_group(&c, "signal", signal);
        if (c.nr > 1)
            pld__allreduce_ring(&c, pld__flat(target), signal, op);
    } else {
        pld__coll_mesh_signal(&c, signal);
        if (c.nr > 1)
            pld__allreduce_mesh(&c, pld__flat(target), op);
    }
    pld__coll_end(&c);
    return target;
}
