/* broadcast.c: pld_tensor_broadcast as upstream lowers it: a barrier (root
 * has stored its data), every other rank pulls root's target into its own
 * with get, and the epilogue. */
#include "collective.h"

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void broadcast_kernel(const struct pld__host_call *h)
{
    pld__tensor_broadcast(h->file, h->line, h->t[0], h->t[1], h->broadcast);
}

/* What every rank but root does once all have arrived: pull root's data. */
struct pull {
    pld_dtensor target;
    int root;
};

static void pull_from_root(struct pld__coll *c, const void *arg)
{
    const struct pull *p = arg;
    if (c->me == p->root)
        return;
    pl_tensor flat = pld__flat(p->target);
    pld__get(c->file, c->line, flat,
             (struct pld_p2p_kw){
                 .peer = p->root, .src = flat, .chunk_cols = pld__coll_chunk(c, flat.dtype)});
}

pld_dtensor pld__tensor_broadcast(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_broadcast_kw kw)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = broadcast_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_broadcast",
                                                   .t = {target, signal},
                                                   .broadcast = kw});
        return target;
    }
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_broadcast", target);
    pld__coll_check_target(&c, "target", target, 1);
    if (kw.root == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, c.name, "missing required keyword .root");
    if (kw.root < 0 || kw.root >= c.nr)
        pld__fail(PLD_EINVAL, file, line, c.name, "root %lld out of range [0, %d)",
                  (long long)kw.root, c.nr);
    pld__coll_mesh_signal(&c, signal);
    struct pull from = {target, (int)kw.root};
    pld__coll_finish(&c, pull_from_root, &from, sizeof from);
    return target;
}
