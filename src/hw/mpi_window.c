/* mpi_window.c: the mpi backend's windows.  Each buffer is one
 * MPI_Win_allocate'd window, allocated collectively (every process's host
 * allocates in the same order), with a passive-target epoch open for the
 * whole run (MPI_Win_lock_all). */
#include "mpi.h"

#include <stdlib.h>
#include <string.h>

/* Every window this process holds, newest first: the backend keeps its own
 * list rather than walk the front end's buffers.  Windows outlive the run
 * (they are freed when the front end frees its buffers), so the list is
 * not part of the run's state. */
static struct mpi_win *wins;

/* Local stores to a window become visible to other processes' RMA, and
 * their RMA to local loads, at a window synchronisation. */
void pld__mpi_sync_all_windows(void)
{
    for (const struct mpi_win *w = wins; w; w = w->next)
        MPI_Win_sync(w->w);
}

int pld__mpi_window_alloc(struct pld__wbuf *b)
{
    struct mpi_win *w = calloc(1, sizeof *w);
    void *base = NULL;
    if (!w)
        return PLD_ENOMEM;
    if (MPI_Win_allocate((MPI_Aint)b->slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w->w) !=
        MPI_SUCCESS) {
        free(w);
        return PLD_ENOMEM;
    }
    memset(base, 0, (size_t)b->slot);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, w->w);
    MPI_Win_sync(w->w);
    if ((w->next = wins))
        wins->prev = w;
    wins = w;
    b->mem = base;
    b->be_data = w;
    return 0;
}

void pld__mpi_window_free(struct pld__wbuf *b)
{
    struct mpi_win *w = b->be_data;
    if (!w)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        wins = w->next;
    if (w->next)
        w->next->prev = w->prev;
    MPI_Win_unlock_all(w->w);
    MPI_Win_free(&w->w);
    free(w);
    b->be_data = NULL;
    b->mem = NULL;
}