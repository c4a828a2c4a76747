/* all_to_all.c: pld_tensor_all_to_all as upstream lowers it: for each
 * destination d (ourselves included) put input row d into row `me` of d's
 * target, then a barrier. */
#include "collective.h"
#include "mem.h"

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void all_to_all_kernel(const struct pld__host_call *h)
{
    pld__tensor_all_to_all(h->file, h->line, h->t[0], h->t[1], h->t[2]);
}

pld_dtensor pld__tensor_all_to_all(const char *file, int line, pl_tensor input, pld_dtensor target,
                                   pld_dtensor signal)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = all_to_all_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_all_to_all",
                                                   .t = {input, target, signal}});
        return target;
    }
    struct pld__coll c;
    char a[64], b[64];
    pld__coll_begin(&c, file, line, "pld_tensor_all_to_all", target);
    pld__coll_check_target(&c, "target", target, 1);
    pld__check_tensor(file, line, c.name, "input", input);
    int ok = target.shape.ndim == 2 && target.shape.dim[0] == c.nr && input.shape.ndim == 2 &&
             input.shape.dim[0] == c.nr && input.shape.dim[1] == target.shape.dim[1] &&
             input.dtype == target.dtype;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "input '%s' is %s %s and target '%s' is %s %s; expected both [%d, S] of the "
                  "same dtype",
                  input.name, pld__shape_str(input.shape, a, sizeof a), pl_dtype_name(input.dtype),
                  target.name, pld__shape_str(target.shape, b, sizeof b),
                  pl_dtype_name(target.dtype), c.nr);
    pld__coll_check_exchange_input(&c, input, target);
    pld__coll_mesh_signal(&c, signal);
    int64_t s = target.shape.dim[1];
    int mark = pld__ub_mark();
    for (int d = 0; d < c.nr; d++)
        pld__put(file, line, target,
                 (struct pld_p2p_kw){.peer = d,
                                     .src = input,
                                     .dst_offsets = PL_IDX(c.me, 0),
                                     .src_offsets = PL_IDX(d, 0),
                                     .shape = PL_SHAPE(1, s),
                                     .chunk_cols = pld__coll_chunk(&c, target.dtype)});
    pld__ub_fold(mark); /* one record for the staging tiles of all the puts */
    pld__coll_finish(&c, NULL, NULL, 0);
    return target;
}
