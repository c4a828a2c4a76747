/* engine.c: the SimGrid backend.  One SimGrid host and actor per device plus
 * one for the host CPU.
 *
 * Few SimGrid activities, because they are what a run costs:
 *  - Device work goes on the actor's own clock (`ahead`: how far its model
 *    time is past SimGrid's).  Only what another actor sees goes through
 *    SimGrid, and without a sleep before it.
 *  - Bulk bytes are one host-to-host flow over the route per operation,
 *    which a timer starts at the rank's model time while the rank waits
 *    for its end (transfer.c, shim.cpp): SimGrid's network model gives
 *    latency, bandwidth and contention.
 *  - A notify is not a flow: a timer lands the update when it is due at
 *    the owner (its route's latency plus signal_bytes over its bottleneck
 *    bandwidth) and wakes the owner's wait (landing.c); the notifier goes
 *    on at that time on its own clock.
 *  - A wait that already holds, or holds once the updates due by the
 *    waiter's model time have landed, costs nothing; one that does not
 *    blocks on a semaphore that only a satisfying update releases.  A
 *    dispatched task starts at the host's model time without a sleep.
 * docs/models.md, "Local clocks", says what this gives up.  Actors run one
 * at a time, so plain memory updates are atomic by construction.
 *
 * The engine is split by concern: clock.c (model time and who runs),
 * transfer.c (flows and DMA engines), vcores.c (run_cores), waits.c
 * (signals, waits, deadlock), landing.c (notifies in flight) and this file
 * (the actors, the run and the backend table); engine.h is what they
 * share. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xbt/config.h>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(pld_sim_engine, "pldsim: the SimGrid backend's actors and run");

static double sim_route_bw(int from, int to)
{
    return pld__sim && pld__sim->hosts
               ? sg_host_get_route_bandwidth(pld__sim->hosts[from], pld__sim->hosts[to])
               : 0;
}

static int sim_route_links(int from, int to, int *ids, int cap, double *lat)
{
    *lat = 0;
    return pld__sim && pld__sim->hosts
               ? pld__sgx_route_all(pld__sim->hosts[from], pld__sim->hosts[to], ids, cap, lat)
               : 0;
}

static void sim_dispatch(int rank, struct pld__task *t)
{
    struct sim_rank *rk = &pld__sim->rk[rank];
    pld__sim_leave_if_aborted();
    t->not_before = simgrid_get_clock() + pld__sim->host_ahead;
    SIMCALL(sg_mutex_lock(rk->mtx));
    pld__tasks_push(&rk->tasks, t);
    SIMCALL(sg_cond_notify_all(rk->cond));
    SIMCALL(sg_mutex_unlock(rk->mtx));
}
static void device_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int r = *(int *)sg_actor_self_get_data();
    struct sim_rank *rk = &pld__sim->rk[r];
    pld__sim_cur = r;
    for (;;) {
        double idle_from = simgrid_get_clock() + rk->ahead;
        SIMCALL(sg_mutex_lock(rk->mtx));
        while (!rk->tasks.head && !pld__sim->host_done && !pld__sim->aborted)
            SIMCALL(sg_cond_wait(rk->cond, rk->mtx));
        resume_at(&rk->ahead, idle_from);
        struct pld__task *t = pld__tasks_pop(&rk->tasks);
        SIMCALL(sg_mutex_unlock(rk->mtx));
        if (!t || pld__sim->aborted) {
            pld__task_free(t);
            break;
        }
        /* it starts when both the rank and the host's dispatch are there */
        if (t->not_before > simgrid_get_clock() + rk->ahead)
            resume_at(&rk->ahead, t->not_before);
        pld__sim->fe->run_task(r, t);
        pld__sim_flush_wakes();
        pld__task_free(t);
    }
    if (!pld__sim->aborted)
        pld__sim_catch_up(&rk->ahead); /* the run ends when its last device does */
    rk->done = 1;
    if (!pld__sim->aborted)
        pld__sim_declare_deadlock_if_stuck();
}

static void host_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    pld__sim_cur = PLD__HOST;
    pld__sim->host_fn(pld__sim->host_args);
    if (!pld__sim->aborted)
        pld__sim_catch_up(&pld__sim->host_ahead);
    pld__sim->host_done = 1;
    for (int r = 0; r < pld__sim->env->P; r++) {
        SIMCALL(sg_mutex_lock(pld__sim->rk[r].mtx));
        SIMCALL(sg_cond_notify_all(pld__sim->rk[r].cond));
        SIMCALL(sg_mutex_unlock(pld__sim->rk[r].mtx));
    }
    if (!pld__sim->aborted)
        pld__sim_declare_deadlock_if_stuck();
}

static void on_deadlock(void)
{
    pld__sim_cur = PLD__NOBODY; /* maestro calls this */
    if (pld__sim->aborted)
        return; /* the error that aborted the run has been reported */
    pld__sim->deadlocked = 1;
    pld__sim->fe->report_deadlock();
}

