/* taskgraph.c: a device's task graph (upstream's pl.manual_scope with
 * pl.at(level=CORE_GROUP, deps=[...]) tasks) and deferred completion
 * (pld.system.defer_wait).
 *
 * A per-device orchestrator opens a manual scope, submits kernels as tasks
 * with explicit dependencies, and closes the scope; the tasks then run on
 * the device's AIV cores (dev.aiv_cores), each on the first free core once
 * every task it depends on is complete, in submission order among the ready
 * ones.  Closing the scope returns when every task is complete.
 *
 * A task that calls defer_wait registers conditions on its rank's signal
 * cells and returns: its core is free at once, but the task stays
 * incomplete until every condition holds, so what depends on it waits
 * without holding a core.  A blocking wait holds its core instead, which is
 * why a graph that fills every core with blocking waiters before the task
 * that would satisfy them deadlocks, as it does on hardware.
 *
 * The cores are pld__run_cores' cores.  An idle core (nothing ready, some
 * task not complete) blocks in the backend's idle hook, which looks again
 * whenever a notify lands on the rank or another core completes a task.  A
 * backend without cores runs the graph on one core; without an idle hook it
 * polls (docs/python.md says what that changes). */
#include "taskgraph.h"
#include "observe.h"
#include "cost.h"

#include <pld/pld_embed.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Scope numbers per rank would be as good; one counter is simpler and
 * still makes each scope's ids its own.  Atomic: on the threads backend
 * every rank opens scopes on a thread of its own. */
static int32_t scopes_opened;

static struct pld__graph *graph_of(const char *file, int line, const char *op)
{
    pld__require_level(file, line, op, PLD__LVL_DEVICE);
    return pld__R->ranks[pld__self()].graph;
}

void pld__scope_begin(const char *file, int line)
{
    static const char op[] = "pld_manual_scope_begin";
    struct pld__graph *open = graph_of(file, line, op);
    if (open)
        pld__fail(PLD_EINVAL, file, line, op,
                  "a manual scope is already open (from %s:%d): manual scopes do not nest",
                  open->file, open->line);
    struct pld__graph *g = calloc(1, sizeof *g);
    if (!g)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    g->file = file;
    g->line = line;
    g->scope = __atomic_add_fetch(&scopes_opened, 1, __ATOMIC_RELAXED);
    pld__R->ranks[pld__self()].graph = g;
}

static void graph_free(struct pld__graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++) {
        if (!g->immediate)
            free(g->t[i].args);
        free(g->t[i].deps);
        free(g->t[i].succ);
        free(g->t[i].conds);
        free(g->t[i].rest_arg);
    }
    free(g->t);
    free(g->ready[0]);
    free(g->ready[1]);
    free(g->deferred);
    free(g);
}

void pld__graphs_free(struct pld__run *R)
{
    for (int r = 0; R->ranks && r < R->P; r++) {
        graph_free(R->ranks[r].graph);
        R->ranks[r].graph = NULL;
    }
}

void pld__graph_check_closed(int rank, const char *fn_name)
{
    struct pld__rank *rk = &pld__R->ranks[rank];
    const struct pld__graph *g = rk->graph;
    if (!g || g->immediate || pld_run_aborting())
        return;
    /* the scope's tasks run only when it ends: without the end they never
     * would, and the run would succeed without them */
    pld__fail(PLD_EINVAL, g->file, g->line, "pld_manual_scope_begin",
              "per-device function %s returned with this manual scope open, so its %d submitted "
              "task%s never ran; end the scope with pld_manual_scope_end before returning",
              fn_name, g->n, g->n == 1 ? "" : "s");
}

