/* backend.h: the contract between the API front end and a backend.
 *
 * The front end checks every argument once and owns the data (windows, host
 * tensors, UB arenas); a backend provides execution (who runs where), time,
 * transfers through the interconnect, and the blocking behaviour of signals.
 * Backends never re-check arguments.  Collectives sit above this table, so
 * every backend runs the same lowering. */
#ifndef PLD_BACKEND_H
#define PLD_BACKEND_H

#include "internal.h"

/* Capability bits. */
#define PLD_CAP_TIMED 0x1u /* time is simulated: now() is model time */
/* Each rank runs in its own process: another rank's window is reached only
 * through the rma_* and notify_at hooks, the host orchestrator runs in every
 * process, and pld_dispatch(r, ...) runs only in rank r's process. */
#define PLD_CAP_DISTRIBUTED 0x2u

/* A region of a window view as the distributed hooks see it: `shape`
 * elements at `offsets` inside the row-major view of shape `full`, whose
 * first element is `base` bytes into the buffer's slot. */
struct pld__region {
    pl_dtype dtype;
    pl_shape full, offsets, shape;
    int64_t base;
};

struct pld__task {
    pld__task_fn fn;
    const char *fn_name;
    void *args; /* owned copy */
    const char *file;
    int line;
    struct pld__task *next;
};

struct pld_backend {
    const char *name;
    size_t size; /* sizeof(struct pld_backend) when built: lets the table grow */
    unsigned caps;

    /* Sets up ranks (R->ranks[r].dev, R->host_dev, R->platform_desc), runs
     * host(args) as the host orchestrator and every dispatched task, and
     * returns when all are done.  Returns 0 or a negative PLD_E* code (it
     * prints the message itself for platform/device errors). */
    int (*run)(struct pld__run *R, pld__host_fn host, const void *args);

    /* The executing rank, PLD__HOST, or PLD__NOBODY. */
    int (*self)(void);

    /* Seconds since the run started. */
    double (*now)(void);

    /* Queues a task on `rank`; called from the host.  Takes ownership. */
    void (*dispatch)(int rank, struct pld__task *task);

    /* Lets `seconds` of modelled work pass on the caller. */
    void (*elapse)(double seconds);

    /* Carries `bytes` from `from` to `to` over the interconnect; returns 0
     * when the last byte has arrived, or PLD_EPLATFORM at once if the
     * platform has no route between the two (after printing nothing: the
     * caller reports it).  from != to. */
    int (*transfer)(int from, int to, double bytes);

    /* Applies `op` with `value` to the INT32 cell `cell` in rank `owner`'s
     * window and wakes that rank's waiters. */
    void (*signal_update)(int owner, int32_t *cell, pld_notify_op op, int32_t value);

    /* Blocks the caller until its own cell satisfies cmp(expected). */
    void (*signal_wait)(const int32_t *cell, pld_wait_cmp cmp, int32_t expected);

    /* Bottleneck bandwidth of the route from -> to, B/s (summaries); may be
     * NULL when the backend has no such notion. */
    double (*route_bw)(int from, int to);

    /* Ends the run after an error: stops every rank.  Called from a rank or
     * the host; does not return. */
    void (*abort_run)(void) __attribute__((noreturn));

    /* The hooks below are for PLD_CAP_DISTRIBUTED backends; NULL otherwise. */

    /* Collective (every process's host calls it in the same order): gives
     * `b` this process's slot, b->slot zeroed bytes at b->mem.  Returns 0 or
     * a negative PLD_E* code after printing why. */
    int (*window_alloc)(struct pld__wbuf *b);
    /* Releases what window_alloc made (collective, at the end of the run). */
    void (*window_free)(struct pld__wbuf *b);
    /* Copies region `rg` of `peer`'s slot of `b` into `packed` (row-major,
     * contiguous); complete when it returns. */
    void (*rma_read)(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                     void *packed);
    /* Writes `packed` into region `rg` of `peer`'s slot of `b`, overwriting
     * or (PL_ATOMIC_ADD) adding element-wise and atomically; complete at
     * the target when it returns. */
    void (*rma_write)(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                      const void *packed, pl_atomic op);
    /* notify: applies `op` with `value` to the INT32 cell `off` bytes into
     * `owner`'s slot of `b` (the owner may be the caller). */
    void (*notify_at)(int owner, const struct pld__wbuf *b, int64_t off, pld_notify_op op,
                      int32_t value);
};

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

/* Does `rank`'s window live in another process than the caller's? */
int pld__is_remote(int rank);
/* Must a write with `op` into `rank`'s window go through the backend's
 * rma_write?  For a remote rank, and on a distributed backend also for an
 * atomic Add into the caller's own window (atomic only among MPI's). */
int pld__write_via_backend(int rank, pl_atomic op);
/* Reads region offsets+shape of window view `t` on `peer` into `packed`
 * (row-major, contiguous) through the backend's rma_read. */
void pld__remote_read(pl_tensor t, int peer, pl_shape offsets, pl_shape shape, void *packed);
/* Writes `packed` into region offsets+shape of `t` on `peer` (rma_write). */
void pld__remote_write(pl_tensor t, int peer, pl_shape offsets, pl_shape shape, const void *packed,
                       pl_atomic op);
/* put/get of a region whose far side is in another process: the local side
 * (src of a put, dst of a get) may be any layout on the caller's rank. */
void pld__remote_put(const char *file, int line, const char *op, pl_tensor dst, int peer,
                     pl_shape dst_off, pl_tensor src, pl_shape src_off, pl_shape shape,
                     pl_atomic atomic);
void pld__remote_get(const char *file, int line, const char *op, pl_tensor dst, pl_shape dst_off,
                     pl_tensor src, int peer, pl_shape src_off, pl_shape shape);

#endif /* PLD_BACKEND_H */