/* Frees what sim_run allocated, on every way out of it, including tasks a
 * failed run left queued. */
static void sim_release(const struct pld__run_env *env)
{
    for (int r = 0; pld__sim->rk && r < env->P; r++) {
        if (pld__sim->rk[r].batch)
            pld__sim_free_batch(&pld__sim->rk[r]);
        pld__tasks_free(&pld__sim->rk[r].tasks);
        if (pld__sim->rk[r].cond)
            sg_cond_destroy(pld__sim->rk[r].cond);
        if (pld__sim->rk[r].w.wake)
            sg_sem_destroy(pld__sim->rk[r].w.wake);
        if (pld__sim->rk[r].flow_wake)
            sg_sem_destroy(pld__sim->rk[r].flow_wake);
        for (size_t m = 0; m < sizeof pld__sim->rk[r].memo / sizeof pld__sim->rk[r].memo[0]; m++)
            free(pld__sim->rk[r].memo[m].ids);
        for (int e = 0; pld__sim->rk[r].engines && e < (int)pld__sim->devs[r].sdma_engines; e++)
            if (pld__sim->rk[r].engines[e].wake)
                sg_sem_destroy(pld__sim->rk[r].engines[e].wake);
        free(pld__sim->rk[r].engines);
        free(pld__sim->rk[r].own_kstate);
        if (pld__sim->rk[r].mtx)
            sg_mutex_destroy(pld__sim->rk[r].mtx);
        if (pld__sim->rk[r].dma_mtx) {
            sg_cond_destroy(pld__sim->rk[r].dma_cond);
            sg_sem_destroy(pld__sim->rk[r].dma_wake);
            sg_mutex_destroy(pld__sim->rk[r].dma_mtx);
        }
        for (struct dma_job *j = pld__sim->rk[r].dma_all, *n; j; j = n) {
            n = j->all_next;
            free(j->snap);
            free(j);
        }
    }
    pld__sim_free_updates();
    free(pld__sim->links);
    free(pld__sim->devs);
    free(pld__sim->hosts);
    free(pld__sim->rk);
    free(pld__sim);
    pld__sim = NULL;
    pld__sim_cur = PLD__NOBODY;
}

