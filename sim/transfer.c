/* transfer.c: the SimGrid backend's bulk transfers: one host-to-host flow
 * per read or write over the memoised route, and the DMA engine actors that
 * carry asynchronous writes (put_async). */
#include "engine.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(pld_sim_transfer, "pldsim: flows and DMA engines");

/* The time half of read and write: c->before, then c->bytes from `from` to
 * `to` as one flow, then c->after; the data is copied by the caller between
 * the flow's end and c->after, when the last byte has arrived.  A core that
 * moves bytes slower than the route (c->rate) takes at least a route
 * latency plus bytes/rate: what the flow left of that goes on the rank's
 * own clock, so it costs no SimGrid activity (SimGrid 3.32 cannot cap a
 * host-to-host flow's rate: Comm::set_rate refuses a sendto comm). */
static int carry(int from, int to, struct pld__cost *c)
{
    int me = sim_self();
    struct sim_rank *rk = &pld__sim->rk[me];
    rk->ahead += c->before;
    if (from != to && c->bytes > 0) {
        const struct route_memo *m = pld__sim_route_links(rk, from, to);
        if (!m->links)
            return PLD_EPLATFORM;
        double lat = m->lat;
        rk->ahead += (double)c->extra_lats * lat;
        pld__sim_leave_if_aborted();
        /* it starts at the rank's model time, with no sleep before it */
        c->t_start = simgrid_get_clock() + rk->ahead;
        struct sim_flow f;
        sg_sem_t *wake = pld__sim->act ? &pld__sim->act->flow_wake : &rk->flow_wake;
        SIMCALL(pld__sim_flow(&f, wake, from, to, c->bytes, c->t_start, m));
        rk->ahead = 0; /* SimGrid's clock is the flow's end */
        pld__progress_tick(&pld__sim->progress, pld__sim->env->transfers);
        double own = c->rate > 0 ? c->t_start + lat + c->bytes / c->rate - simgrid_get_clock() : 0;
        if (own > 0)
            rk->ahead += own;
    } else {
        c->t_start = simgrid_get_clock() + rk->ahead;
    }
    c->t_end = simgrid_get_clock() + rk->ahead;
    return 0;
}

int pld__sim_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                  struct pld__span dst, struct pld__cost *c)
{
    int rc = carry(peer, sim_self(), c);
    if (rc)
        return rc;
    pld__shm_read(peer, b, rg, dst);
    pld__sim->rk[sim_self()].ahead += c->after;
    return 0;
}

int pld__sim_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span src, pl_atomic op, struct pld__cost *c)
{
    int rc = carry(sim_self(), peer, c);
    if (rc)
        return rc;
    pld__shm_write(peer, b, rg, src, op);
    pld__sim->rk[sim_self()].ahead += c->after;
    return 0;
}

/* An engine of rank `r`: takes the oldest queued write, pays its engine
 * time, moves its bytes as one flow from the rank's host (taking at least
 * lat + bytes/rate when it has a rate), and lands them.
 * Engines are daemons: SimGrid ends them with the run's last rank. */
static void dma_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct dma_engine *me = sg_actor_self_get_data();
    struct sim_rank *rk = &pld__sim->rk[me->rank];
    pld__sim_cur = PLD__NOBODY;
    sg_actor_daemonize(sg_actor_self());
    for (;;) {
        SIMCALL(sg_mutex_lock(rk->dma_mtx));
        while (!rk->dma_head && !pld__sim->aborted)
            SIMCALL(sg_cond_wait(rk->dma_cond, rk->dma_mtx));
        struct dma_job *j = rk->dma_head;
        if (j && !(rk->dma_head = j->next))
            rk->dma_tail = NULL;
        SIMCALL(sg_mutex_unlock(rk->dma_mtx));
        if (!j || pld__sim->aborted)
            return;
        double lat = 0;
        const struct route_memo *m = NULL;
        if (j->from != j->to && j->c.bytes > 0) {
            m = pld__sim_route_links(rk, j->from, j->to); /* checked at the issue */
            lat = m->lat;
        }
        double pre = j->c.engine + (double)j->c.extra_lats * lat;
        double t0 = j->c.t_start = simgrid_get_clock() + (pre > 0 ? pre : 0);
        if (m) {
            SIMCALL(pld__sim_flow(&me->flow, &me->wake, j->from, j->to, j->c.bytes, t0, m));
            pld__progress_tick(&pld__sim->progress, pld__sim->env->transfers);
            /* an engine slower than the route: it streams the bytes at its
             * own rate (SimGrid 3.32 cannot cap a host-to-host flow) */
            double own =
                j->c.rate > 0 ? t0 + lat + j->c.bytes / j->c.rate - simgrid_get_clock() : 0;
            if (own > 0)
                SIMCALL(sg_actor_sleep_for(own));
        } else if (pre > 0) {
            SIMCALL(sg_actor_sleep_for(pre));
        }
        if (pld__sim->aborted)
            return;
        pld__shm_write(j->to, j->b, &j->rg, j->src, PL_ATOMIC_NONE);
        j->c.t_end = simgrid_get_clock();
        j->done = 1;
        if (rk->dma_waiting == j) {
            rk->dma_waiting = NULL;
            SIMCALL(sg_sem_release(rk->dma_wake));
        }
    }
}

