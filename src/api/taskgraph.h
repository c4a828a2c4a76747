/* taskgraph.h: a device's task graph, private to taskgraph.c (the API:
 * scopes, tasks, defer_wait) and taskgraph_run.c (the scheduler on the
 * device's cores, and the graphs' part of a deadlock report). */
#ifndef PLD_TASKGRAPH_H
#define PLD_TASKGRAPH_H

#include "internal.h"
#include "backend.h"

#define MAX_CONDITIONS 64 /* per task, as upstream's runtime (MAX_COMPLETIONS_PER_TASK) */

enum task_state { QUEUED, RUNNING, DEFERRED, COMPLETE };

/* One deferred-completion condition: the rank's cell >= expected, compared
 * unsigned as upstream's runtime polls it. */
struct condition {
    const int32_t *cell;
    int32_t expected;
    /* for the deadlock report */
    const struct pld__wbuf *buf;
    pl_shape offsets;
    const char *file;
    int line;
};

struct gtask {
    pld__task_fn fn;
    void *args; /* a copy, freed with the graph */
    const char *name, *file;
    int line;
    int kernel;     /* the scheduler enters and leaves the kernel around fn */
    int cube;       /* runs on a cube core (AIC), else on a vector core (AIV) */
    double release; /* when its submission ends: it starts no earlier (s) */
    int *deps;      /* indices of earlier tasks */
    int ndeps;
    int waiting; /* deps not yet complete: the task is ready at 0 */
    int *succ;   /* the later tasks that depend on it (one entry per dependence) */
    int nsucc, capsucc;
    enum task_state state;
    struct condition *conds;
    int nconds;
    struct pld__wait_info wait; /* the blocking wait it is in, if wait.active */
    /* A split-phase collective (pld_deferred): asked for by the next call,
     * and the rest of the call, run once the conditions hold */
    const char *defer_file;
    int defer_line;
    void (*rest)(void *);
    void *rest_arg; /* malloc'd; freed with the graph if the run ends first */
    int rest_due;   /* queued again to run `rest` */
    /* 1 + its race-detector snapshot (what it did and acquired, for what
     * depends on it), or 0 */
    int clock;
};

struct pld__graph {
    const char *file; /* where the scope was opened */
    int line;
    int32_t scope; /* this rank's scope number, so that an id from another is refused */
    struct gtask *t;
    int n, cap;
    int ncomplete;
    int cores;    /* the cores it runs on, once it runs: */
    int pools[2]; /* of those, vector cores (AIV) and cube cores (AIC), in that order */
    /* The ready tasks (QUEUED, every dependency complete) as a min-heap of
     * indices, so that the next to run is the first submitted, and the
     * deferred tasks in index order.  A completion updates its dependents
     * only; finding work never scans the graph, which made a chain of n
     * tasks O(n^2) on sim, where every idle core looked at every task each
     * time a task completed. */
    int *ready[2]; /* one heap per pool, vector and cube */
    int nready[2];
    int *deferred;
    int ndeferred;
    /* a task submitted outside any scope, run at once: its args are the
     * caller's, and no scope is open */
    int immediate;
};

/* Starts running g's tasks (taskgraph_run.c): 0, or an error code. */
int pld__graph_start(struct pld__graph *g);
/* The loop of one of g's cores (arg: the graph), for pld__run_cores. */
void pld__graph_core_loop(void *arg, int core);
/* Once g has run: the executing thread (its launcher) goes on after what
 * every task did and acquired, and the tasks' snapshots go. */
void pld__graph_join_clocks(struct pld__graph *g);

#endif
