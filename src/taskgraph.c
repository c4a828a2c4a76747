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
#include "internal.h"
#include "backend.h"

#include <pld/pld_embed.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    int kernel; /* the scheduler enters and leaves the kernel around fn */
    int cube;   /* runs on a cube core (AIC), else on a vector core (AIV) */
    int *deps;  /* indices of earlier tasks */
    int ndeps;
    int waiting; /* deps not yet complete: the task is ready at 0 */
    int *succ;   /* the later tasks that depend on it (one entry per dependence) */
    int nsucc, capsucc;
    enum task_state state;
    struct condition *conds;
    int nconds;
    struct pld__wait_info wait; /* the blocking wait it is in, if wait.active */
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

/* Runs task `t` on the calling core; the caller has made it RUNNING. */
static void run_one(struct gtask *t, int index)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    rk->task = index + 1;
    if (t->kernel)
        pld__incore_enter(t->file, t->line, t->name);
    t->fn(t->args);
    if (t->kernel && rk->kernel)
        pld__incore_exit();
    rk->task = 0;
}

static int condition_holds(const struct condition *c)
{
    return (uint32_t)__atomic_load_n(c->cell, __ATOMIC_ACQUIRE) >= (uint32_t)c->expected;
}

static int conditions_hold(const struct gtask *t)
{
    for (int k = 0; k < t->nconds; k++)
        if (!condition_holds(&t->conds[k]))
            return 0;
    return 1;
}

/* Makes task i ready, in the heap of its pool. */
static void ready_push(struct pld__graph *g, int i)
{
    int pool = g->t[i].cube, *h = g->ready[pool];
    int k = g->nready[pool]++;
    while (k > 0 && h[(k - 1) / 2] > i) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = i;
}

/* Takes the first submitted of the ready tasks of a pool, or -1. */
static int ready_pop(struct pld__graph *g, int pool)
{
    int *h = g->ready[pool], *n = &g->nready[pool];
    if (!*n)
        return -1;
    int top = h[0], last = h[--*n], k = 0;
    for (;;) {
        int c = 2 * k + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= last)
            break;
        h[k] = h[c];
        k = c;
    }
    h[k] = last;
    return top;
}

/* Before the graph runs: what has no dependency is ready (pushed in index
 * order, each array is already a heap).  Fails only for memory. */
static int graph_start(struct pld__graph *g)
{
    g->ready[0] = malloc((size_t)g->n * sizeof *g->ready[0]);
    g->ready[1] = malloc((size_t)g->n * sizeof *g->ready[1]);
    g->deferred = malloc((size_t)g->n * sizeof *g->deferred);
    if (!g->ready[0] || !g->ready[1] || !g->deferred)
        return -1;
    for (int i = 0; i < g->n; i++)
        if (g->t[i].waiting == 0)
            g->ready[g->t[i].cube][g->nready[g->t[i].cube]++] = i;
    return 0;
}

static void complete(struct pld__graph *g, struct gtask *t)
{
    t->state = COMPLETE;
    g->ncomplete++;
    for (int k = 0; k < t->nsucc; k++)
        if (--g->t[t->succ[k]].waiting == 0)
            ready_push(g, t->succ[k]);
}

/* A task that returned with conditions that do not hold yet, kept in
 * index order as the scan over every task it replaces went. */
static void defer(struct pld__graph *g, int i)
{
    int k = g->ndeferred++;
    while (k > 0 && g->deferred[k - 1] > i) {
        g->deferred[k] = g->deferred[k - 1];
        k--;
    }
    g->deferred[k] = i;
    g->t[i].state = DEFERRED;
}

/* Completes the deferred tasks whose conditions now hold; returns how
 * many.  What their notifiers wrote before is ordered before what depends
 * on them, as after a wait. */
static int settle_deferred(struct pld__graph *g)
{
    int done = 0, kept = 0;
    for (int d = 0; d < g->ndeferred; d++) {
        struct gtask *t = &g->t[g->deferred[d]];
        if (!conditions_hold(t)) {
            g->deferred[kept++] = g->deferred[d];
            continue;
        }
        for (int k = 0; k < t->nconds; k++)
            pld__races_acquire(pld__self(), t->conds[k].cell, PLD_WAIT_GE, t->conds[k].expected);
        complete(g, t);
        done++;
    }
    g->ndeferred = kept;
    return done;
}

/* A core of the graph, as the idle hook asks about it: its pool. */
struct core_of {
    struct pld__graph *g;
    int pool;
};

