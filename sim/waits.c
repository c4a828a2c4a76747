/* waits.c: the SimGrid backend's signals: a notify to another rank lands
 * once its route has carried it (landing.c), and wakes the owner's wait
 * only when the update satisfies it; waits and idle cores block on a
 * semaphore; the last actor to block finds a deadlock; an abort wakes
 * everyone to leave. */
#include "engine.h"

#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(pld_sim_waits, "pldsim: signals, waits and deadlocks");

int pld__sim_notify(int owner, const struct pld__cell_ref *ref, pld_notify_op op, int32_t value,
                    struct pld__cost *c)
{
    int me = sim_self();
    struct sim_rank *rk = &pld__sim->rk[me];
    rk->ahead += c->before;
    c->t_start = simgrid_get_clock() + rk->ahead;
    pld__sim_leave_if_aborted(); /* and flushes any earlier wake */
    int32_t *cell = ref->addr;
    if (owner != me) {
        /* the update is due at the owner once the route has carried it;
         * it lands then (landing.c), and the notifier goes on at that time
         * on its own clock */
        double lat, bw;
        if (pld__sim_route(rk, me, owner, &lat, &bw))
            return PLD_EPLATFORM;
        rk->ahead += lat + (bw > 0 ? c->bytes / bw : 0);
        c->t_end = simgrid_get_clock() + rk->ahead;
        int rc = pld__sim_land_later(owner, cell, op, value, c->t_end, c);
        if (rc)
            return rc;
        pld__progress_tick(&pld__sim->progress, pld__sim->env->transfers);
        rk->ahead += c->after;
        return 0;
    }
    /* Another core of the rank may be waiting on the cell: it must see the
     * update at the notifier's model time, not at SimGrid's, which a
     * notifier running ahead (a cube core's pipes) is past by far. */
    if (rk->cores)
        pld__sim_catch_up(&rk->ahead);
    c->t_end = simgrid_get_clock() + rk->ahead;
    if (op == PLD_NOTIFY_SET)
        *cell = value;
    else
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)value); /* wraps like the hardware */
    if (pld__sim->rk[owner].w.cell == cell || pld__sim->rk[owner].w.ready ||
        pld__sim->rk[owner].cores)
        pld__sim->wake = owner + 1;
    rk->ahead += c->after;
    return 0;
}

/* Is every rank finished or blocked in a wait that nothing can satisfy,
 * with the host done?  Then no notify can ever come.  Found here, by the
 * last actor to block or finish, rather than by SimGrid: SimGrid kills the
 * actors it finds deadlocked, which unwinds their stacks under an embedded
 * interpreter (pld_embed.h); this way every rank leaves as after an error.
 * The report and the simulated time are the same either way. */
static int stuck(const struct waiter *w)
{
    if (w->cell)
        return !pld__wait_holds(*w->cell, w->cmp, w->expected);
    return w->ready && !w->ready(w->ready_arg);
}

static int all_stuck(void)
{
    int blocked = 0;
    if (!pld__sim->host_done || pld__sim->aborted || pld__sim->env->cfg->wait_timeout > 0 ||
        pld__sim->inflight) /* an update in flight may still release a wait */
        return 0;
    for (int r = 0; r < pld__sim->env->P; r++) {
        const struct sim_rank *rk = &pld__sim->rk[r];
        if (rk->done)
            continue;
        /* every core of the rank blocked for good: its own actor (or
         * waiting for the others to end) and each of the others.  A
         * joining actor whose cores have ended but who has not yet run to
         * take their release is about to run: the host that ended at that
         * instant took it for a deadlock (0 ranks blocked, 1 running). */
        if (!rk->joining && !stuck(&rk->w))
            return 0;
        if (rk->joining && rk->grid && rk->grid->pending > 0)
            return 0;
        for (const struct sim_core *c = rk->cores; c; c = c->next)
            if (!stuck(&c->w))
                return 0;
        blocked++;
    }
    return blocked > 0;
}

void pld__sim_declare_deadlock_if_stuck(void)
{
    if (!all_stuck())
        return;
    pld__sim->deadlocked = 1;
    pld__sim->fe->report_deadlock();
    pld__sim->fe->fail_first(PLD_EDEADLOCK);
    pld__sim_abort_run();
}

void pld__sim_wake_if_stuck(void)
{
    if (!all_stuck())
        return;
    for (int r = 0; r < pld__sim->env->P; r++)
        if (!pld__sim->rk[r].done) {
            pld__sim_wake_waiter(&pld__sim->rk[r], 1);
            return;
        }
}

/* Blocks the caller on its waiter `w` until what `want` waits for (a
 * cell's comparison, or a ready predicate) holds: a wake re-arms it, and
 * with a --wait-timeout the run ends with the report at t + the timeout.
 * The caller resumes at the later of `t`, its model time, and the wake. */
