/* allreduce.c: pld_tensor_allreduce, the checks and the choice between the
 * mesh and ring lowerings (chosen only by the caller's .mode, as upstream). */
#include "collective.h"

pld_dtensor pld__tensor_allreduce(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_allreduce_kw kw)
{
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