/* The idle hook's question: can this core do anything now? */
static int can_progress(void *arg)
{
    const struct core_of *c = arg;
    struct pld__graph *g = c->g;
    if (g->ncomplete == g->n || g->nready[c->pool])
        return 1;
    for (int d = 0; d < g->ndeferred; d++)
        if (conditions_hold(&g->t[g->deferred[d]]))
            return 1;
    return 0;
}

/* Without an idle hook (threads, mpi): look again every 20 us, for at most
 * the wait timeout, and then report what never became ready. */
static void idle_by_polling(struct core_of *c)
{
    struct pld__graph *g = c->g;
    double timeout = pld__R->cfg->wait_timeout > 0 ? pld__R->cfg->wait_timeout : 60.0;
    struct timespec t0, now, nap = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!can_progress(c)) {
        if (pld_run_aborting())
            pld__R->be->abort_run();
        nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) >
            timeout) {
            int pending = g->n - g->ncomplete;
            /* what holds the graph up, as the deadlock report says it on
             * sim: the deferred conditions, their cells, the tasks that
             * never started (this rank's: the others' run on) */
            if (!__atomic_load_n(&pld__R->error, __ATOMIC_ACQUIRE)) {
                fflush(stdout);
                pld__graph_report(pld__R, pld__self());
            }
            pld__fail(PLD_EDEADLOCK, g->file, g->line, "pld_manual_scope_end",
                      "%d task%s of this manual scope never became ready in %g s: each waits on "
                      "a deferred condition or a task that does not complete",
                      pending, pending == 1 ? "" : "s", timeout);
        }
    }
}

/* One core of the graph: takes ready tasks of its pool until every task
 * is complete.  Cores 0 .. pools[0]-1 are vector cores, the rest cube
 * cores. */
static void core_loop(void *arg, int core)
{
    struct pld__graph *g = arg;
    struct core_of me = {g, core >= g->pools[0]};
    const struct pld_backend *be = pld__R->be;
    int has_idle = be->size > offsetof(struct pld_backend, kick) && be->idle && be->kick;
    for (;;) {
        if (pld_run_aborting())
            return;
        int woke = settle_deferred(g);
        int i = ready_pop(g, me.pool);
        if (i >= 0) {
            struct gtask *t = &g->t[i];
            t->state = RUNNING;
            run_one(t, i);
            if (pld_run_aborting())
                return;
            if (has_idle)
                be->settle(); /* what depends on it starts at its end, not before */
            if (t->nconds && !conditions_hold(t)) {
                defer(g, i);
            } else {
                for (int k = 0; k < t->nconds; k++)
                    pld__races_acquire(pld__self(), t->conds[k].cell, PLD_WAIT_GE,
                                       t->conds[k].expected);
                complete(g, t);
                woke = 1;
            }
        } else if (g->ncomplete == g->n) {
            if (has_idle)
                be->kick(); /* the others may be idle, waiting for this */
            return;
        } else if (!woke) {
            if (has_idle)
                be->idle(can_progress, &me);
            else
                idle_by_polling(&me);
            continue;
        }
        if (woke && has_idle)
            be->kick();
    }
}

int pld__graph_stuck(const struct pld__run *R, int rank)
{
    const struct pld__graph *g = R->ranks[rank].graph;
    return g && g->cores && g->ncomplete < g->n;
}

void pld__graph_note_wait(const struct pld__rank *rk)
{
    if (rk->task && rk->graph)
        rk->graph->t[rk->task - 1].wait = rk->wait;
}

