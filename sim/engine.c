/* engine.c: the SimGrid backend.  One SimGrid host and actor per device plus
 * one for the host CPU.
 *
 * Few SimGrid activities, because they are what a run costs:
 *  - Device work goes on the actor's own clock (`ahead`: how far its model
 *    time is past SimGrid's).  It sleeps that off only when it interacts:
 *    before bytes leave, before a notify becomes visible, and at its end.
 *  - Bulk bytes are one host-to-host flow over the route per operation:
 *    SimGrid's network model gives latency, bandwidth and contention.
 *  - A notify is not a flow: the notifier sleeps until the update is due at
 *    the owner (its route's latency plus signal_bytes over its bottleneck
 *    bandwidth), then applies it and wakes the owner's wait.
 *  - A wait that already holds costs nothing; one that does not blocks on a
 *    semaphore that only a satisfying update releases.  A dispatched task
 *    starts at the host's model time without a sleep.
 * docs/models.md, "Local clocks", says what this gives up.  Actors run one
 * at a time, so plain memory updates are atomic by construction. */
#include "sim.h"

#include <errno.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xbt/config.h>
#include <xbt/log.h>

/* A blocked signal wait: what it waits for, and where it sleeps.  Only an
 * update that satisfies it wakes it, with one simcall; a wait that is
 * already satisfied makes none (actors never preempt each other, so plain
 * reads and writes of the cells need no lock). */
struct waiter {
    sg_sem_t wake;
    const int32_t *cell; /* NULL: not waiting */
    pld_wait_cmp cmp;
    int32_t expected;
    /* an idle core of a task graph (sim_idle) waits for this instead */
    int (*ready)(void *arg);
    void *ready_arg;
};

/* A vector core of a rank beyond the one its actor is (run_cores): an
 * actor of its own, with its own clock, wait and kernel state. */
struct sim_core {
    int rank, index;
    struct waiter w;
    double ahead;          /* while another actor has the rank */
    unsigned char *kstate; /* likewise (pld__kstate_save) */
    void (*fn)(void *arg, int core);
    void *arg;
    struct sim_grid *grid;
    struct sim_core *next; /* the rank's running cores */
};

/* The cores of one run_cores call, and how the caller learns their end. */
struct sim_grid {
    int left;
    sg_sem_t done;
    double end; /* the latest core's model time at its end */
};

struct sim_rank {
    sg_mutex_t mtx;
    sg_cond_t cond; /* signals this rank's task queue */
    struct pld__task_queue tasks;
    struct waiter w; /* the rank's own actor's wait */
    int done;
    /* While cores run: the one whose state is in the rank (NULL: the
     * rank's own actor), and the own actor's state meanwhile. */
    struct sim_core *owner, *cores;
    unsigned char *own_kstate;
    double own_ahead;
    struct sim_grid *grid;  /* the run_cores call in progress, or NULL */
    struct sim_core *batch; /* its cores (n - 1 of them), freed when it returns */
    int nbatch;
    int joining; /* the own actor waits for the other cores to end */
    /* The DMA engines (put_async), started by the rank's first one: a FIFO
     * of queued writes that the engine actors take from, and where the
     * rank sleeps while it waits for one to land. */
    sg_mutex_t dma_mtx;
    sg_cond_t dma_cond;
    sg_sem_t dma_wake;
    struct dma_job *dma_head, *dma_tail;
    struct dma_job *dma_waiting; /* the write the rank sleeps on, or NULL */
    struct dma_job *dma_all;     /* every job made, for sim_release */
    struct dma_job *dma_free;    /* waited jobs, for reuse */
    int tag;                     /* actor data: the rank number */
    double ahead;                /* model time past SimGrid's clock, s */
    /* the last routes this rank used: a lookup costs more than a flow */
    struct route_memo {
        int from, to, links;
        double lat, bw;
    } memo[4];
};

/* One asynchronous write, from its issue until it is waited. */
struct dma_job {
    int from, to;
    const struct pld__wbuf *b;
    struct pld__region rg;
    struct pld__span src;
    struct pld__cost c;
    int done;
    unsigned char *snap; /* the source as it was at the issue (snapcap bytes) */
    size_t snapcap;
    struct dma_job *next;     /* in the queue, or the free list */
    struct dma_job *all_next; /* in dma_all */
};