static void block(struct sim_rank *rk, struct waiter *w, const struct waiter *want, double t)
{
    double timeout = pld__sim->env->cfg->wait_timeout, deadline = t + timeout;
    int blocked = 0;
    while (!pld__sim->aborted &&
           !(want->cell ? pld__wait_holds(*want->cell, want->cmp, want->expected)
                        : want->ready(want->ready_arg))) {
        w->cell = want->cell;
        w->cmp = want->cmp;
        w->expected = want->expected;
        w->ready = want->ready;
        w->ready_arg = want->ready_arg;
        blocked = 1;
        if (timeout <= 0) {
            pld__sim_declare_deadlock_if_stuck();
            SIMCALL(sg_sem_acquire(w->wake));
            continue;
        }
        double left = deadline - simgrid_get_clock();
        int timed_out = left <= 0;
        if (!timed_out)
            SIMCALL(timed_out = sg_sem_acquire_timeout(w->wake, left));
        if (timed_out) {
            /* like hardware's spin limit: this wait will not complete */
            w->cell = NULL;
            w->ready = NULL;
            rk->ahead = 0;
            pld__sim->fe->note(PLD__NOTE_TIMED_OUT);
            pld__sim->fe->report_deadlock();
            pld__sim->fe->fail_first(PLD_EDEADLOCK);
            pld__sim_abort_run();
        }
    }
    w->cell = NULL;
    w->ready = NULL;
    if (blocked)
        resume_at(&rk->ahead, t);
    pld__sim_leave_if_aborted();
}

/* A wait that holds when it is reached ends at the caller's model time: the
 * update that satisfied it was visible before SimGrid's clock, which is not
 * past that time.  So does one that holds once the rank's updates due by
 * that time have landed, which they do now instead of by their timer (the
 * rank would otherwise block until SimGrid's clock catches up with a time
 * it has passed).  For WAIT_GE this assumes the cell does not fall again
 * before then (only a negative add or a Set from another rank could make
 * it); an EQ wait catches up first, so that it sees the cell as it is at
 * its model time. */
void pld__sim_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected)
{
    struct sim_rank *rk = &pld__sim->rk[sim_self()];
    struct waiter *w = pld__sim->act ? &pld__sim->act->w : &rk->w;
    const int32_t *cell = ref->addr;
    if (cmp == PLD_WAIT_EQ)
        pld__sim_catch_up(&rk->ahead);
    pld__sim_flush_wakes(); /* before this actor can block */
    double t = simgrid_get_clock() + rk->ahead;
    if (!pld__wait_holds(*cell, cmp, expected))
        pld__sim_land_early(sim_self(), t);
    struct waiter want = {.cell = cell, .cmp = cmp, .expected = expected};
    block(rk, w, &want, t);
}

/* An idle core of a task graph: blocks until ready(arg), which a notify
 * landing on the rank or a kick from another of its cores may make true.
 * It resumes at the later of its own model time and the wake's. */
void pld__sim_idle(int (*ready)(void *arg), void *arg)
{
    struct sim_rank *rk = &pld__sim->rk[sim_self()];
    struct waiter *w = pld__sim->act ? &pld__sim->act->w : &rk->w;
    pld__sim_flush_wakes();
    struct waiter want = {.ready = ready, .ready_arg = arg};
    block(rk, w, &want, simgrid_get_clock() + rk->ahead);
}

/* A core completed a task: at its model time, the rank's idle cores look
 * again. */
void pld__sim_kick(void)
{
    int me = sim_self();
    struct sim_rank *rk = &pld__sim->rk[me];
    pld__sim_catch_up(&rk->ahead);
    pld__sim_wake_waiter(rk, 0);
}

/* Ends the run after an error.  Killing the other actors could catch one in
 * the middle of a transfer, which SimGrid reports with a backtrace; instead
 * each actor leaves at its next step into the backend, and waiters are
 * woken to notice. */
_Noreturn void pld__sim_abort_run(void)
{
    pld__sim->aborted = 1;
    for (int r = 0; r < pld__sim->env->P; r++) {
        /* the grid first: a woken rank leaves, and the grid is on its stack */
        struct sim_grid *grid = pld__sim->rk[r].grid;
        pld__sim->rk[r].grid = NULL;
        if (grid)
            SIMCALL(sg_sem_release(grid->done));
        pld__sim_wake_waiter(&pld__sim->rk[r], 1);
        if (pld__sim->rk[r].dma_waiting) {
            pld__sim->rk[r].dma_waiting = NULL;
            SIMCALL(sg_sem_release(pld__sim->rk[r].dma_wake));
        }
        if (pld__sim->rk[r].dma_mtx) {
            SIMCALL(sg_mutex_lock(pld__sim->rk[r].dma_mtx));
            SIMCALL(sg_cond_notify_all(pld__sim->rk[r].dma_cond));
            SIMCALL(sg_mutex_unlock(pld__sim->rk[r].dma_mtx));
        }
        SIMCALL(sg_mutex_lock(pld__sim->rk[r].mtx));
        SIMCALL(sg_cond_notify_all(pld__sim->rk[r].cond));
        SIMCALL(sg_mutex_unlock(pld__sim->rk[r].mtx));
    }
    pld__sim->fe->guard_escape();
    sg_actor_exit();
}