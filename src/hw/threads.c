/* threads.c: the threads backend.  One OS thread per device, the windows in
 * this process's memory (the front end's allocation, shared by all), and
 * signals as atomic operations on the cells: a notify is a release (add or
 * store), a wait an acquire load.  A wait blocks on its rank's condition
 * variable, never spins.  Time is the wall clock.
 *
 * A deadlock is seen as it is in the simulator: once the host has finished
 * dispatching and every device thread is either done or blocked in a wait,
 * nothing can notify any more.  --wait-timeout (default 60 s here) turns a
 * wait that blocks longer into the same report, even while others run. */
#include "../core/internal.h"
#include "../backend/backend.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct th_rank {
    pthread_t thread;
    pthread_mutex_t mtx;
    pthread_cond_t cond; /* its tasks and its signal cells */
    struct pld__task_queue tasks;
    struct pld__task *current; /* running; freed by th_run if the thread exits inside it */
    int done;
    int blocked; /* in a wait */
    /* what the wait is for, read under T->state by all_blocked */
    const int32_t *wait_cell;
    pld_wait_cmp wait_cmp;
    int32_t wait_expected;
};

/* The backend's share of the run. */
struct th_state {
    const struct pld__run_env *env; /* what it reads of the run */
    const struct pld__frontend *fe; /* the calls back into the front end */
    struct th_rank *rk;
    struct timespec t0;
    pthread_mutex_t state; /* host_done, the done and blocked counts */
    int host_done, ndone, nblocked;
    int aborted;
    int deadlocked;
    jmp_buf host_abort;
};

/* The backend's state: set when th_run starts, NULL again when it returns,
 * by when every device thread has been joined. */
static struct th_state *T;

static _Thread_local int self_rank = PLD__NOBODY;

/* Polls of a wait's cell before it sleeps, each after a sched_yield. */
enum { SPIN_POLLS = 100 };

static int th_self(void)
{
    return self_rank;
}

static double th_now(void)
{
    struct timespec t;
    if (!T)
        return 0.0; /* outside a run there is no clock */
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - T->t0.tv_sec) + (double)(t.tv_nsec - T->t0.tv_nsec) * 1e-9;
}

/* Shared memory: the copy is the transfer, and it takes the time it takes. */
static int th_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span dst, struct pld__cost *c)
{
    c->t_start = th_now();
    pld__shm_read(peer, b, rg, dst);
    c->t_end = th_now();
    return 0;
}

static int th_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                    struct pld__span src, pl_atomic op, struct pld__cost *c)
{
    c->t_start = th_now();
    pld__shm_write(peer, b, rg, src, op);
    c->t_end = th_now();
    return 0;
}

static void wake(int r)
{
    pthread_mutex_lock(&T->rk[r].mtx);
    pthread_cond_broadcast(&T->rk[r].cond);
    pthread_mutex_unlock(&T->rk[r].mtx);
}

static void th_dispatch(int rank, struct pld__task *t)
{
    struct th_rank *rk = &T->rk[rank];
    pthread_mutex_lock(&rk->mtx);
    pld__tasks_push(&rk->tasks, t);
    pthread_cond_broadcast(&rk->cond);
    pthread_mutex_unlock(&rk->mtx);
}

static int th_notify(int owner, const struct pld__cell_ref *ref, pld_notify_op op, int32_t value,
                     struct pld__cost *c)
{
    int32_t *cell = ref->addr;
    c->t_start = th_now();
    /* release: everything this thread wrote before is visible to a thread
     * whose acquire load sees this update */
    if (op == PLD_NOTIFY_SET)
        __atomic_store_n(cell, value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(cell, value, __ATOMIC_RELEASE);
    wake(owner);
    c->t_end = th_now();
    return 0;
}

static int satisfied(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    return pld__wait_holds(__atomic_load_n(cell, __ATOMIC_ACQUIRE), cmp, expected);
}

static _Noreturn void th_abort_run(void);

/* Called with T->state held: is every live device blocked, with no more
 * tasks to come?  Then nobody can ever notify. */
static int all_blocked(void)
{
    /* after an error the others stop blocked or done: that is no deadlock */
    if (!T->host_done || T->nblocked == 0 || T->nblocked + T->ndone < T->env->P ||
        __atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE))
        return 0;
    for (int r = 0; r < T->env->P; r++) {
        if (T->rk[r].tasks.head)
            return 0;
        /* a rank still counted as blocked may have been notified and not
         * yet woken: then it will run again */
        const struct th_rank *w = &T->rk[r];
        if (w->blocked && satisfied(w->wait_cell, w->wait_cmp, w->wait_expected))
            return 0;
    }
    return 1;
}

/* Whoever finds the deadlock first (a waiter, the last device to finish,
 * or the host) records it and prints the one report; returns 1 for them. */
static int declare_deadlock(void)
{
    pthread_mutex_lock(&T->state);
    int first = !T->deadlocked;
    T->deadlocked = 1;
    pthread_mutex_unlock(&T->state);
    if (first) {
        T->fe->fail_first(PLD_EDEADLOCK);
        T->fe->report_deadlock();
    }
    return first;
}

