/* barrier.c: pld_tensor_barrier, lowered as upstream lowers
 * pld.tensor.barrier: one credit barrier and its epilogue. */
#include "collective.h"

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void barrier_kernel(const struct pld__host_call *h)
{
    pld__tensor_barrier(h->file, h->line, h->t[0]);
}

pld_dtensor pld__tensor_barrier(const char *file, int line, pld_dtensor signal)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = barrier_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_barrier",
                                                   .t = {signal}});
        return signal;
    }
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_barrier", signal);
    pld__coll_mesh_signal(&c, signal);
    pld__coll_finish(&c, NULL, NULL, 0);
    return signal;
}
