/* backend.h: what the backends share beyond the contract (contract.h, in
 * core/, which every layer may include): the task FIFO and the wait test
 * (tasks.c), the stubs (stubs.c), the operations on windows in this
 * process's memory (shm.c), and the list of backends and its check
 * (run.c, mpi_loader.c). */
#ifndef PLD_BACKEND_H
#define PLD_BACKEND_H

#include "contract.h"

/* Appends `t` (owned from now on) to `q`. */
void pld__tasks_push(struct pld__task_queue *q, struct pld__task *t);
/* The oldest task, removed from the queue; NULL when it is empty. */
struct pld__task *pld__tasks_pop(struct pld__task_queue *q);
/* Frees one task (NULL-safe), or every task left in `q`. */
void pld__task_free(struct pld__task *t);
void pld__tasks_free(struct pld__task_queue *q);
/* Does a cell holding `value` satisfy a wait for cmp(expected)? */
int pld__wait_holds(int32_t value, pld_wait_cmp cmp, int32_t expected);

/* Checks a backend's table when the backend is chosen (run.c): a name,
 * the size this libpld was built with, every mandatory hook, and the
 * optional ones that come in pairs set together.  Returns 0, or -1 with
 * the reason in `why`. */
int pld__backend_check(const struct pld_backend *be, char *why, size_t len);

/* Compiled-in backends, NULL-terminated. */
extern const struct pld_backend *const pld__backends[];
extern const struct pld_backend pld_backend_sim;
extern const struct pld_backend pld_backend_threads;
#ifdef PLD_HAVE_MPI
/* The mpi backend, from the module pld_mpi.so, loaded on first use
 * (mpi_loader.c).  Returns NULL with the reason in `why` if it cannot be
 * found or loaded. */
const struct pld_backend *pld__mpi_backend(char *why, size_t len);
#endif

/* Common stubs for the hooks a backend has no use for. */
void pld__charge_nothing(double seconds);
void pld__settle_nothing(void);

/* shm.c: the operations on windows in this process's memory, shared by the
 * sim and threads backends: the data half of read and write (a NULL span
 * ptr copies nothing). */
void pld__shm_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span dst);
void pld__shm_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                    struct pld__span src, pl_atomic op);
/* The INT32 cell `off` bytes into `rank`'s slot of `b`. */
int32_t *pld__shm_cell(const struct pld__wbuf *b, int rank, int64_t off);

#endif /* PLD_BACKEND_H */
