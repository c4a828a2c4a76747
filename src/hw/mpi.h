/* mpi.h: what the files of the mpi backend share (mpi.c says how the
 * backend works): the per-run state and the hooks the backend table in
 * mpi.c points to.  Private to the module pld_mpi.so. */
#ifndef PLD_HW_MPI_H
#define PLD_HW_MPI_H

#include "../core/internal.h"
#include "../backend/backend.h"
#include "mpi_calls.h"

#include <pthread.h>
#include <setjmp.h>

#pragma GCC visibility push(hidden)

/* Who each process is, for the liveness check: its host and pid. */
struct mpi_peer {
    char host[64];
    int32_t pid;
};

/* The backend's share of the run. */
struct mpi_state {
    const struct pld__run_env *env; /* what it reads of the run */
    const struct pld__frontend *fe; /* the calls back into the front end */
    int me, np;
    int self; /* what mpi_self says: PLD__HOST, me, or PLD__NOBODY between the two */
    double t0;
    struct pld__task_queue tasks; /* this process's rank's */
    struct pld__task *current;    /* running; freed by run_tasks after an error */
    /* two INT32 per process: [0] an error code, 0 while running; [1], used
     * in process 0 only, 1 once a process has claimed the error report */
    MPI_Win ctl;
    int32_t *abort_cell;
    jmp_buf unwind;         /* back to the runner of the host or of a task */
    struct mpi_peer *peers; /* every process's, by rank */
    pthread_t watchdog;
    int watching;       /* the watchdog runs (atomic: it reads it) */
    MPI_Comm host_comm; /* this host's processes, or MPI_COMM_NULL */
    MPI_Win claim_win;  /* holds *claim, shared by this host's processes */
    int *claim;         /* 1 once a survivor took the death report; NULL: none */
};

/* The backend's state: set when mpi_run starts, NULL again when it returns. */
extern struct mpi_state *pld__mpi;

/* Seconds since the run started (the backend's now hook). */
static inline double mpi_now(void)
{
    return pld__mpi ? MPI_Wtime() - pld__mpi->t0 : 0.0; /* outside a run there is no clock */
}

/* A buffer's window (b->be_data), on the list of this process's windows. */
struct mpi_win {
    MPI_Win w;
    struct mpi_win *prev, *next;
};

static inline MPI_Win win_of(const struct pld__wbuf *b)
{
    return ((const struct mpi_win *)b->be_data)->w;
}

/* mpi_window.c: one MPI window per buffer, a passive-target epoch open for
 * the whole run. */

/* Makes local stores and remote RMA visible both ways, on every window. */
void pld__mpi_sync_all_windows(void);
/* The window hooks of the backend table. */
int pld__mpi_window_alloc(struct pld__wbuf *b);
void pld__mpi_window_free(struct pld__wbuf *b);

/* mpi_ops.c: the operations as MPI RMA, the abort cell and the wait. */

/* The data, signal and abort hooks of the backend table. */
int pld__mpi_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                  struct pld__span dst, struct pld__cost *c);
int pld__mpi_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span src, pl_atomic op, struct pld__cost *c);
int pld__mpi_notify(int owner, const struct pld__cell_ref *cell, pld_notify_op op, int32_t value,
                    struct pld__cost *c);
void pld__mpi_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected);
_Noreturn void pld__mpi_abort_run(void);
/* The backend's claim_report: the first process to ask, job-wide, by a
 * compare-and-swap on process 0's second control cell. */
int pld__mpi_claim_report(void);

/* mpi_liveness.c: a watchdog thread that ends the job when a process on
 * this host dies. */

/* Learns every process's host and pid (collective), then arms the
 * watchdog; 0, or -1 if it could not start (the run goes on unwatched). */
int pld__mpi_liveness_start(void);
/* Disarms the watchdog and frees what liveness_start made. */
void pld__mpi_liveness_stop(void);

#pragma GCC visibility pop

#endif
