/* engine.c: the SimGrid backend.  One SimGrid host and actor per device plus
 * one for the host CPU; a transfer is a timed host-to-host flow over the
 * platform's route (latency, bandwidth and contention come from SimGrid's
 * network model); a notify is a small flow whose arrival updates the cell and
 * wakes the owner's waiters; a wait blocks on a condition variable.  Actors
 * run one at a time, so plain memory updates are atomic by construction. */
#include "sim.h"

#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/config.h>
#include <xbt/log.h>

struct sim_rank {
    sg_mutex_t mtx;
    sg_cond_t cond; /* signals this rank's task queue */
    struct pld__task *head, *tail;
    /* A blocked signal wait: what it waits for, and where it sleeps.  Only
     * an update that satisfies it wakes it, with one simcall; a wait that
     * is already satisfied makes none (actors never preempt each other, so
     * plain reads and writes of the cells need no lock). */
    sg_sem_t wake;
    const int32_t *wait_cell;
    pld_wait_cmp wait_cmp;
    int32_t wait_expected;
    int done;
    int tag; /* actor data: the rank number */
};

static struct {
    struct pld__run *R;
    sg_host_t *hosts;
    sg_host_t cpu;
    struct sim_rank *rk;
    unsigned char *route_ok; /* P*P bits: pair checked and routable */
    int wake; /* 1 + the rank whose wait the running actor's last notify may satisfy */
    int host_tag;
    int host_done;
    int aborted;
    int deadlocked;
    pld__host_fn host_fn;
    const void *host_args;
} S;

static void flush_wakes(void);

/* Called at every entry into the backend: wake the waiters that the
 * caller's last notifies satisfied, and leave if the run was aborted. */
static void leave_if_aborted(void)
{
    flush_wakes();
    if (S.aborted) {
        pld__guard_escape(); /* an embedded interpreter unwinds itself */
        sg_actor_exit();
    }
}

static _Noreturn void sim_abort_run(void);

static int sim_self(void)
{
    if (!S.R)
        return PLD__NOBODY;
    sg_actor_t a = sg_actor_self();
    int *tag = a ? sg_actor_get_data(a) : NULL;
    return tag ? *tag : PLD__NOBODY;
}

static double sim_now(void)
{
    return simgrid_get_clock();
}

static void sim_elapse(double seconds)
{
    leave_if_aborted();
    if (seconds > 0)
        sg_actor_sleep_for(seconds);
}

/* SimGrid aborts the process on a transfer between hosts with no route, so
 * each rank pair is checked once, on first use. */
static int sim_transfer(int from, int to, double bytes)
{
    leave_if_aborted();
    size_t bit = (size_t)from * (size_t)S.R->P + (size_t)to;
    if (!(S.route_ok[bit / 8] & (1u << (bit % 8)))) {
        if (pld__sgx_route_links(S.hosts[from], S.hosts[to]) == 0)
            return PLD_EPLATFORM;
        S.route_ok[bit / 8] |= (unsigned char)(1u << (bit % 8));
    }
    sg_host_sendto(S.hosts[from], S.hosts[to], bytes);
    pld__progress_tick(S.R);
    return 0;
}

static double sim_route_bw(int from, int to)
{
    return S.hosts ? sg_host_get_route_bandwidth(S.hosts[from], S.hosts[to]) : 0;
}

static void sim_dispatch(int rank, struct pld__task *t)
{
    struct sim_rank *rk = &S.rk[rank];
    sg_mutex_lock(rk->mtx);
    if (rk->tail)
        rk->tail->next = t;
    else
        rk->head = t;
    rk->tail = t;
    sg_cond_notify_all(rk->cond);
    sg_mutex_unlock(rk->mtx);
}

static int satisfied(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    return cmp == PLD_WAIT_EQ ? *cell == expected : *cell >= expected;
}

/* Wakes `rk`'s blocked wait (if any) when `force` or when its cell now
 * satisfies it. */
static void wake_waiter(struct sim_rank *rk, int force)
{
    if (rk->wait_cell && (force || satisfied(rk->wait_cell, rk->wait_cmp, rk->wait_expected))) {
        rk->wait_cell = NULL;
        sg_sem_release(rk->wake);
    }
}

/* The waiter runs only once the notifier yields, as it did when a mutex
 * handed it over: by then the notify's release is recorded (races.c). */
static void flush_wakes(void)
{
    if (S.wake) {
        wake_waiter(&S.rk[S.wake - 1], 0);
        S.wake = 0;
    }
}

