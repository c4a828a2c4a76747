/* vcores.c: the SimGrid backend's vector cores: run_cores starts one actor
 * per extra core of the calling rank, each with its own clock, wait and a
 * fork of the kernel state, and joins them at the latest core's end. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(pld_sim_vcores, "pldsim: vector cores (run_cores)");

/* Frees the cores of rk's last run_cores, and what a core that never
 * finished (an aborted run) still holds. */
void pld__sim_free_batch(struct sim_rank *rk)
{
    int r = (int)(rk - pld__sim->rk);
    for (int i = 0; i < rk->nbatch; i++) {
        struct sim_core *c = &rk->batch[i];
        if (rk->owner == c) /* it was running when the run stopped */
            pld__sim_resume_owner_none(r);
        if (c->kstate)
            pld__sim->fe->kstate_discard(r, c->kstate);
        free(c->kstate);
        sg_sem_destroy(c->w.wake);
        if (c->flow_wake)
            sg_sem_destroy(c->flow_wake);
    }
    free(rk->batch);
    rk->batch = NULL;
    rk->nbatch = 0;
    rk->cores = NULL;
}

static void core_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct sim_core *c = sg_actor_self_get_data();
    pld__sim_cur = c->rank;
    pld__sim_resume(c);
    c->fn(c->arg, c->index);
    pld__sim_leave_if_aborted(); /* the run may have ended under front-end code that unwound */
    struct sim_rank *rk = &pld__sim->rk[c->rank];
    double end = simgrid_get_clock() + rk->ahead;
    if (end > c->grid->end)
        c->grid->end = end;
    pld__sim->fe->kstate_release(c->rank);
    pld__sim->fe->kstate_save(c->rank, c->kstate);
    /* give the rank back to its own actor, and leave the running cores */
    pld__sim_resume(NULL);
    struct sim_core **p = &rk->cores;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    c->grid->left--;
    c->grid->pending++;
    SIMCALL(sg_sem_release(c->grid->done));
}

void pld__sim_run_cores(int n, void (*fn)(void *arg, int core), void *arg)
{
    int me = sim_self();
    struct sim_rank *rk = &pld__sim->rk[me];
    size_t ks = pld__sim->fe->kstate_size();
    struct sim_grid grid = {.left = n - 1, .done = sg_sem_init(0)};
    struct sim_core *cores = calloc((size_t)n - 1, sizeof *cores);
    if (!rk->own_kstate)
        rk->own_kstate = malloc(ks);
    if (!cores || !rk->own_kstate)
        pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "run_cores", "out of memory for %d cores", n);
    rk->batch = cores;
    rk->nbatch = n - 1;
    /* the others start where the caller is: its clock, its kernel */
    int self = pld__sim_cur;
    for (int i = 0; i < n - 1; i++) {
        struct sim_core *c = &cores[i];
        *c = (struct sim_core){.rank = me,
                               .index = i + 1,
                               .w = {.wake = sg_sem_init(0)},
                               .ahead = rk->ahead,
                               .kstate = malloc(ks),
                               .fn = fn,
                               .arg = arg,
                               .grid = &grid,
                               .next = rk->cores};
        if (!c->kstate)
            pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "run_cores", "out of memory for %d cores", n);
        pld__sim->fe->kstate_fork(me, c->kstate);
        rk->cores = c;
        char name[48];
        snprintf(name, sizeof name, "rank%d-core%d", me, i + 1);
        sg_actor_t a = sg_actor_init(name, pld__sim->hosts[me]);
        sg_actor_set_data(a, c);
        sg_actor_start_(a, core_main, 0, NULL);
        /* creating an actor may have run others, this rank's new cores too */
        pld__sim_cur = self;
        pld__sim_resume(NULL);
    }
    rk->grid = &grid;
    fn(arg, 0);
    double end = simgrid_get_clock() + rk->ahead;
    /* one acquire per core, not a test of grid.left: a core's release is
     * handled after it yields, and the semaphore must outlive it */
    rk->joining = 1;
    for (int i = 0; i < n - 1 && !pld__sim->aborted; i++) {
        if (grid.left > 0)
            pld__sim_declare_deadlock_if_stuck();
        SIMCALL(sg_sem_acquire(grid.done));
        grid.pending--;
    }
    rk->joining = 0;
    rk->grid = NULL;
    pld__sim_leave_if_aborted();
    resume_at(&rk->ahead, grid.end > end ? grid.end : end);
    pld__sim_free_batch(rk);
    sg_sem_destroy(grid.done);
}