/* Tells every rank to stop and wakes them all. */
static void stop_all(void)
{
    __atomic_store_n(&T->aborted, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < T->env->P; r++)
        wake(r);
}

static _Noreturn void report_and_abort(void)
{
    declare_deadlock();
    th_abort_run();
}

static void th_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected)
{
    struct th_rank *rk = &T->rk[self_rank];
    const int32_t *cell = ref->addr;
    double timeout = T->env->cfg->wait_timeout > 0 ? T->env->cfg->wait_timeout : 60.0;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)timeout;
    deadline.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    /* A short bounded poll first: a notify is often a few microseconds
     * away, and sleeping on the condition variable costs a futex wake-up
     * (tens of microseconds) on both sides.  Then block: no open-ended spin. */
    for (int i = 0; i < SPIN_POLLS; i++) {
        if (satisfied(cell, cmp, expected))
            return;
        sched_yield(); /* with more ranks than cores, the notifier may need this core */
    }
    if (satisfied(cell, cmp, expected))
        return;
    pthread_mutex_lock(&T->state);
    rk->wait_cell = cell;
    rk->wait_cmp = cmp;
    rk->wait_expected = expected;
    rk->blocked = 1;
    T->nblocked++;
    int dead = all_blocked();
    pthread_mutex_unlock(&T->state);
    if (dead)
        report_and_abort();
    int timed_out = 0;
    pthread_mutex_lock(&rk->mtx);
    while (!satisfied(cell, cmp, expected) && !__atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE)) {
        if (pthread_cond_timedwait(&rk->cond, &rk->mtx, &deadline) == ETIMEDOUT &&
            !satisfied(cell, cmp, expected)) {
            timed_out = 1;
            break;
        }
    }
    pthread_mutex_unlock(&rk->mtx);
    if (timed_out) {
        T->fe->note(PLD__NOTE_TIMED_OUT);
        report_and_abort(); /* stays counted as blocked, as the report says */
    }
    pthread_mutex_lock(&T->state);
    rk->blocked = 0;
    T->nblocked--;
    pthread_mutex_unlock(&T->state);
    if (__atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE))
        th_abort_run();
}

static _Noreturn void th_abort_run(void)
{
    stop_all();
    T->fe->guard_escape(); /* an embedded interpreter unwinds itself */
    if (self_rank == PLD__HOST)
        longjmp(T->host_abort, 1);
    pthread_exit(NULL);
}

/* A device finished: it may leave the others all blocked. */
static void device_done(struct th_rank *rk)
{
    pthread_mutex_lock(&T->state);
    rk->done = 1;
    T->ndone++;
    int dead = all_blocked();
    pthread_mutex_unlock(&T->state);
    if (dead) {
        /* wake a blocked rank so that it reports (reporting needs its wait) */
        for (int r = 0; r < T->env->P; r++)
            if (T->rk[r].blocked)
                wake(r);
        if (declare_deadlock())
            stop_all();
    }
}

static void *device_main(void *arg)
{
    int r = (int)(intptr_t)arg;
    struct th_rank *rk = &T->rk[r];
    self_rank = r;
    for (;;) {
        pthread_mutex_lock(&rk->mtx);
        while (!rk->tasks.head && !__atomic_load_n(&T->host_done, __ATOMIC_ACQUIRE) &&
               !__atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE))
            pthread_cond_wait(&rk->cond, &rk->mtx);
        struct pld__task *t = pld__tasks_pop(&rk->tasks);
        pthread_mutex_unlock(&rk->mtx);
        if (!t || __atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE)) {
            pld__task_free(t); /* not run */
            break;
        }
        rk->current = t;
        T->fe->run_task(r, t);
        rk->current = NULL;
        pld__task_free(t);
    }
    device_done(rk);
    return NULL;
}

/* Runs the host function; an error on the host longjmps back here.  Kept
 * apart from run_threads so that none of its locals lives across setjmp. */
static void run_host(pld__host_fn host, const void *args)
{
    self_rank = PLD__HOST;
    if (setjmp(T->host_abort) == 0)
        host(args);
    self_rank = PLD__NOBODY;
}

/* The threads backend's clock is the wall clock: modelled work costs it
 * nothing.  But each op that would be charged is a point where a device
 * thread leaves a run that has been aborted, as it does at its next wait:
 * a rank computing in a loop of loads after another's wait timed out
 * stops there, and only a rank in the program's own code is left running
 * (join_all). */
static void th_charge(double seconds)
{
    (void)seconds;
    if (T && self_rank >= 0 && __atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE))
        th_abort_run();
}

/* Joins the device threads.  After an abort (a deadlock, a timeout, an
 * error) every thread leaves at its next pld call or wait; a thread that
 * loops in the program's own code never makes one, and joining it would
 * hang the process after the report.  Such a thread cannot be stopped from
 * outside (cancelling it mid-program is unsafe), and the run's state it
 * reads cannot be freed under it: so after a grace period the process
 * says which rank it is and exits with the run's status. */
