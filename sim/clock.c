/* clock.c: the SimGrid backend's clocks.  Each actor keeps its own model
 * time ahead of SimGrid's (`ahead`) and sleeps it off only when it
 * interacts; the running actor is tracked here, not asked of SimGrid, and
 * a rank running several cores swaps their clocks and kernel states.  Who
 * runs next is decided here too: waking a wait that a notify satisfied, which
 * the clock does before an actor yields (so it lives below waits.c). */
#include "engine.h"

#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(pld_sim_clock, "pldsim: actor clocks and identity");

struct sim_state *pld__sim;
int pld__sim_cur = PLD__NOBODY;

/* Puts core `a` (NULL: the rank's own actor) back in charge of its rank:
 * the kernel state and the clock in the rank become its own.  Only ranks
 * running extra cores ever swap. */
void pld__sim_resume(struct sim_core *a)
{
    pld__sim->act = a;
    int r = a ? a->rank : pld__sim_cur;
    if (r < 0 || pld__sim->rk[r].owner == a)
        return;
    struct sim_rank *rk = &pld__sim->rk[r];
    struct sim_core *from = rk->owner;
    if (from) {
        from->ahead = rk->ahead;
        pld__sim->fe->kstate_save(r, from->kstate);
    } else {
        rk->own_ahead = rk->ahead;
        pld__sim->fe->kstate_save(r, rk->own_kstate);
    }
    rk->ahead = a ? a->ahead : rk->own_ahead;
    pld__sim->fe->kstate_load(r, a ? a->kstate : rk->own_kstate);
    rk->owner = a;
}

/* Outside the simulation (sim_release): the rank's own state back in it. */
void pld__sim_resume_owner_none(int r)
{
    struct sim_rank *rk = &pld__sim->rk[r];
    struct sim_core *from = rk->owner;
    pld__sim->fe->kstate_save(r, from->kstate);
    pld__sim->fe->kstate_load(r, rk->own_kstate);
    rk->ahead = rk->own_ahead;
    rk->owner = NULL;
}

/* Called at every entry into the backend: wake the waiters that the
 * caller's last notifies satisfied, and leave if the run was aborted. */
void pld__sim_leave_if_aborted(void)
{
    pld__sim_flush_wakes();
    if (pld__sim->aborted) {
        pld__sim->fe->guard_escape(); /* an embedded interpreter unwinds itself */
        sg_actor_exit();
    }
}

double pld__sim_now(void)
{
    int self = sim_self();
    return simgrid_get_clock() + (self == PLD__NOBODY ? 0 : *ahead_of(self));
}

void pld__sim_charge(double seconds)
{
    int self = sim_self();
    if (self != PLD__NOBODY && seconds > 0)
        *ahead_of(self) += seconds;
}

/* Brings SimGrid's clock up to the caller's model time: the caller is about
 * to do something another actor can see.  SimGrid ends a sleep once less
 * than its timing precision is left, so what is left stays on the clock:
 * model times then add up exactly. */
void pld__sim_catch_up(double *ahead)
{
    pld__sim_leave_if_aborted();
    double a = *ahead;
    if (a > 0) {
        double t = simgrid_get_clock() + a;
        SIMCALL(sg_actor_sleep_for(a));
        resume_at(ahead, t);
    }
}

void pld__sim_settle(void)
{
    int self = sim_self();
    if (self != PLD__NOBODY)
        pld__sim_catch_up(ahead_of(self));
}

void pld__sim_yield(void)
{
    int self = sim_self();
    if (self == PLD__NOBODY)
        return;
    pld__sim_catch_up(ahead_of(self));
    SIMCALL(sg_actor_yield());
    pld__sim_leave_if_aborted();
}

static int satisfied(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    return pld__wait_holds(*cell, cmp, expected);
}

/* Wakes `rk`'s blocked wait (if any) when `force` or when its cell now
 * satisfies it. */
static void wake_one(struct waiter *w, int force)
{
    if (w->cell && (force || satisfied(w->cell, w->cmp, w->expected))) {
        w->cell = NULL;
        SIMCALL(sg_sem_release(w->wake));
    } else if (w->ready && (force || w->ready(w->ready_arg))) {
        w->ready = NULL;
        SIMCALL(sg_sem_release(w->wake));
    }
}

/* Wakes the waits of `rk` (its own actor's and its cores') that `force`
 * or their cells now satisfy. */
void pld__sim_wake_waiter(struct sim_rank *rk, int force)
{
    wake_one(&rk->w, force);
    for (struct sim_core *c = rk->cores; c; c = c->next)
        wake_one(&c->w, force);
}

/* The waiter runs only once the notifier yields, as it did when a mutex
 * handed it over: by then the notify's release is recorded (races.c). */
void pld__sim_flush_wakes(void)
{
    if (pld__sim->wake) {
        pld__sim_wake_waiter(&pld__sim->rk[pld__sim->wake - 1], 0);
        pld__sim->wake = 0;
    }
}