/* Starts SimGrid, builds the platform and the actors, and runs them. */
static int simulate(const struct pld__run_env *env, struct pld__run_result *out)
{
    int argc = 1, rc;
    char factory[64];
    char *argv[] = {(char *)"pldsim", NULL, NULL};

    /* SimGrid's own chatter (config changes, its deadlock dump) would bury
     * our one-line messages; we report everything that matters ourselves. */
    xbt_log_control_set("root.thresh:critical");
    xbt_log_control_set("ker_engine.thresh:critical ker_engine.app:file:/dev/null");
    /* the context factory is chosen as the engine starts: set later, it
     * would be ignored */
    if (env->cfg->context_factory) {
        snprintf(factory, sizeof factory, "--cfg=contexts/factory:%s", env->cfg->context_factory);
        argv[argc++] = factory;
    }
    simgrid_init(&argc, argv);
    /* CM02 without cross-traffic or the TCP window cap: a link then delivers
     * exactly its latency and bandwidth (see shared/simgrid-notes.md §5.1). */
    sg_cfg_set_string("network/model", env->cfg->network_model ? env->cfg->network_model : "CM02");
    sg_cfg_set_boolean("network/crosstraffic", "no");
    sg_cfg_set_double("network/TCP-gamma", 0);
    sg_cfg_set_boolean("debug/verbose-exit", "no");
    /* the user's SimGrid settings, after pldsim's, so that they win */
    for (int i = 0; i < env->cfg->nsimgrid_cfg; i++) {
        char err[512];
        if (pld__sgx_cfg(env->cfg->simgrid_cfg[i], err, sizeof err))
            return pld__config_error(PLD_EUSAGE, "--cfg=%s: SimGrid refuses it: %s",
                                     env->cfg->simgrid_cfg[i], err);
    }
    for (int i = 0; i < env->cfg->nsimgrid_log; i++) {
        char err[512];
        if (pld__sgx_log(env->cfg->simgrid_log[i], err, sizeof err))
            return pld__config_error(PLD_EUSAGE, "--log=%s: SimGrid refuses it: %s",
                                     env->cfg->simgrid_log[i], err);
    }

    pld__sim->hosts = calloc((size_t)env->P, sizeof *pld__sim->hosts);
    pld__sim->rk = calloc((size_t)env->P, sizeof *pld__sim->rk);
    pld__sim->devs = calloc((size_t)env->P, sizeof *pld__sim->devs);
    if (!pld__sim->hosts || !pld__sim->rk || !pld__sim->devs)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", env->P);
    if (pld__sgx_traces_links() && pld__sim_split_duplex(env->cfg))
        return pld__config_error(
            PLD_EUSAGE,
            "--cfg=tracing: SimGrid 3.32 aborts when it traces a split-duplex link as a "
            "resource, and this platform has them: trace with --cfg=tracing:yes alone, "
            "or add --cfg=tracing/platform:yes --cfg=tracing/platform/topology:no "
            "(docs/models.md, \"SimGrid's own settings\")");
    /* SimGrid opens its trace as the platform loads, and crashes on its
     * way out when it cannot; checked without creating anything */
    const char *trace = pld__sgx_trace_file();
    char why[300];
    if (trace && !pld__can_write(trace, why, sizeof why))
        return pld__config_error(PLD_EUSAGE, "--cfg=tracing/filename:%s: cannot write it: %s",
                                 trace, why);
    if ((rc = pld__sim_load_platform(env, pld__sim->fe, pld__sim->hosts, &pld__sim->cpu,
                                     pld__sim->devs)))
        return rc;
    pld__sgx_seal();
    pld__sgx_on_deadlock(on_deadlock);
    int mode = pld__sim_solo_flows_mode(env);
    if (mode < 0)
        return mode;
    pld__sim->solo_flows = mode == SOLO_ON || mode == SOLO_REPORT;
    pld__sim->report_flows = mode == SOLO_REPORT || mode == SOLO_OFF_REPORT;
    if ((rc = pld__progress_start(&pld__sim->progress)))
        return rc;
    if (pld__sim->solo_flows) {
        char err[256];
        if (pld__sgx_latency_hook(err, sizeof err))
            pld__sim->solo_flows = 0; /* every flow a comm: slower, as exact */
    }

    for (int r = 0; r < env->P; r++) {
        char name[32];
        pld__sim->rk[r].mtx = sg_mutex_init();
        pld__sim->rk[r].cond = sg_cond_init();
        pld__sim->rk[r].w.wake = sg_sem_init(0);
        pld__sim->rk[r].tag = r;
        snprintf(name, sizeof name, "rank%d", r);
        sg_actor_t a = sg_actor_init(name, pld__sim->hosts[r]);
        sg_actor_set_data(a, &pld__sim->rk[r].tag);
        sg_actor_start_(a, device_main, 0, NULL);
    }
    pld__sim->host_tag = PLD__HOST;
    sg_actor_t h = sg_actor_init("host", pld__sim->cpu);
    sg_actor_set_data(h, &pld__sim->host_tag);
    sg_actor_start_(h, host_main, 0, NULL);

    pld__sim_cur = PLD__NOBODY;
    pld__interrupt_arm(); /* SimGrid's engine installed its own SIGINT handler */
    simgrid_run();
    pld__sim_cur = PLD__NOBODY;
    out->end_time = simgrid_get_clock();
    if (pld__sim->report_flows)
        pld__sim_flows_report();

    rc = 0;
    if (pld__sim->aborted)
        rc = pld__sim->fe->error() ? pld__sim->fe->error() : PLD_EINVAL;
    else if (pld__sim->deadlocked)
        rc = PLD_EDEADLOCK;
    else
        for (int r = 0; r < env->P; r++)
            if (!pld__sim->rk[r].done) {
                pld__sim->fe->report_deadlock();
                rc = PLD_EDEADLOCK;
                break;
            }
    return rc;
}

static int sim_run(const struct pld__run_env *env, pld__host_fn host, const void *args,
                   const struct pld__frontend *fe, struct pld__run_result *out)
{
    if (!(pld__sim = calloc(1, sizeof *pld__sim)))
        return pld__config_error(PLD_ENOMEM, "out of memory for the simulator's state");
    pld__sim_cur = 0; /* as the zeroed field it was */
    pld__sim->env = env;
    pld__sim->fe = fe;
    pld__sim->all_landed = pld__sim_wake_if_stuck;
    pld__sim->host_fn = host;
    pld__sim->host_args = args;
    int rc = simulate(env, out);
    sim_release(env);
    return rc;
}

const struct pld_backend pld_backend_sim = {
    .name = "sim",
    .size = sizeof(struct pld_backend),
    .caps = PLD_CAP_TIMED,
    .run = sim_run,
    .self = sim_self,
    .self_at = &pld__sim_cur,
    .now = pld__sim_now,
    .dispatch = sim_dispatch,
    .charge = pld__sim_charge,
    .settle = pld__sim_settle,
    .read = pld__sim_read,
    .write = pld__sim_write,
    .notify = pld__sim_notify,
    .wait = pld__sim_wait,
    .route_bw = sim_route_bw,
    .route_links = sim_route_links,
    .link_name = pld__sgx_link_name,
    .abort_run = pld__sim_abort_run,
    .write_async = pld__sim_write_async,
    .wait_write = pld__sim_wait_write,
    .run_cores = pld__sim_run_cores,
    .idle = pld__sim_idle,
    .kick = pld__sim_kick,
    .yield = pld__sim_yield,
};