static void join_all(int started)
{
    enum { GRACE_S = 2 };
    struct timespec until = {0, 0}; /* set when the abort is first seen */
    for (int r = 0; r < started; r++) {
        for (;;) {
            struct timespec slice;
            clock_gettime(CLOCK_REALTIME, &slice);
            if (until.tv_sec == 0 && __atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE)) {
                until = slice;
                until.tv_sec += GRACE_S;
            }
            /* a run going on takes as long as it takes, in slices, so that
             * an abort is seen whichever thread is being joined */
            slice.tv_nsec += 100 * 1000 * 1000;
            if (slice.tv_nsec >= 1000000000L) {
                slice.tv_sec++;
                slice.tv_nsec -= 1000000000L;
            }
            if (pthread_timedjoin_np(T->rk[r].thread, NULL, &slice) == 0)
                break;
            if (until.tv_sec != 0 &&
                (slice.tv_sec > until.tv_sec ||
                 (slice.tv_sec == until.tv_sec && slice.tv_nsec >= until.tv_nsec))) {
                int code = pld_exit_code(T->fe->error() ? T->fe->error() : PLD_EINVAL);
                fflush(stdout);
                fprintf(stderr,
                        "pldsim: rank %d is still running %d s after the run ended: it is in the "
                        "program's own code, outside any pld call, where it cannot be stopped; "
                        "the process exits (status %d)\n",
                        r, GRACE_S, code);
                fflush(stderr);
                _exit(code);
            }
        }
    }
}

/* Starts a thread per rank, runs the host, and joins them. */
static int run_threads(const struct pld__run_env *env, pld__host_fn host, const void *args,
                       struct pld__run_result *out)
{
    int rc = 0;
    /* no platform here: the device numbers (the UB size) are a2a3's */
    struct pld__device dev;
    pld__device_defaults(&dev);
    T->fe->set_device(PLD__HOST, &dev);
    T->fe->set_platform_desc("threads");
    clock_gettime(CLOCK_MONOTONIC, &T->t0);
    int started = 0;
    for (int r = 0; r < env->P; r++) {
        T->fe->set_device(r, &dev);
        pthread_mutex_init(&T->rk[r].mtx, NULL);
        pthread_cond_init(&T->rk[r].cond, NULL);
    }
    for (int r = 0; r < env->P; r++, started++)
        if (pthread_create(&T->rk[r].thread, NULL, device_main, (void *)(intptr_t)r) != 0) {
            rc =
                pld__config_error(PLD_ENOMEM, "cannot start a thread for rank %d of %d", r, env->P);
            __atomic_store_n(&T->aborted, 1, __ATOMIC_RELEASE);
            break;
        }
    if (!rc)
        run_host(host, args);
    pthread_mutex_lock(&T->state);
    __atomic_store_n(&T->host_done, 1, __ATOMIC_RELEASE);
    int dead = all_blocked();
    pthread_mutex_unlock(&T->state);
    for (int r = 0; r < started; r++)
        wake(r);
    if (dead && declare_deadlock())
        stop_all();
    join_all(started);
    out->end_time = th_now();
    int error = T->fe->error();
    if (!rc && (__atomic_load_n(&T->aborted, __ATOMIC_ACQUIRE) || error))
        rc = error ? error : PLD_EINVAL;
    return rc;
}

static int th_run(const struct pld__run_env *env, pld__host_fn host, const void *args,
                  const struct pld__frontend *fe, struct pld__run_result *out)
{
    if (!(T = calloc(1, sizeof *T)))
        return pld__config_error(PLD_ENOMEM, "out of memory for the threads backend's state");
    T->env = env;
    T->fe = fe;
    pthread_mutex_init(&T->state, NULL);
    T->rk = calloc((size_t)env->P, sizeof *T->rk);
    int rc = T->rk ? run_threads(env, host, args, out)
                   : pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", env->P);
    for (int r = 0; T->rk && r < env->P; r++) {
        pld__task_free(T->rk[r].current); /* its thread left it through an abort */
        pld__tasks_free(&T->rk[r].tasks);
        pthread_mutex_destroy(&T->rk[r].mtx);
        pthread_cond_destroy(&T->rk[r].cond);
    }
    pthread_mutex_destroy(&T->state);
    free(T->rk);
    free(T);
    T = NULL;
    return rc;
}

const struct pld_backend pld_backend_threads = {
    .name = "threads",
    .size = sizeof(struct pld_backend),
    .caps = 0,
    .run = th_run,
    .self = th_self,
    .now = th_now,
    .dispatch = th_dispatch,
    .charge = th_charge,
    .settle = pld__settle_nothing,
    .read = th_read,
    .write = th_write,
    .notify = th_notify,
    .wait = th_wait,
    .route_bw = NULL,
    .abort_run = th_abort_run,
};