static void sim_signal_update(int owner, int32_t *cell, pld_notify_op op, int32_t value)
{
    leave_if_aborted();
    if (op == PLD_NOTIFY_SET)
        *cell = value;
    else
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)value); /* wraps like the hardware */
    if (S.rk[owner].wait_cell == cell)
        S.wake = owner + 1; /* the entry above flushed any earlier one */
}

/* Is every rank finished or blocked in a wait that nothing can satisfy,
 * with the host done?  Then no notify can ever come.  Found here, by the
 * last actor to block or finish, rather than by SimGrid: SimGrid kills the
 * actors it finds deadlocked, which unwinds their stacks under an embedded
 * interpreter (pld_embed.h); this way every rank leaves as after an error.
 * The report and the simulated time are the same either way. */
static int all_stuck(void)
{
    int blocked = 0;
    if (!S.host_done || S.aborted || S.R->cfg->wait_timeout > 0)
        return 0;
    for (int r = 0; r < S.R->P; r++) {
        const struct sim_rank *rk = &S.rk[r];
        if (rk->done)
            continue;
        if (!rk->wait_cell || satisfied(rk->wait_cell, rk->wait_cmp, rk->wait_expected))
            return 0;
        blocked++;
    }
    return blocked > 0;
}

static void declare_deadlock_if_stuck(void)
{
    if (!all_stuck())
        return;
    S.deadlocked = 1;
    pld__report_deadlock(S.R);
    int zero = 0;
    __atomic_compare_exchange_n(&S.R->error, &zero, PLD_EDEADLOCK, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    sim_abort_run();
}

static void sim_signal_wait(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    struct sim_rank *rk = &S.rk[sim_self()];
    double timeout = S.R->cfg->wait_timeout, deadline = simgrid_get_clock() + timeout;
    flush_wakes(); /* before this actor can block */
    while (!satisfied(cell, cmp, expected) && !S.aborted) {
        rk->wait_cell = cell;
        rk->wait_cmp = cmp;
        rk->wait_expected = expected;
        if (timeout <= 0) {
            declare_deadlock_if_stuck();
            sg_sem_acquire(rk->wake);
            continue;
        }
        double left = deadline - simgrid_get_clock();
        if (left <= 0 || sg_sem_acquire_timeout(rk->wake, left)) {
            /* like hardware's spin limit: this wait will not complete */
            rk->wait_cell = NULL;
            S.R->timed_out = 1;
            pld__report_deadlock(S.R);
            if (!S.R->error)
                S.R->error = PLD_EDEADLOCK;
            sim_abort_run();
        }
    }
    leave_if_aborted();
}

/* Ends the run after an error.  Killing the other actors could catch one in
 * the middle of a transfer, which SimGrid reports with a backtrace; instead
 * each actor leaves at its next step into the backend, and waiters are
 * woken to notice. */
static _Noreturn void sim_abort_run(void)
{
    S.aborted = 1;
    for (int r = 0; r < S.R->P; r++) {
        wake_waiter(&S.rk[r], 1);
        sg_mutex_lock(S.rk[r].mtx);
        sg_cond_notify_all(S.rk[r].cond);
        sg_mutex_unlock(S.rk[r].mtx);
    }
    pld__guard_escape();
    sg_actor_exit();
}

static void device_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int r = *(int *)sg_actor_self_get_data();
    struct sim_rank *rk = &S.rk[r];
    struct pld__rank *fr = &S.R->ranks[r];
    for (;;) {
        sg_mutex_lock(rk->mtx);
        while (!rk->head && !S.host_done && !S.aborted)
            sg_cond_wait(rk->cond, rk->mtx);
        struct pld__task *t = rk->head;
        if (t) {
            rk->head = t->next;
            if (!rk->head)
                rk->tail = NULL;
        }
        sg_mutex_unlock(rk->mtx);
        if (!t || S.aborted)
            break;
        fr->in_task = 1;
        t->fn(t->args);
        fr->in_task = 0;
        flush_wakes();
        free(t->args);
        free(t);
    }
    rk->done = 1;
    if (!S.aborted)
        declare_deadlock_if_stuck();
}

static void host_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    S.host_fn(S.host_args);
    S.host_done = 1;
    for (int r = 0; r < S.R->P; r++) {
        sg_mutex_lock(S.rk[r].mtx);
        sg_cond_notify_all(S.rk[r].cond);
        sg_mutex_unlock(S.rk[r].mtx);
    }
    if (!S.aborted)
        declare_deadlock_if_stuck();
}

static void on_deadlock(void)
{
    if (S.aborted)
        return; /* the error that aborted the run has been reported */
    S.deadlocked = 1;
    pld__report_deadlock(S.R);
}