int pld__graph_report(const struct pld__run *R, int rank)
{
    const struct pld__graph *g = R->ranks[rank].graph;
    int first = -1, lines = 0;
    char what[160];
    if (!g || !g->cores)
        return -1;
    /* what holds the graph up: the waits its running tasks are blocked in,
     * and the conditions of its deferred tasks that do not hold */
    for (int i = 0; i < g->n; i++) {
        const struct gtask *t = &g->t[i];
        int n = -1;
        if (t->state == RUNNING && t->wait.active) {
            snprintf(what, sizeof what, "task %s waits for", t->name);
            n = pld__deadlock_wait_line(R, rank, what, &t->wait);
        } else if (t->state == DEFERRED) {
            for (int k = 0; k < t->nconds; k++) {
                const struct condition *c = &t->conds[k];
                if (condition_holds(c))
                    continue;
                struct pld__wait_info w = {.active = 1,
                                           .buf = c->buf,
                                           .offsets = c->offsets,
                                           .expected = c->expected,
                                           .cmp = PLD_WAIT_GE,
                                           .cellp = c->cell,
                                           .file = c->file,
                                           .line = c->line};
                snprintf(what, sizeof what, "task %s defers its completion until", t->name);
                int m = pld__deadlock_wait_line(R, rank, what, &w);
                if (n < 0)
                    n = m;
            }
        } else {
            continue;
        }
        if (lines++ == 0 || first < 0)
            first = n;
    }
    int queued = 0, running = 0, deferred = 0, held = -1;
    int pq[2] = {0, 0}, pr[2] = {0, 0};
    for (int i = 0; i < g->n; i++) {
        queued += g->t[i].state == QUEUED;
        running += g->t[i].state == RUNNING;
        deferred += g->t[i].state == DEFERRED;
        pq[g->t[i].cube] += g->t[i].state == QUEUED;
        pr[g->t[i].cube] += g->t[i].state == RUNNING;
    }
    /* a pool whose queued tasks cannot start: every one of its cores is
     * held by a running (blocked) task */
    for (int p = 0; p < 2 && held < 0; p++)
        if (pq[p] && g->pools[p] && pr[p] >= g->pools[p])
            held = p;
    if (!queued)
        return first;
    fprintf(stderr, "%s:%d: rank %d: %d task%s of this manual scope never started", g->file,
            g->line, rank, queued, queued == 1 ? "" : "s");
    if (held >= 0)
        fprintf(stderr,
                ": all %d %s cores are held by tasks blocked in waits (pld_system_defer_wait "
                "would free them)",
                g->pools[held], held ? "AIC" : "AIV");
    else if (deferred)
        fprintf(stderr, ": %d deferred task%s never completed", deferred, deferred == 1 ? "" : "s");
    else if (running)
        fprintf(stderr, ": %d task%s blocked in a wait never completed", running,
                running == 1 ? "" : "s");
    /* which: the first few in submission order, each where it was submitted */
    int named = 0;
    for (int i = 0; i < g->n && named < 4; i++) {
        const struct gtask *t = &g->t[i];
        if (t->state != QUEUED)
            continue;
        fprintf(stderr, "%s%s (%s:%d)",
                named         ? ", "
                : queued == 1 ? "; it is "
                              : "; they are ",
                t->name, t->file, t->line);
        named++;
    }
    if (named < queued)
        fprintf(stderr, " and %d more", queued - named);
    fputc('\n', stderr);
    return first;
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
    if (g->n > 0 && graph_start(g))
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory for %d tasks", g->n);
    if (g->n > 0)
        pld__run_cores(g->cores, core_loop, g);
    rk->graph = NULL;
    graph_free(g);
}

pld_task_id pld__at(const char *file, int line, const char *kernel, pld__task_fn fn,
                    const void *args, size_t size, struct pld_at_kw kw)
{
    return pld__at_task(file, line, kw.name ? kw.name : kernel, fn, args, size, kw.deps, kw.ndeps,
                        1, kw.cube);
}

pld_task_id pld__at_task(const char *file, int line, const char *name, pld__task_fn fn,
                         const void *args, size_t size, const pld_task_id *deps, int64_t ndeps,
                         int kernel, int cube)
{
    static const char op[] = "pld_at";
    struct pld__graph *g = graph_of(file, line, op);
    if (!fn)
        pld__fail(PLD_EINVAL, file, line, op, "the kernel is NULL");
    if (cube != 0 && cube != 1)
        pld__fail(PLD_EINVAL, file, line, op, ".cube is %d; expected 0 (a vector core) or 1", cube);
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
        *t = (struct gtask){.fn = fn,
                            .args = (void *)args,
                            .name = name,
                            .file = file,
                            .line = line,
                            .kernel = kernel,
                            .cube = cube};
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
        if (graph_start(one))
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        core_loop(one, cube); /* core 0 of its pool: 0 a vector core, 1 (pools[0] = 0) a cube */
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
    *t = (struct gtask){
        .fn = fn, .name = name, .file = file, .line = line, .kernel = kernel, .cube = cube};
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
    struct pld__rank *rk = pld__kernel_rank(file, line, op);
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
    pld__check_signal(file, line, op, "signal", signal, kw.offsets);
    pld__check_member(file, line, op, "signal", signal);
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
    int64_t at = signal.win_offset + pld__cell_offset(signal, kw.offsets);
    t->conds[t->nconds++] = (struct condition){.cell = pld__shm_cell(signal.win, me, at),
                                               .expected = (int32_t)kw.expected,
                                               .buf = signal.win,
                                               .offsets = kw.offsets,
                                               .file = file,
                                               .line = line};
    pld__races_access(me, signal.win, me, at, at + 4, 0, 1, op, file, line);
    pld__trace_op(PLD__OP_DEFER_WAIT, t0, -1, &signal, pld__cell_offset(signal, kw.offsets), 4,
                  kw.expected, file, line);
}
