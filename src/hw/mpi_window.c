/* mpi_window.c: the mpi backend's windows.  Each buffer is one
 * MPI_Win_allocate'd window, allocated collectively (every process's host
 * allocates in the same order), with a passive-target epoch open for the
 * whole run (MPI_Win_lock_all). */
#include "mpi.h"

#include <stdlib.h>
#include <string.h>

/* Local stores to a window become visible to other processes' RMA, and
 * their RMA to local loads, at a window synchronisation. */
void pld__mpi_sync_all_windows(void)
{
    for (const struct pld__wbuf *b = pld__mpi->R->wbufs; b; b = b->next)
        MPI_Win_sync(win_of(b));
}

int pld__mpi_window_alloc(struct pld__wbuf *b)
{
    MPI_Win *w = malloc(sizeof *w);
    void *base = NULL;
    if (!w)
        return PLD_ENOMEM;
    if (MPI_Win_allocate((MPI_Aint)b->slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, w) !=
        MPI_SUCCESS) {
        free(w);
        return PLD_ENOMEM;
    }
    memset(base, 0, (size_t)b->slot);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, *w);
    MPI_Win_sync(*w);
    b->mem = base;
    b->be_data = w;
    return 0;
}

void pld__mpi_window_free(struct pld__wbuf *b)
{
    MPI_Win *w = b->be_data;
    if (!w)
        return;
    MPI_Win_unlock_all(*w);
    MPI_Win_free(w);
    free(w);
    b->be_data = NULL;
    b->mem = NULL;
}