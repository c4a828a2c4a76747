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
};

/* Compiled-in backends, NULL-terminated. */
extern const struct pld_backend *const pld__backends[];
extern const struct pld_backend pld_backend_sim;
extern const struct pld_backend pld_backend_threads;

#endif /* PLD_BACKEND_H */