void pld__scope_end(const char *file, int line)
{
    static const char op[] = "pld_manual_scope_end";
    struct pld__graph *g = graph_of(file, line, op);
    if (!g)
        pld__fail(PLD_EINVAL, file, line, op, "no manual scope is open on this rank");
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    /* as many cores of each kind as it has tasks for, up to the device's:
     * cube tasks (AIC functions) run beside vector ones, on cores of their
     * own (docs/models.md, "The cube unit") */
    int ncube = 0;
    for (int i = 0; i < g->n; i++)
        ncube += g->t[i].cube;
    int have[2] = {(int)rk->dev.aiv_cores, (int)rk->dev.aic_cores}, want[2] = {g->n - ncube, ncube};
    for (int p = 0; p < 2; p++)
        g->pools[p] = want[p] == 0 ? 0 : want[p] < have[p] ? want[p] : have[p] < 1 ? 1 : have[p];
    g->cores = g->pools[0] + g->pools[1];
    if (g->n > 0 && pld__graph_start(g))
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory for %d tasks", g->n);
    if (g->n > 0) {
        pld__gm_cube_cores(g->pools[1]); /* how much its cores may ask of GM */
        pld__run_cores(g->cores, pld__graph_core_loop, g);
        pld__gm_cube_cores(-g->pools[1]);
        pld__graph_join_clocks(g);
    }
    rk->graph = NULL;
    graph_free(g);
}

/* When the orchestrator's submission of one more task ends: submit_lat
 * after its last one (upstream's runtime submits a dispatch's tasks one at
 * a time, on one AICPU thread, from the dispatch's start).  Its clock is
 * its submissions' alone: it does not wait for the tasks, which pldsim runs
 * in program order or at a scope's end, and what it does itself (a
 * collective, a read) ran on the rank's clock before anything after it.  So
 * a task starts no earlier than this, and a graph's tasks no faster than
 * one each submit_lat.  `block`: a later block of the task submitted last
 * (an SPMD task's), which upstream submits once. */
static double submission_end(struct pld__rank *rk, int block)
{
    if (!block)
        rk->submitted += rk->dev.submit_lat;
    return rk->submitted;
}

/* A task as submitted, its args not yet set. */
static struct gtask submitted_task(pld__task_fn fn, const char *name, const char *file, int line,
                                   int kernel, int cube, int block)
{
    return (struct gtask){.fn = fn,
                          .name = name,
                          .file = file,
                          .line = line,
                          .kernel = kernel,
                          .cube = cube,
                          .release = submission_end(&pld__R->ranks[pld__self()], block)};
}

pld_task_id pld__at(const char *file, int line, const char *kernel, pld__task_fn fn,
                    const void *args, size_t size, struct pld_at_kw kw)
{
    return pld__at_task(file, line, kw.name ? kw.name : kernel, fn, args, size, kw.deps, kw.ndeps,
                        1, kw.cube, 0);
}