/* The backend's share of the run (R->be_state). */
struct sim_state {
    struct pld__run *R;
    sg_host_t *hosts;
    sg_host_t cpu;
    struct sim_rank *rk;
    double host_ahead; /* the host actor's model time past SimGrid's clock */
    int wake;          /* 1 + the rank whose wait the running actor's last notify may satisfy */
    int host_tag;
    int cur;              /* the running actor's rank, PLD__HOST or PLD__NOBODY (sim_self) */
    struct sim_core *act; /* the running actor when it is an extra core, else NULL */
    int host_done;
    int aborted;
    int deadlocked;
    pld__host_fn host_fn;
    const void *host_args;
    struct pld__progress progress;
};

/* R->be_state, cached: set when sim_run starts, NULL again when it
 * returns.  The hooks read it dozens of times per operation, and through
 * pld__R each read would take two loads more. */
static struct sim_state *S;

/* The running actor, kept here rather than asked of SimGrid: pld__self() is
 * called a few dozen times per operation, and sg_actor_self() costs a
 * thread-local lookup and a dynamic_cast each time.  Any simcall may run
 * other actors before it returns, so each one goes through SIMCALL, which
 * puts the caller back. */
#define SIMCALL(call)                                                                              \
    do {                                                                                           \
        int self_ = S->cur;                                                                        \
        struct sim_core *act_ = S->act;                                                            \
        call;                                                                                      \
        S->cur = self_;                                                                            \
        if (S->act != act_ || (self_ >= 0 && S->rk[self_].owner != act_))                          \
            resume(act_);                                                                          \
    } while (0)

/* Puts core `a` (NULL: the rank's own actor) back in charge of its rank:
 * the kernel state and the clock in the rank become its own.  Only ranks
 * running extra cores ever swap. */
static void resume(struct sim_core *a)
{
    S->act = a;
    int r = a ? a->rank : S->cur;
    if (r < 0 || S->rk[r].owner == a)
        return;
    struct sim_rank *rk = &S->rk[r];
    struct pld__rank *fr = &S->R->ranks[r];
    struct sim_core *from = rk->owner;
    if (from) {
        from->ahead = rk->ahead;
        pld__kstate_save(fr, from->kstate);
    } else {
        rk->own_ahead = rk->ahead;
        pld__kstate_save(fr, rk->own_kstate);
    }
    rk->ahead = a ? a->ahead : rk->own_ahead;
    pld__kstate_load(fr, a ? a->kstate : rk->own_kstate);
    rk->owner = a;
}

/* Outside the simulation (sim_release): the rank's own state back in it. */
static void resume_owner_none(int r)
{
    struct sim_rank *rk = &S->rk[r];
    struct sim_core *from = rk->owner;
    pld__kstate_save(&S->R->ranks[r], from->kstate);
    pld__kstate_load(&S->R->ranks[r], rk->own_kstate);
    rk->ahead = rk->own_ahead;
    rk->owner = NULL;
}

static void flush_wakes(void);
static void declare_deadlock_if_stuck(void);

/* Called at every entry into the backend: wake the waiters that the
 * caller's last notifies satisfied, and leave if the run was aborted. */
static void leave_if_aborted(void)
{
    flush_wakes();
    if (S->aborted) {
        pld__guard_escape(); /* an embedded interpreter unwinds itself */
        sg_actor_exit();
    }
}

static _Noreturn void sim_abort_run(void);

static int sim_self(void)
{
    return S ? S->cur : PLD__NOBODY;
}

static double *ahead_of(int self)
{
    return self >= 0 ? &S->rk[self].ahead : &S->host_ahead;
}

static double sim_now(void)
{
    int self = sim_self();
    return simgrid_get_clock() + (self == PLD__NOBODY ? 0 : *ahead_of(self));
}

static void sim_charge(double seconds)
{
    int self = sim_self();
    if (self != PLD__NOBODY && seconds > 0)
        *ahead_of(self) += seconds;
}

/* Carries the model time `t` of an actor that has been blocked over to its
 * clock: what it owed before blocking it still owes, past its wake-up. */
