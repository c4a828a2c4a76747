/* allgather.c: pld_tensor_allgather as upstream lowers it: put our data into
 * row `me` of every rank's target (our own included), then a barrier. */
#include "collective.h"
#include "mem.h"

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void allgather_kernel(const struct pld__host_call *h)
{
    pld__tensor_allgather(h->file, h->line, h->t[0], h->t[1], h->t[2]);
}

pld_dtensor pld__tensor_allgather(const char *file, int line, pl_tensor local, pld_dtensor target,
                                  pld_dtensor signal)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = allgather_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allgather",
                                                   .t = {local, target, signal}});
        return target;
    }
    struct pld__coll c;
    char a[64], b[64];
    pld__coll_begin(&c, file, line, "pld_tensor_allgather", target);
    pld__coll_check_target(&c, "target", target, 1);
    pld__check_tensor(file, line, c.name, "local", local);
    pld__check_dense(file, line, c.name, "local", local);
    int64_t s = target.shape.ndim == 2 ? target.shape.dim[1] : -1;
    if (target.shape.ndim != 2 || target.shape.dim[0] != c.nr || pl_shape_numel(local.shape) != s ||
        local.dtype != target.dtype)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "target '%s' is %s %s and local '%s' is %s %s; expected target [%d, S] and "
                  "local [1, S] of the same dtype",
                  target.name, pld__shape_str(target.shape, a, sizeof a),
                  pl_dtype_name(target.dtype), local.name, pld__shape_str(local.shape, b, sizeof b),
                  pl_dtype_name(local.dtype), c.nr);
    if (pld__aliases(local, target))
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "local '%s' aliases target '%s': another rank's row could overwrite it before "
                  "it is sent; use a separate buffer",
                  local.name, target.name);
    pld__coll_mesh_signal(&c, signal);
    int mark = pld__ub_mark();
    for (int p = 0; p < c.nr; p++)
        pld__put(file, line, target,
                 (struct pld_p2p_kw){.peer = p,
                                     .src = pld__flat(local),
                                     .dst_offsets = PL_IDX(c.me, 0),
                                     .src_offsets = PL_IDX(0, 0),
                                     .shape = PL_SHAPE(1, s),
                                     .chunk_cols = pld__coll_chunk(&c, target.dtype)});
    pld__ub_fold(mark); /* one record for the staging tiles of all the puts */
    pld__coll_finish(&c, NULL, NULL, 0);
    return target;
}