pld_task_id pld__at_task(const char *file, int line, const char *name, pld__task_fn fn,
                         const void *args, size_t size, const pld_task_id *deps, int64_t ndeps,
                         int kernel, int cube, int block)
{
    static const char op[] = "pld_at";
    struct pld__graph *g = graph_of(file, line, op);
    if (!fn)
        pld__fail(PLD_EINVAL, file, line, op, "the kernel is NULL");
    if (cube != 0 && cube != 1)
        pld__fail(PLD_EINVAL, file, line, op, ".cube is %d; expected 0 (a vector core) or 1", cube);
    if (block != 0 && block != 1)
        pld__fail(PLD_EINVAL, file, line, op,
                  "block is %d; expected 0 (a task of its own) or 1 (a further block of the last)",
                  block);
    if (block && (!g || g->n == 0))
        pld__fail(PLD_EINVAL, file, line, op,
                  "a further block of an SPMD task follows its first block in the same manual "
                  "scope; %s",
                  g ? "this scope has no task yet" : "no manual scope is open");
    if (ndeps < 0 || (ndeps > 0 && !deps))
        pld__fail(PLD_EINVAL, file, line, op, ".ndeps is %lld with %s .deps", (long long)ndeps,
                  deps ? "a" : "no");
    if (!g) {
        /* outside a manual scope a task runs now, in program order */
        for (int64_t k = 0; k < ndeps; k++)
            if (deps[k].scope != 0)
                pld__fail(PLD_EINVAL, file, line, op,
                          "dependency %lld is a task of a manual scope that has ended",
                          (long long)k);
        /* a one-task graph, on the heap: a run that ends while it runs
         * (another rank's error) frees it with the scopes; on the stack it
         * once was freed from a frame that was gone (SIGSEGV) */
        struct pld__graph *one = calloc(1, sizeof *one);
        struct gtask *t = calloc(1, sizeof *t);
        if (!one || !t) {
            free(one);
            free(t);
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        }
        *t = submitted_task(fn, name, file, line, kernel, cube, block);
        t->args = (void *)args;
        *one = (struct pld__graph){.file = file,
                                   .line = line,
                                   .t = t,
                                   .n = 1,
                                   .cap = 1,
                                   .cores = 1,
                                   .pools = {!cube, cube},
                                   .immediate = 1};
        struct pld__rank *rk = &pld__R->ranks[pld__self()];
        rk->graph = one;
        if (pld__graph_start(one))
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        pld__graph_core_loop(
            one, cube); /* core 0 of its pool: 0 a vector core, 1 (pools[0] = 0) a cube */
        pld__graph_join_clocks(one);
        rk->graph = NULL;
        graph_free(one);
        return (pld_task_id){.scope = 0, .index = -1};
    }
    for (int64_t k = 0; k < ndeps; k++) {
        if (deps[k].scope != g->scope)
            pld__fail(PLD_EINVAL, file, line, op,
                      "dependency %lld is not a task of this manual scope (opened at %s:%d)",
                      (long long)k, g->file, g->line);
        if (deps[k].index < 0 || deps[k].index >= g->n)
            pld__fail(PLD_EINVAL, file, line, op, "dependency %lld names task %d, of %d submitted",
                      (long long)k, (int)deps[k].index, g->n);
    }
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        struct gtask *nt = realloc(g->t, (size_t)cap * sizeof *nt);
        if (!nt)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory for %d tasks", cap);
        g->t = nt;
        g->cap = cap;
    }
    struct gtask *t = &g->t[g->n];
    *t = submitted_task(fn, name, file, line, kernel, cube, block);
    if (size) {
        t->args = malloc(size);
        if (!t->args)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        memcpy(t->args, args, size);
    } else {
        t->args = (void *)args;
    }
    if (ndeps) {
        t->deps = malloc((size_t)ndeps * sizeof *t->deps);
        if (!t->deps)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        for (int64_t k = 0; k < ndeps; k++)
            t->deps[k] = deps[k].index;
        t->ndeps = t->waiting = (int)ndeps;
        for (int64_t k = 0; k < ndeps; k++) {
            struct gtask *d = &g->t[deps[k].index];
            if (d->nsucc == d->capsucc) {
                int cap = d->capsucc ? 2 * d->capsucc : 4;
                int *ns = realloc(d->succ, (size_t)cap * sizeof *ns);
                if (!ns)
                    pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
                d->succ = ns;
                d->capsucc = cap;
            }
            d->succ[d->nsucc++] = g->n;
        }
    }
    return (pld_task_id){.scope = g->scope, .index = g->n++};
}

