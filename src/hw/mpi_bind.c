/* mpi_bind.c: what every file of the mpi backend reads and none of them
 * owns: the module's run state (pld__mpi) and its MPI calls, looked up in
 * the MPI library itself (pld_mpi_bind, called by mpi_loader.c when the
 * module is loaded).  A file of its own, below the others, so that the
 * run (mpi.c) and the operations it calls never call each other back. */
#include "mpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct mpi_state *pld__mpi;

struct pld_mpi_calls pld_mpi_fn;

/* Looks up every MPI call in `self` (this module's handle) and its
 * dependencies.  Returns 0, or -1 with the reason in `why`. */
int pld_mpi_bind(void *self, char *why, size_t len)
{
#define PLD_MPI_LOOKUP(name)                                                                       \
    if (!(*(void **)&pld_mpi_fn.name = dlsym(self, "MPI_" #name))) {                               \
        snprintf(why, len, "MPI_" #name " not found: %s", dlerror());                              \
        return -1;                                                                                 \
    }
    PLD_MPI_CALLS(PLD_MPI_LOOKUP)
#undef PLD_MPI_LOOKUP
    /* the whole point: not SMPI's copy inside libsimgrid */
    Dl_info info;
    if (dladdr(*(void **)&pld_mpi_fn.Init_thread, &info) && info.dli_fname &&
        strstr(info.dli_fname, "simgrid")) {
        snprintf(why, len, "MPI_Init_thread resolved to %s (SimGrid's SMPI), not to MPI",
                 info.dli_fname);
        return -1;
    }
    return 0;
}