static void resume_at(double *ahead, double t)
{
    double now = simgrid_get_clock();
    *ahead = t > now ? t - now : 0;
}

/* Brings SimGrid's clock up to the caller's model time: the caller is about
 * to do something another actor can see.  SimGrid ends a sleep once less
 * than its timing precision is left, so what is left stays on the clock:
 * model times then add up exactly. */
static void catch_up(double *ahead)
{
    leave_if_aborted();
    double a = *ahead;
    if (a > 0) {
        double t = simgrid_get_clock() + a;
        SIMCALL(sg_actor_sleep_for(a));
        resume_at(ahead, t);
    }
}

static void sim_settle(void)
{
    int self = sim_self();
    if (self != PLD__NOBODY)
        catch_up(ahead_of(self));
}

/* The route from -> to, looked up once per pair and rank.  SimGrid aborts
 * the process on a transfer between hosts with no route, so that is found
 * here first.  Returns 0, or PLD_EPLATFORM. */
static int route(struct sim_rank *rk, int from, int to, double *lat, double *bw)
{
    struct route_memo *m = &rk->memo[((unsigned)from * 31u + (unsigned)to) & 3u];
    if (m->links == 0 || m->from != from || m->to != to) {
        m->from = from;
        m->to = to;
        m->links = pld__sgx_route(S->hosts[from], S->hosts[to], &m->lat, &m->bw);
    }
    *lat = m->lat;
    *bw = m->bw;
    return m->links > 0 ? 0 : PLD_EPLATFORM;
}

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
    struct sim_rank *rk = &S->rk[me];
    rk->ahead += c->before;
    if (from != to && c->bytes > 0) {
        double lat, bw;
        if (route(rk, from, to, &lat, &bw))
            return PLD_EPLATFORM;
        rk->ahead += (double)c->extra_lats * lat;
        catch_up(&rk->ahead);
        c->t_start = simgrid_get_clock();
        SIMCALL(sg_host_sendto(S->hosts[from], S->hosts[to], c->bytes));
        pld__progress_tick(&S->progress, S->R);
        double own = c->rate > 0 ? c->t_start + lat + c->bytes / c->rate - simgrid_get_clock() : 0;
        if (own > 0)
            rk->ahead += own;
    } else {
        c->t_start = simgrid_get_clock() + rk->ahead;
    }
    c->t_end = simgrid_get_clock() + rk->ahead;
    return 0;
}

static int sim_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                    struct pld__span dst, struct pld__cost *c)
{
    int rc = carry(peer, sim_self(), c);
    if (rc)
        return rc;
    pld__shm_read(peer, b, rg, dst);
    S->rk[sim_self()].ahead += c->after;
    return 0;
}