/* Frees what sim_run allocated, including tasks a failed run left queued. */
static void sim_release(void)
{
    for (int r = 0; S.rk && r < S.R->P; r++) {
        for (struct pld__task *t = S.rk[r].head, *n; t; t = n) {
            n = t->next;
            free(t->args);
            free(t);
        }
        if (S.rk[r].cond)
            sg_cond_destroy(S.rk[r].cond);
        if (S.rk[r].wake)
            sg_sem_destroy(S.rk[r].wake);
        if (S.rk[r].mtx)
            sg_mutex_destroy(S.rk[r].mtx);
    }
    free(S.hosts);
    free(S.rk);
    free(S.route_ok);
    S.hosts = NULL;
    S.rk = NULL;
    S.route_ok = NULL;
    S.R = NULL;
}

static int sim_run(struct pld__run *R, pld__host_fn host, const void *args)
{
    int argc = 1, rc;
    char factory[64];
    char *argv[] = {(char *)"pldsim", NULL, NULL};

    memset(&S, 0, sizeof S);
    S.R = R;
    S.host_fn = host;
    S.host_args = args;

    /* SimGrid's own chatter (config changes, its deadlock dump) would bury
     * our one-line messages; we report everything that matters ourselves. */
    xbt_log_control_set("root.thresh:critical");
    xbt_log_control_set("ker_engine.thresh:critical ker_engine.app:file:/dev/null");
    /* the context factory is chosen as the engine starts: set later, it
     * would be ignored */
    if (R->cfg->context_factory) {
        snprintf(factory, sizeof factory, "--cfg=contexts/factory:%s", R->cfg->context_factory);
        argv[argc++] = factory;
    }
    simgrid_init(&argc, argv);
    /* CM02 without cross-traffic or the TCP window cap: a link then delivers
     * exactly its latency and bandwidth (see shared/simgrid-notes.md §5.1). */
    sg_cfg_set_string("network/model", R->cfg->network_model ? R->cfg->network_model : "CM02");
    sg_cfg_set_boolean("network/crosstraffic", "no");
    sg_cfg_set_double("network/TCP-gamma", 0);
    sg_cfg_set_boolean("debug/verbose-exit", "no");

    S.hosts = calloc((size_t)R->P, sizeof *S.hosts);
    S.rk = calloc((size_t)R->P, sizeof *S.rk);
    S.route_ok = calloc((size_t)R->P * (size_t)R->P / 8 + 1, 1);
    if (!S.hosts || !S.rk || !S.route_ok)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", R->P);
    if ((rc = pld__sim_load_platform(R, S.hosts, &S.cpu)))
        return rc;
    pld__sgx_seal();
    pld__sgx_on_deadlock(on_deadlock);

    for (int r = 0; r < R->P; r++) {
        char name[32];
        S.rk[r].mtx = sg_mutex_init();
        S.rk[r].cond = sg_cond_init();
        S.rk[r].wake = sg_sem_init(0);
        S.rk[r].tag = r;
        snprintf(name, sizeof name, "rank%d", r);
        sg_actor_t a = sg_actor_init(name, S.hosts[r]);
        sg_actor_set_data(a, &S.rk[r].tag);
        sg_actor_start_(a, device_main, 0, NULL);
    }
    S.host_tag = PLD__HOST;
    sg_actor_t h = sg_actor_init("host", S.cpu);
    sg_actor_set_data(h, &S.host_tag);
    sg_actor_start_(h, host_main, 0, NULL);

    pld__progress_start();
    simgrid_run();
    R->end_time = simgrid_get_clock();

    rc = 0;
    if (S.aborted)
        rc = R->error ? R->error : PLD_EINVAL;
    else if (S.deadlocked)
        rc = PLD_EDEADLOCK;
    else
        for (int r = 0; r < R->P; r++)
            if (!S.rk[r].done) {
                pld__report_deadlock(R);
                rc = PLD_EDEADLOCK;
                break;
            }
    sim_release();
    return rc;
}

const struct pld_backend pld_backend_sim = {
    .name = "sim",
    .size = sizeof(struct pld_backend),
    .caps = PLD_CAP_TIMED,
    .run = sim_run,
    .self = sim_self,
    .now = sim_now,
    .dispatch = sim_dispatch,
    .elapse = sim_elapse,
    .transfer = sim_transfer,
    .signal_update = sim_signal_update,
    .signal_wait = sim_signal_wait,
    .route_bw = sim_route_bw,
    .abort_run = sim_abort_run,
};