void pld__defer_wait(const char *file, int line, pld_dtensor signal, struct pld_wait_kw kw)
{
    static const char op[] = "pld_system_defer_wait";
    struct pld__rank *rk = pld__op_rank(file, line, op);
    int me = pld__self();
    double t0 = pld__now();
    struct pld__graph *g = rk->graph;
    if (!rk->task || !g)
        pld__fail(PLD_EINVAL, file, line, op,
                  "defer_wait belongs in a task of its own (pld_at; in Python, pl.at(level="
                  "CORE_GROUP)); kernel %s was not submitted as one",
                  rk->kernel);
    if (pld__R->be->caps & PLD_CAP_DISTRIBUTED)
        pld__fail(PLD_EINVAL, file, line, op,
                  "deferred completion needs the sim or threads backend; on %s use pld_system_wait",
                  pld__R->be->name);
    if (kw.expected == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .expected");
    if (kw.cmp == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .cmp (PLD_WAIT_GE)");
    if (kw.cmp != PLD_WAIT_GE)
        pld__fail(PLD_EINVAL, file, line, op,
                  ".cmp is %s; deferred completion supports only PLD_WAIT_GE",
                  kw.cmp == PLD_WAIT_EQ ? "PLD_WAIT_EQ" : "not a pld_wait_cmp");
    if (kw.expected < 0 || kw.expected > INT32_MAX)
        pld__fail(PLD_EINVAL, file, line, op,
                  "expected %lld is outside [0, 2147483647]: the runtime compares the counter "
                  "unsigned, so a negative threshold would hold at once",
                  (long long)kw.expected);
    pld__check_signal(file, line, op, "signal", &signal, kw.offsets);
    pld__check_member(file, line, op, "signal", &signal);
    struct gtask *t = &g->t[rk->task - 1];
    if (t->nconds == MAX_CONDITIONS)
        pld__fail(PLD_EINVAL, file, line, op,
                  "task %s registers more than %d deferred conditions, upstream's limit", t->name,
                  MAX_CONDITIONS);
    if (!t->conds) {
        t->conds = malloc(MAX_CONDITIONS * sizeof *t->conds);
        if (!t->conds)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    }
    int64_t at = signal.win_offset + pld__cell_offset(&signal, &kw.offsets);
    t->conds[t->nconds++] = (struct condition){.cell = pld__shm_cell(signal.win, me, at),
                                               .expected = (int32_t)kw.expected,
                                               .buf = signal.win,
                                               .offsets = kw.offsets,
                                               .file = file,
                                               .line = line};
    pld__observe(&(struct pld__observed){.op = PLD__OP_DEFER_WAIT,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .cell = {PLD__CELL_READ, signal.win, me, at},
                                         .peer = -1,
                                         .t = &signal,
                                         .elem_off = pld__cell_offset(&signal, &kw.offsets),
                                         .bytes = 4,
                                         .value = kw.expected});
}

/* The running task of this rank, for pld_deferred and its collective. */
static struct gtask *running_task(const char *file, int line, const char *op)
{
    int self = pld__R ? pld__self() : PLD__NOBODY;
    if (self != PLD__NOBODY && (self < 0 || !pld__R->ranks[self].kernel))
        pld__fail(PLD_EINVAL, file, line, op,
                  "a split-phase collective (defer=True) belongs in a pl_at task of a manual scope "
                  "(in Python, pl.at(level=CORE_GROUP) in pl.manual_scope()); called by %s, a "
                  "collective is a builtin kernel, which has no split form",
                  self < 0 ? "the host orchestrator" : "a per-device function");
    struct pld__rank *rk = pld__op_rank(file, line, op);
    if (!rk->task || !rk->graph)
        pld__fail(PLD_EINVAL, file, line, op,
                  "a split-phase collective (defer=True) belongs in a task of its own (pld_at; in "
                  "Python, pl.at(level=CORE_GROUP)); kernel %s was not submitted as one",
                  rk->kernel);
    return &rk->graph->t[rk->task - 1];
}

void pld__defer_next(const char *file, int line)
{
    static const char op[] = "pld_deferred";
    struct gtask *t = running_task(file, line, op);
    if (t->rest || t->defer_file)
        pld__fail(PLD_EINVAL, file, line, op,
                  "task %s already has a split-phase collective (from %s:%d); give each its own "
                  "task, as upstream's compiler places them",
                  t->name, t->defer_file, t->defer_line);
    if (pld__R->be->caps & PLD_CAP_DISTRIBUTED)
        pld__fail(PLD_EINVAL, file, line, op,
                  "split-phase collectives need the sim or threads backend; on %s call the "
                  "collective without defer",
                  pld__R->be->name);
    t->defer_file = file;
    t->defer_line = line;
}

/* The flag pld__defer_next sets is for the call it wraps and no other:
 * left set, it would make the next plain collective of the task split-phase
 * unasked, so a call that did not take it is refused here, at its line. */
pld_dtensor pld__defer_check(const char *file, int line, pld_dtensor result)
{
    struct gtask *t = running_task(file, line, "pld_deferred");
    if (t->defer_file && !t->rest)
        pld__fail(PLD_EINVAL, file, line, "pld_deferred",
                  "the call it wraps is not a split-phase collective (allgather, all_to_all, "
                  "all_to_all_v, broadcast, barrier)");
    return result;
}

int pld__defer_take(const char *file, int line, const char *op, int conditions)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    if (!rk->task || !rk->graph)
        return 0;
    struct gtask *t = &rk->graph->t[rk->task - 1];
    if (!t->defer_file || t->rest)
        return 0;
    if (conditions > MAX_CONDITIONS)
        pld__fail(PLD_EINVAL, file, line, op,
                  "defer=True over %d ranks needs %d deferred conditions, and upstream's runtime "
                  "allows %d per task; call it without defer",
                  conditions + 1, conditions, MAX_CONDITIONS);
    return 1;
}

void pld__defer_rest(void (*rest)(void *), void *arg)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    struct gtask *t = &rk->graph->t[rk->task - 1];
    t->rest = rest;
    t->rest_arg = arg;
}