static int sim_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                     struct pld__span src, pl_atomic op, struct pld__cost *c)
{
    int rc = carry(sim_self(), peer, c);
    if (rc)
        return rc;
    pld__shm_write(peer, b, rg, src, op);
    S->rk[sim_self()].ahead += c->after;
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
    int r = *(int *)sg_actor_self_get_data();
    struct sim_rank *rk = &S->rk[r];
    S->cur = PLD__NOBODY;
    sg_actor_daemonize(sg_actor_self());
    for (;;) {
        SIMCALL(sg_mutex_lock(rk->dma_mtx));
        while (!rk->dma_head && !S->aborted)
            SIMCALL(sg_cond_wait(rk->dma_cond, rk->dma_mtx));
        struct dma_job *j = rk->dma_head;
        if (j && !(rk->dma_head = j->next))
            rk->dma_tail = NULL;
        SIMCALL(sg_mutex_unlock(rk->dma_mtx));
        if (!j || S->aborted)
            return;
        double lat = 0, bw = 0;
        if (j->from != j->to && j->c.bytes > 0)
            route(rk, j->from, j->to, &lat, &bw); /* checked at the issue */
        double pre = j->c.engine + (double)j->c.extra_lats * lat;
        if (pre > 0)
            SIMCALL(sg_actor_sleep_for(pre));
        double t0 = j->c.t_start = simgrid_get_clock();
        if (j->from != j->to && j->c.bytes > 0) {
            SIMCALL(sg_host_sendto(S->hosts[j->from], S->hosts[j->to], j->c.bytes));
            pld__progress_tick(&S->progress, S->R);
            /* an engine slower than the route: it streams the bytes at its
             * own rate (SimGrid 3.32 cannot cap a host-to-host flow) */
            double own =
                j->c.rate > 0 ? t0 + lat + j->c.bytes / j->c.rate - simgrid_get_clock() : 0;
            if (own > 0)
                SIMCALL(sg_actor_sleep_for(own));
        }
        if (S->aborted)
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
    struct sim_rank *rk = &S->rk[r];
    int self = S->cur;
    struct sim_core *act = S->act;
    rk->dma_mtx = sg_mutex_init();
    rk->dma_cond = sg_cond_init();
    rk->dma_wake = sg_sem_init(0);
    int n = (int)S->R->ranks[r].dev.sdma_engines;
    for (int e = 0; e < n; e++) {
        char name[48];
        snprintf(name, sizeof name, "rank%d-sdma%d", r, e);
        sg_actor_t a = sg_actor_init(name, S->hosts[r]);
        sg_actor_set_data(a, &rk->tag);
        sg_actor_start_(a, dma_main, 0, NULL);
    }
    S->cur = self;
    resume(act);
}

static int sim_write_async(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                           struct pld__span src, const struct pld__cost *c, void **h)
{
    int me = sim_self();
    struct sim_rank *rk = &S->rk[me];
    if (me != peer && c->bytes > 0) {
        double lat, bw;
        if (route(rk, me, peer, &lat, &bw))
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
    catch_up(&rk->ahead);
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

static void sim_wait_write(void *h, struct pld__cost *c)
{
    struct dma_job *j = h;
    struct sim_rank *rk = &S->rk[sim_self()];
    catch_up(&rk->ahead); /* what has landed by the caller's model time */
    if (!j->done) {
        double t = simgrid_get_clock() + rk->ahead;
        rk->dma_waiting = j;
        SIMCALL(sg_sem_acquire(rk->dma_wake));
        resume_at(&rk->ahead, t);
    }
    leave_if_aborted();
    c->t_start = j->c.t_start;
    c->t_end = j->c.t_end;
    j->next = rk->dma_free;
    rk->dma_free = j;
}

/* ---- vector cores (run_cores) ---- */

/* Frees the cores of rk's last run_cores, and what a core that never
 * finished (an aborted run) still holds. */
static void free_batch(struct sim_rank *rk)
{
    int r = (int)(rk - S->rk);
    for (int i = 0; i < rk->nbatch; i++) {
        struct sim_core *c = &rk->batch[i];
        if (rk->owner == c) /* it was running when the run stopped */
            resume_owner_none(r);
        if (c->kstate) {
            struct pld__rank tmp = S->R->ranks[r];
            pld__kstate_load(&tmp, c->kstate);
            pld__kstate_release(&tmp);
        }
        free(c->kstate);
        sg_sem_destroy(c->w.wake);
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
    S->cur = c->rank;
    resume(c);
    c->fn(c->arg, c->index);
    leave_if_aborted(); /* the run may have ended under front-end code that unwound */
    struct sim_rank *rk = &S->rk[c->rank];
    double end = simgrid_get_clock() + rk->ahead;
    if (end > c->grid->end)
        c->grid->end = end;
    pld__kstate_release(&S->R->ranks[c->rank]);
    pld__kstate_save(&S->R->ranks[c->rank], c->kstate);
    /* give the rank back to its own actor, and leave the running cores */
    resume(NULL);
    struct sim_core **p = &rk->cores;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    c->grid->left--;
    SIMCALL(sg_sem_release(c->grid->done));
}

static void sim_run_cores(int n, void (*fn)(void *arg, int core), void *arg)
{
    int me = sim_self();
    struct sim_rank *rk = &S->rk[me];
    size_t ks = pld__kstate_size();
    struct sim_grid grid = {.left = n - 1, .done = sg_sem_init(0)};
    struct sim_core *cores = calloc((size_t)n - 1, sizeof *cores);
    if (!rk->own_kstate)
        rk->own_kstate = malloc(ks);
    if (!cores || !rk->own_kstate)
        pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "run_cores", "out of memory for %d cores", n);
    rk->batch = cores;
    rk->nbatch = n - 1;
    /* the others start where the caller is: its clock, its kernel */
    int self = S->cur;
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
        pld__kstate_fork(&S->R->ranks[me], c->kstate);
        rk->cores = c;
        char name[48];
        snprintf(name, sizeof name, "rank%d-core%d", me, i + 1);
        sg_actor_t a = sg_actor_init(name, S->hosts[me]);
        sg_actor_set_data(a, c);
        sg_actor_start_(a, core_main, 0, NULL);
        /* creating an actor may have run others, this rank's new cores too */
        S->cur = self;
        resume(NULL);
    }
    rk->grid = &grid;
    fn(arg, 0);
    double end = simgrid_get_clock() + rk->ahead;
    /* one acquire per core, not a test of grid.left: a core's release is
     * handled after it yields, and the semaphore must outlive it */
    rk->joining = 1;
    for (int i = 0; i < n - 1 && !S->aborted; i++) {
        if (grid.left > 0)
            declare_deadlock_if_stuck();
        SIMCALL(sg_sem_acquire(grid.done));
    }
    rk->joining = 0;
    rk->grid = NULL;
    leave_if_aborted();
    resume_at(&rk->ahead, grid.end > end ? grid.end : end);
    free_batch(rk);
    sg_sem_destroy(grid.done);
}

/* Could the process write `path` (an existing file, or a new one in its
 * directory)?  errno says why not. */
static int writable(const char *path)
{
    if (access(path, F_OK) == 0)
        return access(path, W_OK) == 0;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    return access(dir, W_OK) == 0;
}

static double sim_route_bw(int from, int to)
{
    return S && S->hosts ? sg_host_get_route_bandwidth(S->hosts[from], S->hosts[to]) : 0;
}

static void sim_dispatch(int rank, struct pld__task *t)
{
    struct sim_rank *rk = &S->rk[rank];
    leave_if_aborted();
    t->not_before = simgrid_get_clock() + S->host_ahead;
    SIMCALL(sg_mutex_lock(rk->mtx));
    pld__tasks_push(&rk->tasks, t);
    SIMCALL(sg_cond_notify_all(rk->cond));
    SIMCALL(sg_mutex_unlock(rk->mtx));
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
static void wake_waiter(struct sim_rank *rk, int force)
{
    wake_one(&rk->w, force);
    for (struct sim_core *c = rk->cores; c; c = c->next)
        wake_one(&c->w, force);
}

/* The waiter runs only once the notifier yields, as it did when a mutex
 * handed it over: by then the notify's release is recorded (races.c). */
static void flush_wakes(void)
{
    if (S->wake) {
        wake_waiter(&S->rk[S->wake - 1], 0);
        S->wake = 0;
    }
}

static int sim_notify(int owner, const struct pld__cell_ref *ref, pld_notify_op op, int32_t value,
                      struct pld__cost *c)
{
    int me = sim_self();
    struct sim_rank *rk = &S->rk[me];
    rk->ahead += c->before;
    c->t_start = simgrid_get_clock() + rk->ahead;
    if (owner != me) {
        /* the update is due at the owner once the route has carried it */
        double lat, bw;
        if (route(rk, me, owner, &lat, &bw))
            return PLD_EPLATFORM;
        rk->ahead += lat + (bw > 0 ? c->bytes / bw : 0);
        catch_up(&rk->ahead);
        pld__progress_tick(&S->progress, S->R);
    } else {
        leave_if_aborted(); /* the entry below flushes any earlier wake */
    }
    c->t_end = simgrid_get_clock() + rk->ahead;
    int32_t *cell = ref->addr;
    if (op == PLD_NOTIFY_SET)
        *cell = value;
    else
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)value); /* wraps like the hardware */
    if (S->rk[owner].w.cell == cell || S->rk[owner].w.ready || S->rk[owner].cores)
        S->wake = owner + 1;
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
        return !satisfied(w->cell, w->cmp, w->expected);
    return w->ready && !w->ready(w->ready_arg);
}

static int all_stuck(void)
{
    int blocked = 0;
    if (!S->host_done || S->aborted || S->R->cfg->wait_timeout > 0)
        return 0;
    for (int r = 0; r < S->R->P; r++) {
        const struct sim_rank *rk = &S->rk[r];
        if (rk->done)
            continue;
        /* every core of the rank blocked for good: its own actor (or
         * waiting for the others to end) and each of the others */
        if (!rk->joining && !stuck(&rk->w))
            return 0;
        for (const struct sim_core *c = rk->cores; c; c = c->next)
            if (!stuck(&c->w))
                return 0;
        blocked++;
    }
    return blocked > 0;
}

static void declare_deadlock_if_stuck(void)
{
    if (!all_stuck())
        return;
    S->deadlocked = 1;
    pld__report_deadlock(S->R);
    int zero = 0;
    __atomic_compare_exchange_n(&S->R->error, &zero, PLD_EDEADLOCK, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    sim_abort_run();
}

/* Blocks the caller on its waiter `w` until what `want` waits for (a
 * cell's comparison, or a ready predicate) holds: a wake re-arms it, and
 * with a --wait-timeout the run ends with the report at t + the timeout.
 * The caller resumes at the later of `t`, its model time, and the wake. */
static void block(struct sim_rank *rk, struct waiter *w, const struct waiter *want, double t)
{
    double timeout = S->R->cfg->wait_timeout, deadline = t + timeout;
    int blocked = 0;
    while (!S->aborted && !(want->cell ? satisfied(want->cell, want->cmp, want->expected)
                                       : want->ready(want->ready_arg))) {
        w->cell = want->cell;
        w->cmp = want->cmp;
        w->expected = want->expected;
        w->ready = want->ready;
        w->ready_arg = want->ready_arg;
        blocked = 1;
        if (timeout <= 0) {
            declare_deadlock_if_stuck();
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
            S->R->timed_out = 1;
            pld__report_deadlock(S->R);
            if (!S->R->error)
                S->R->error = PLD_EDEADLOCK;
            sim_abort_run();
        }
    }
    w->cell = NULL;
    w->ready = NULL;
    if (blocked)
        resume_at(&rk->ahead, t);
    leave_if_aborted();
}

/* A wait that holds when it is reached ends at the caller's model time: the
 * update that satisfied it was visible before SimGrid's clock, which is not
 * past that time.  For WAIT_GE this assumes the cell does not fall again
 * before then (only a negative add or a Set from another rank could make
 * it); an EQ wait catches up first, so that it sees the cell as it is at
 * its model time. */
static void sim_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected)
{
    struct sim_rank *rk = &S->rk[sim_self()];
    struct waiter *w = S->act ? &S->act->w : &rk->w;
    const int32_t *cell = ref->addr;
    if (cmp == PLD_WAIT_EQ)
        catch_up(&rk->ahead);
    flush_wakes(); /* before this actor can block */
    struct waiter want = {.cell = cell, .cmp = cmp, .expected = expected};
    block(rk, w, &want, simgrid_get_clock() + rk->ahead);
}

/* An idle core of a task graph: blocks until ready(arg), which a notify
 * landing on the rank or a kick from another of its cores may make true.
 * It resumes at the later of its own model time and the wake's. */
static void sim_idle(int (*ready)(void *arg), void *arg)
{
    struct sim_rank *rk = &S->rk[sim_self()];
    struct waiter *w = S->act ? &S->act->w : &rk->w;
    flush_wakes();
    struct waiter want = {.ready = ready, .ready_arg = arg};
    block(rk, w, &want, simgrid_get_clock() + rk->ahead);
}

/* A core completed a task: at its model time, the rank's idle cores look
 * again. */
static void sim_kick(void)
{
    int me = sim_self();
    struct sim_rank *rk = &S->rk[me];
    catch_up(&rk->ahead);
    wake_waiter(rk, 0);
}

/* Ends the run after an error.  Killing the other actors could catch one in
 * the middle of a transfer, which SimGrid reports with a backtrace; instead
 * each actor leaves at its next step into the backend, and waiters are
 * woken to notice. */
static _Noreturn void sim_abort_run(void)
{
    S->aborted = 1;
    for (int r = 0; r < S->R->P; r++) {
        /* the grid first: a woken rank leaves, and the grid is on its stack */
        struct sim_grid *grid = S->rk[r].grid;
        S->rk[r].grid = NULL;
        if (grid)
            SIMCALL(sg_sem_release(grid->done));
        wake_waiter(&S->rk[r], 1);
        if (S->rk[r].dma_waiting) {
            S->rk[r].dma_waiting = NULL;
            SIMCALL(sg_sem_release(S->rk[r].dma_wake));
        }
        if (S->rk[r].dma_mtx) {
            SIMCALL(sg_mutex_lock(S->rk[r].dma_mtx));
            SIMCALL(sg_cond_notify_all(S->rk[r].dma_cond));
            SIMCALL(sg_mutex_unlock(S->rk[r].dma_mtx));
        }
        SIMCALL(sg_mutex_lock(S->rk[r].mtx));
        SIMCALL(sg_cond_notify_all(S->rk[r].cond));
        SIMCALL(sg_mutex_unlock(S->rk[r].mtx));
    }
    pld__guard_escape();
    sg_actor_exit();
}

static void device_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int r = *(int *)sg_actor_self_get_data();
    struct sim_rank *rk = &S->rk[r];
    S->cur = r;
    for (;;) {
        double idle_from = simgrid_get_clock() + rk->ahead;
        SIMCALL(sg_mutex_lock(rk->mtx));
        while (!rk->tasks.head && !S->host_done && !S->aborted)
            SIMCALL(sg_cond_wait(rk->cond, rk->mtx));
        resume_at(&rk->ahead, idle_from);
        struct pld__task *t = pld__tasks_pop(&rk->tasks);
        SIMCALL(sg_mutex_unlock(rk->mtx));
        if (!t || S->aborted) {
            pld__task_free(t);
            break;
        }
        /* it starts when both the rank and the host's dispatch are there */
        if (t->not_before > simgrid_get_clock() + rk->ahead)
            resume_at(&rk->ahead, t->not_before);
        pld__run_task(r, t);
        flush_wakes();
        pld__task_free(t);
    }
    if (!S->aborted)
        catch_up(&rk->ahead); /* the run ends when its last device does */
    rk->done = 1;
    if (!S->aborted)
        declare_deadlock_if_stuck();
}

