/* allreduce_mesh.c: the mesh allreduce as upstream lowers it in InCore code:
 * a ready barrier; then for each chunk of at most 16 KiB, remote_load the
 * chunk from every rank and accumulate, a read-done barrier (peers may still
 * be reading our chunk), and the store; an epilogue takes back 1 + chunks
 * credits.  We accumulate in rank order, own chunk included, so that every
 * rank computes the same bits (upstream starts from its own chunk, which
 * gives each rank a differently rounded FP sum). */
#include "collective.h"
#include "mem.h"

void pld__allreduce_mesh(struct pld__coll *c, pl_tensor flat, pld_reduce_op op)
{
    int64_t n = flat.shape.dim[1], chunk = pld__coll_chunk(c, flat.dtype);

    pld__coll_barrier(c); /* ready: every rank's target holds its input */
    for (int64_t off = 0; off < n; off += chunk) {
        int64_t len = n - off < chunk ? n - off : chunk;
        pl_tile acc = {0};
        int mark = pld__ub_mark();
        for (int p = 0; p < c->nr; p++) {
            pl_tile t =
                p == c->me ? COLL_LOAD(c, flat, off, len) : COLL_REMOTE_LOAD(c, flat, p, off, len);
            acc = p == 0 ? t : pld__combine(c->file, c->line, op, acc, t);
        }
        pld__coll_barrier(c); /* read-done: nobody reads this chunk any more */
        COLL_STORE(c, acc, flat, off);
        pld__ub_fold(mark); /* the chunk's tiles are dead */
    }
    pld__coll_epilogue(c);
}