/* Makes rank r's engines.  Creating an actor is a simcall that may run
 * others, so the caller's identity is put back afterwards as SIMCALL does. */
static void dma_start(int r)
{
    struct sim_rank *rk = &pld__sim->rk[r];
    int self = pld__sim_cur;
    struct sim_core *act = pld__sim->act;
    rk->dma_mtx = sg_mutex_init();
    rk->dma_cond = sg_cond_init();
    rk->dma_wake = sg_sem_init(0);
    int n = (int)pld__sim->devs[r].sdma_engines;
    if (n > 0 && !(rk->engines = calloc((size_t)n, sizeof *rk->engines)))
        pld__fail(PLD_ENOMEM, "pldsim", 0, "pld_put_async", "out of memory for DMA engines");
    for (int e = 0; e < n; e++) {
        char name[48];
        snprintf(name, sizeof name, "rank%d-sdma%d", r, e);
        rk->engines[e].rank = r;
        sg_actor_t a = sg_actor_init(name, pld__sim->hosts[r]);
        sg_actor_set_data(a, &rk->engines[e]);
        sg_actor_start_(a, dma_main, 0, NULL);
    }
    pld__sim_cur = self;
    pld__sim_resume(act);
}

int pld__sim_write_async(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                         struct pld__span src, const struct pld__cost *c, void **h)
{
    int me = sim_self();
    struct sim_rank *rk = &pld__sim->rk[me];
    if (me != peer && c->bytes > 0) {
        double lat, bw;
        if (pld__sim_route(rk, me, peer, &lat, &bw))
            return PLD_EPLATFORM;
    }
    if (!rk->dma_mtx)
        dma_start(me);
    struct dma_job *j = rk->dma_free;
    if (j) {
        rk->dma_free = j->next;
    } else {
        if (!(j = calloc(1, sizeof *j)))
            return PLD_ENOMEM;
        j->all_next = rk->dma_all;
        rk->dma_all = j;
    }
    j->from = me;
    j->to = peer;
    j->b = b;
    j->rg = *rg;
    j->src = src;
    j->c = *c;
    /* The bytes that land are the source's at the issue, as on threads
     * (which writes them then): a program that stores into the source
     * before the wait races (the detector says so), and both backends
     * still deliver the same bytes. */
    if (src.ptr) {
        size_t n = (size_t)pl_shape_numel(rg->shape) * pl_dtype_size(rg->dtype);
        if (n > j->snapcap) {
            unsigned char *m = realloc(j->snap, n);
            if (!m)
                return PLD_ENOMEM;
            j->snap = m;
            j->snapcap = n;
        }
        pld__copy_region(rg->dtype, rg->shape, j->snap, rg->shape, src.ptr, src.full,
                         PL_ATOMIC_NONE);
        j->src = (struct pld__span){j->snap, rg->shape};
    }
    j->done = 0;
    j->next = NULL;
    /* the engine starts at the end in model time */
    rk->ahead += c->before;
    pld__sim_catch_up(&rk->ahead);
    SIMCALL(sg_mutex_lock(rk->dma_mtx));
    if (rk->dma_tail)
        rk->dma_tail->next = j;
    else
        rk->dma_head = j;
    rk->dma_tail = j;
    SIMCALL(sg_cond_notify_one(rk->dma_cond));
    SIMCALL(sg_mutex_unlock(rk->dma_mtx));
    *h = j;
    return 0;
}

void pld__sim_wait_write(void *h, struct pld__cost *c)
{
    struct dma_job *j = h;
    struct sim_rank *rk = &pld__sim->rk[sim_self()];
    pld__sim_catch_up(&rk->ahead); /* what has landed by the caller's model time */
    if (!j->done) {
        double t = simgrid_get_clock() + rk->ahead;
        rk->dma_waiting = j;
        SIMCALL(sg_sem_acquire(rk->dma_wake));
        resume_at(&rk->ahead, t);
    }
    pld__sim_leave_if_aborted();
    c->t_start = j->c.t_start;
    c->t_end = j->c.t_end;
    j->next = rk->dma_free;
    rk->dma_free = j;
}