static void host_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    S->cur = PLD__HOST;
    S->host_fn(S->host_args);
    if (!S->aborted)
        catch_up(&S->host_ahead);
    S->host_done = 1;
    for (int r = 0; r < S->R->P; r++) {
        SIMCALL(sg_mutex_lock(S->rk[r].mtx));
        SIMCALL(sg_cond_notify_all(S->rk[r].cond));
        SIMCALL(sg_mutex_unlock(S->rk[r].mtx));
    }
    if (!S->aborted)
        declare_deadlock_if_stuck();
}

static void on_deadlock(void)
{
    S->cur = PLD__NOBODY; /* maestro calls this */
    if (S->aborted)
        return; /* the error that aborted the run has been reported */
    S->deadlocked = 1;
    pld__report_deadlock(S->R);
}

/* Frees what sim_run allocated, on every way out of it, including tasks a
 * failed run left queued. */
static void sim_release(struct pld__run *R)
{
    for (int r = 0; S->rk && r < R->P; r++) {
        if (S->rk[r].batch)
            free_batch(&S->rk[r]);
        pld__tasks_free(&S->rk[r].tasks);
        if (S->rk[r].cond)
            sg_cond_destroy(S->rk[r].cond);
        if (S->rk[r].w.wake)
            sg_sem_destroy(S->rk[r].w.wake);
        free(S->rk[r].own_kstate);
        if (S->rk[r].mtx)
            sg_mutex_destroy(S->rk[r].mtx);
        if (S->rk[r].dma_mtx) {
            sg_cond_destroy(S->rk[r].dma_cond);
            sg_sem_destroy(S->rk[r].dma_wake);
            sg_mutex_destroy(S->rk[r].dma_mtx);
        }
        for (struct dma_job *j = S->rk[r].dma_all, *n; j; j = n) {
            n = j->all_next;
            free(j->snap);
            free(j);
        }
    }
    free(S->hosts);
    free(S->rk);
    free(S);
    S = R->be_state = NULL;
}

