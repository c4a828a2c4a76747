/* reduce_scatter.c: pld_tensor_reduce_scatter as upstream lowers it: every
 * rank has stored all P rows; a ready barrier; acc = own row `me` combined
 * with every peer's row `me`; a second (write-after-read) barrier, since
 * peers may still be reading our row `me`; the store; a 2-credit epilogue.
 * Rows longer than 16 KiB go chunk by chunk, each chunk with its own
 * read-done barrier (so 1 + chunks credits), as the mesh allreduce does. */
#include "collective.h"
#include "mem.h"

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void reduce_scatter_kernel(const struct pld__host_call *h)
{
    pld__tensor_reduce_scatter(h->file, h->line, h->t[0], h->t[1], h->reduce_scatter);
}

pld_dtensor pld__tensor_reduce_scatter(const char *file, int line, pld_dtensor target,
                                       pld_dtensor signal, struct pld_reduce_scatter_kw kw)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = reduce_scatter_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_reduce_scatter",
                                                   .t = {target, signal},
                                                   .reduce_scatter = kw});
        return target;
    }
    struct pld__coll c;
    char a[64];
    pld__coll_begin(&c, file, line, "pld_tensor_reduce_scatter", target);
    pld__coll_check_target(&c, "target", target, 0);
    pld_reduce_op op = pld__coll_reduce_op(&c, kw.op);
    if (target.shape.ndim != 2 || target.shape.dim[0] != c.nr)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "target '%s' is %s; expected [%d, S] (one row per rank)", target.name,
                  pld__shape_str(target.shape, a, sizeof a), c.nr);
    pld__coll_mesh_signal(&c, signal);
    pl_tensor row = pld__row(target, c.me);
    int64_t s = target.shape.dim[1], chunk = pld__coll_chunk(&c, target.dtype);

    pld__coll_barrier(&c); /* ready: every rank has stored its rows */
    for (int64_t off = 0; off < s; off += chunk) {
        int64_t len = s - off < chunk ? s - off : chunk;
        int mark = pld__ub_mark();
        pl_tile acc = COLL_LOAD(&c, row, off, len);
        for (int p = 0; p < c.nr; p++)
            if (p != c.me)
                acc = pld__combine(file, line, op, acc, COLL_REMOTE_LOAD(&c, row, p, off, len));
        pld__coll_barrier(&c); /* write-after-read: peers are done with our row */
        COLL_STORE(&c, acc, row, off);
        pld__ub_fold(mark); /* the chunk's tiles are dead */
    }
    pld__coll_epilogue(&c);
    pld__coll_end(&c);
    return target;
}
