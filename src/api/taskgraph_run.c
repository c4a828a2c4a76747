/* taskgraph_run.c: the scheduler of a device's task graph (taskgraph.c
 * says what a graph is): the ready tasks per pool of cores, deferred
 * completions, one loop per core, and what holds a graph up when the run
 * deadlocks. */
#include "taskgraph.h"
#include "detect.h"

#include <pld/pld_embed.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Runs task `t` on the calling core, or the rest of its split-phase
 * collective once that is due; the caller has made it RUNNING. */
static void run_one(const struct pld__graph *g, struct gtask *t, int index)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    void (*rest)(void *) = t->rest_due ? t->rest : NULL;
    void *arg = t->rest_arg;
    rk->task = index + 1;
    /* program order is per core: the task starts after what its
     * dependencies did (the rest after what the task did and acquired) */
    int me = pld__self();
    if (rest)
        pld__races_snapshot_join(me, t->clock - 1);
    for (int k = 0; k < t->ndeps; k++)
        if (!rest)
            pld__races_snapshot_join(me, g->t[t->deps[k]].clock - 1);
    /* a front end's task enters its kernel itself; the rest has only us */
    int enter = t->kernel || rest;
    if (enter)
        pld__incore_enter(t->file, t->line, t->name);
    if (rest) {
        t->rest = NULL;
        t->rest_arg = NULL;
        t->rest_due = 0;
        rest(arg); /* frees arg */
    } else {
        t->fn(t->args);
    }
    if (enter && rk->kernel)
        pld__incore_exit();
    rk->task = 0;
    t->clock = pld__races_snapshot(me, t->clock - 1) + 1;
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
int pld__graph_start(struct pld__graph *g)
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

/* A task whose conditions hold: what its notifiers wrote before is ordered
 * before what depends on it, as after a wait.  It completes, or, with the
 * rest of a split-phase collective to run, is queued again for a core:
 * its conditions are spent (the rest takes the credits back). */
static void finish(struct pld__graph *g, struct gtask *t, int i)
{
    for (int k = 0; k < t->nconds; k++)
        pld__races_snapshot_acquire(t->clock - 1, t->conds[k].cell, t->conds[k].expected);
    if (t->rest) {
        t->nconds = 0;
        t->rest_due = 1;
        t->state = QUEUED;
        ready_push(g, i);
    } else {
        complete(g, t);
    }
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
        finish(g, t, g->deferred[d]);
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
void pld__graph_core_loop(void *arg, int core)
{
    struct pld__graph *g = arg;
    struct core_of me = {g, core >= g->pools[0]};
    const struct pld_backend *be = pld__R->be;
    int has_idle = be->size > offsetof(struct pld_backend, kick) && be->idle && be->kick;
    for (;;) {
        if (pld_run_aborting())
            return;
        int woke = settle_deferred(g);
        int first = g->nready[me.pool] ? g->ready[me.pool][0] : -1;
        double early = first >= 0 ? g->t[first].release - pld__now() : 0;
        if (early > 0 && has_idle) {
            /* The first ready task is not submitted yet.  The core waits for
             * it a submission at a time, free: a task submitted before it
             * that becomes ready meanwhile (its dependency ends) goes first,
             * as soon as the next submission ends, rather than after it. */
            double step = pld__R->ranks[pld__self()].dev.submit_lat;
            be->charge(step > 0 && step < early ? step : early);
            be->settle();
            if (woke)
                be->kick();
            continue;
        }
        int i = ready_pop(g, me.pool);
        if (i >= 0) {
            struct gtask *t = &g->t[i];
            t->state = RUNNING;
            if (early > 0) /* a backend that does not keep time: nothing */
                be->charge(early);
            run_one(g, t, i);
            if (pld_run_aborting())
                return;
            if (has_idle)
                be->settle(); /* what depends on it starts at its end, not before */
            if (t->nconds && !conditions_hold(t)) {
                defer(g, i);
            } else {
                finish(g, t, i);
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

void pld__graph_join_clocks(struct pld__graph *g)
{
    int me = pld__self();
    for (int i = 0; i < g->n; i++)
        if (g->t[i].clock) {
            pld__races_snapshot_join(me, g->t[i].clock - 1);
            pld__races_snapshot_free(g->t[i].clock - 1);
            g->t[i].clock = 0;
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