/* Starts SimGrid, builds the platform and the actors, and runs them. */
static int simulate(struct pld__run *R)
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
    /* the user's SimGrid settings, after pldsim's, so that they win */
    for (int i = 0; i < R->cfg->nsimgrid_cfg; i++) {
        char err[512];
        if (pld__sgx_cfg(R->cfg->simgrid_cfg[i], err, sizeof err))
            return pld__config_error(PLD_EUSAGE, "--cfg=%s: SimGrid refuses it: %s",
                                     R->cfg->simgrid_cfg[i], err);
    }
    for (int i = 0; i < R->cfg->nsimgrid_log; i++) {
        char err[512];
        if (pld__sgx_log(R->cfg->simgrid_log[i], err, sizeof err))
            return pld__config_error(PLD_EUSAGE, "--log=%s: SimGrid refuses it: %s",
                                     R->cfg->simgrid_log[i], err);
    }

    S->hosts = calloc((size_t)R->P, sizeof *S->hosts);
    S->rk = calloc((size_t)R->P, sizeof *S->rk);
    if (!S->hosts || !S->rk)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", R->P);
    if (pld__sgx_traces_links() && pld__sim_split_duplex(R->cfg))
        return pld__config_error(
            PLD_EUSAGE,
            "--cfg=tracing: SimGrid 3.32 aborts when it traces a split-duplex link as a "
            "resource, and this platform has them: trace with --cfg=tracing:yes alone, "
            "or add --cfg=tracing/platform:yes --cfg=tracing/platform/topology:no "
            "(docs/models.md, \"SimGrid's own settings\")");
    /* SimGrid opens its trace as the platform loads, and crashes on its
     * way out when it cannot; checked without creating anything */
    const char *trace = pld__sgx_trace_file();
    if (trace && !writable(trace))
        return pld__config_error(PLD_EUSAGE, "--cfg=tracing/filename:%s: cannot write it: %s",
                                 trace, strerror(errno));
    if ((rc = pld__sim_load_platform(R, S->hosts, &S->cpu)))
        return rc;
    pld__sgx_seal();
    pld__sgx_on_deadlock(on_deadlock);

    for (int r = 0; r < R->P; r++) {
        char name[32];
        S->rk[r].mtx = sg_mutex_init();
        S->rk[r].cond = sg_cond_init();
        S->rk[r].w.wake = sg_sem_init(0);
        S->rk[r].tag = r;
        snprintf(name, sizeof name, "rank%d", r);
        sg_actor_t a = sg_actor_init(name, S->hosts[r]);
        sg_actor_set_data(a, &S->rk[r].tag);
        sg_actor_start_(a, device_main, 0, NULL);
    }
    S->host_tag = PLD__HOST;
    sg_actor_t h = sg_actor_init("host", S->cpu);
    sg_actor_set_data(h, &S->host_tag);
    sg_actor_start_(h, host_main, 0, NULL);

    pld__progress_start(&S->progress);
    S->cur = PLD__NOBODY;
    simgrid_run();
    S->cur = PLD__NOBODY;
    R->end_time = simgrid_get_clock();

    rc = 0;
    if (S->aborted)
        rc = R->error ? R->error : PLD_EINVAL;
    else if (S->deadlocked)
        rc = PLD_EDEADLOCK;
    else
        for (int r = 0; r < R->P; r++)
            if (!S->rk[r].done) {
                pld__report_deadlock(R);
                rc = PLD_EDEADLOCK;
                break;
            }
    return rc;
}

static int sim_run(struct pld__run *R, pld__host_fn host, const void *args)
{
    if (!(S = R->be_state = calloc(1, sizeof *S)))
        return pld__config_error(PLD_ENOMEM, "out of memory for the simulator's state");
    S->R = R;
    S->host_fn = host;
    S->host_args = args;
    int rc = simulate(R);
    sim_release(R);
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
    .charge = sim_charge,
    .settle = sim_settle,
    .read = sim_read,
    .write = sim_write,
    .notify = sim_notify,
    .wait = sim_wait,
    .route_bw = sim_route_bw,
    .abort_run = sim_abort_run,
    .write_async = sim_write_async,
    .wait_write = sim_wait_write,
    .run_cores = sim_run_cores,
    .idle = sim_idle,
    .kick = sim_kick,
};
