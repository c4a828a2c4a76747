/* barrier.c: pld_tensor_barrier, lowered as upstream lowers
 * pld.tensor.barrier: one credit barrier and its epilogue. */
#include "collective.h"

pld_dtensor pld__tensor_barrier(const char *file, int line, pld_dtensor signal)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kind = PLD__HB_BARRIER,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_barrier",
                                                   .t = {signal}});
        return signal;
    }
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_barrier", signal);
    pld__coll_mesh_signal(&c, signal);
    pld__coll_barrier(&c);
    pld__coll_epilogue(&c);
    pld__coll_end(&c);
    return signal;
}
