/* pld_tasks.h: a device's task graph (manual scopes, pld_at tasks and
 * their dependencies) and deferred completion (pld_system_defer_wait, the
 * split-phase collectives).  Included by <pld/pld.h>; not on its own. */
#ifndef PLD_PLD_TASKS_H
#define PLD_PLD_TASKS_H

#ifndef PLD_PLD_H
#error "include <pld/pld.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Task graphs and deferred completion                                 */

/* A task of a rank's manual scope (pld_at's result), for .deps. */
typedef struct pld_task_id {
    int32_t scope; /* which scope it belongs to; 0: it ran at once, outside one */
    int32_t index; /* its place in submission order */
} pld_task_id;

/* pld_manual_scope_begin() ... pld_manual_scope_end(): from a per-device
 * orchestrator, opens a scope whose pld_at tasks form one task graph
 * (upstream's `with pl.manual_scope():`); the end runs the graph on the
 * device's dev.aiv_cores cores and returns when every task is complete.
 * Errors: not in a per-device orchestrator, scopes nested, an end with no
 * begin; a graph that cannot finish ends the run with a deadlock report. */
#define pld_manual_scope_begin() pld__scope_begin(PLD__SRC)
#define pld_manual_scope_end()   pld__scope_end(PLD__SRC)
void pld__scope_begin(const char *file, int line);
void pld__scope_end(const char *file, int line);

struct pld_at_kw {
    const pld_task_id *deps; /* tasks of this scope that must complete first */
    int64_t ndeps;
    const char *name; /* the kernel's name in traces (default: the function's) */
    int cube;         /* 1: an AIC kernel, run on one of the device's aic_cores cube cores */
};
/* pld_at(kernel, args[, .deps, .ndeps, .name, .cube]): submits
 * kernel(&args) as a task on one AIV core, or with .cube = 1 on one AIC
 * core (upstream's pl.at(level=CORE_GROUP, deps=[...]); an AIC function's
 * task).  A scope's cube tasks run beside its vector tasks, on cube cores
 * of their own.
 * In a manual scope it runs, with a fresh UB, on the first free core once
 * every task in .deps is complete; outside one it runs at once, like
 * pl_incore.  `args` is copied.  Errors: not in a per-device orchestrator,
 * a dependency from another scope or out of range. */
#define pld_at(kernel, args, ...)                                                                  \
    ((void)sizeof(((kernel)(&(args))), 0),                                                         \
     pld__at(PLD__SRC, #kernel, (pld__task_fn)(void (*)(void))(kernel), &(args), sizeof(args),     \
             PLD__KW(struct pld_at_kw, __VA_ARGS__)))
pld_task_id pld__at(const char *file, int line, const char *kernel, pld__task_fn fn,
                    const void *args, size_t size, struct pld_at_kw kw);
/* pld_at for a language front end: `kernel` = 0 leaves entering and
 * leaving the kernel to fn (which then names it itself); `block` = 1 makes
 * the task a further block of the task submitted last (an SPMD task's),
 * which the orchestrator submitted once, so it pays no submit_lat. */
pld_task_id pld__at_task(const char *file, int line, const char *name, pld__task_fn fn,
                         const void *args, size_t size, const pld_task_id *deps, int64_t ndeps,
                         int kernel, int cube, int block);

/* pld_system_defer_wait(signal, .offsets, .expected, .cmp = PLD_WAIT_GE):
 * in a task submitted with pld_at, registers "the rank's own cell >=
 * expected" (compared unsigned, as upstream's runtime polls it) as a
 * condition of the task's completion and returns at once: the core is free
 * when the kernel ends, and the task completes, releasing what depends on
 * it, once every condition it registered holds.  At most 64 per task.
 * sim and threads only.  Errors: not in a pld_at task, .cmp other than
 * PLD_WAIT_GE, expected outside [0, INT32_MAX], the wait's signal errors. */
#define pld_system_defer_wait(signal, ...)                                                         \
    pld__defer_wait(PLD__SRC, (signal),                                                            \
                    PLD__KW(struct pld_wait_kw, .expected = PLD__MISSING, __VA_ARGS__))
void pld__defer_wait(const char *file, int line, pld_dtensor signal, struct pld_wait_kw kw);

/* pld_deferred(collective call): the split-phase form of a mesh builtin
 * (upstream's defer=True): pld_tensor_allgather, _all_to_all,
 * _all_to_all_v, _broadcast or _barrier, called in a pld_at task.  The
 * call makes its puts and its barrier's notifies and returns; the barrier's
 * waits become deferred conditions of the task (as pld_system_defer_wait),
 * so the core is free for other tasks at once.  When they hold, the rest of
 * the call (broadcast's get from root, the self-clearing epilogue) runs on
 * a free core, and only then does the task complete: what depends on it
 * sees the result.  Errors: not in a pld_at task, a second one in the same
 * task, a collective that has no split form (allreduce, reduce_scatter),
 * more than 64 peers (upstream's limit of conditions per task), a wrapped
 * call that is not one of those collectives (refused at its line; a call
 * that returns no pld_dtensor does not compile). */
#define pld_deferred(call) pld__defer_check(PLD__SRC, (pld__defer_next(PLD__SRC), (call)))
void pld__defer_next(const char *file, int line);
pld_dtensor pld__defer_check(const char *file, int line, pld_dtensor result);

#ifdef __cplusplus
}
#endif
#endif /* PLD_PLD_TASKS_H */
