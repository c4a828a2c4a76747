/* engine.h: what the files of the SimGrid backend's engine share (engine.c
 * says how the backend works): the per-run state, the actors' clocks and
 * identity, and the hooks the backend table in engine.c points to.  Private
 * to sim/: hidden from libpld's exported symbols. */
#ifndef PLD_SIM_ENGINE_H
#define PLD_SIM_ENGINE_H

#include "sim.h"

#include <simgrid/engine.h>
#include <simgrid/semaphore.h>

#pragma GCC visibility push(hidden)

/* A blocked signal wait: what it waits for, and where it sleeps.  Only an
 * update that satisfies it wakes it, with one simcall; a wait that is
 * already satisfied makes none (actors never preempt each other, so plain
 * reads and writes of the cells need no lock). */
struct waiter {
    sg_sem_t wake;
    const int32_t *cell; /* NULL: not waiting */
    pld_wait_cmp cmp;
    int32_t expected;
    /* an idle core of a task graph (pld__sim_idle) waits for this instead */
    int (*ready)(void *arg);
    void *ready_arg;
};

/* A vector core of a rank beyond the one its actor is (run_cores): an
 * actor of its own, with its own clock, wait and kernel state. */
struct sim_core {
    int rank, index;
    struct waiter w;
    sg_sem_t flow_wake;    /* where it sleeps in a flow (flows.c) */
    double ahead;          /* while another actor has the rank */
    unsigned char *kstate; /* likewise (fe->kstate_save) */
    void (*fn)(void *arg, int core);
    void *arg;
    struct sim_grid *grid;
    struct sim_core *next; /* the rank's running cores */
};

/* The cores of one run_cores call, and how the caller learns their end. */
struct sim_grid {
    int left;
    /* cores that released `done` and the caller has not yet taken: while
     * any is, the caller is runnable, not blocked (waits.c's all_stuck) */
    int pending;
    sg_sem_t done;
    double end; /* the latest core's model time at its end */
};

struct sim_rank {
    sg_mutex_t mtx;
    sg_cond_t cond; /* signals this rank's task queue */
    struct pld__task_queue tasks;
    struct waiter w;    /* the rank's own actor's wait */
    sg_sem_t flow_wake; /* where its own actor sleeps in a flow (flows.c) */
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
    struct dma_job *dma_waiting;               /* the write the rank sleeps on, or NULL */
    struct dma_job *dma_all;                   /* every job made, for sim_release */
    struct dma_job *dma_free;                  /* waited jobs, for reuse */
    struct dma_engine *engines;                /* their actors' own state */
    struct sim_update *inbound, *inbound_tail; /* notifies to it in flight (landing.c) */
    int tag;                                   /* actor data: the rank number */
    double ahead;                              /* model time past SimGrid's clock, s */
    /* the last routes this rank used: a lookup costs more than a flow */
    struct route_memo {
        int from, to, links; /* links: all of the route's, 0 for none */
        double lat, bw;
        int shared; /* of them, the links flows share (all but fat pipes) */
        int *ids;   /* the shared links' numbers (flows.c), `shared` of them */
        int cap;    /* room in ids */
        int max_id; /* the largest of them */
        int odd;    /* a link there whose lone flows flows.c cannot price (Wi-Fi) */
    } memo[4];
    int memo_next; /* the memo's entry to refill next */
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

/* One flow of a transfer, on its actor's stack while the actor waits for
 * it (flows.c). */
struct sim_flow {
    int from, to;
    double bytes, start, lat;
    double share; /* B/s, as SimGrid would give it alone */
    double end;   /* a solo flow's end */
    int state, odd;
    int nlinks, *links, few[8];
    void *timer; /* its start, then a solo flow's end */
    void *comm;  /* a real flow's SimGrid comm */
    sg_sem_t wake;
};

/* A DMA engine actor: its rank and its flow, kept off its stack, since
 * SimGrid ends engines (daemons) wherever they are when the run ends. */
struct dma_engine {
    int rank;
    sg_sem_t wake;
    struct sim_flow flow;
};

/* The backend's share of the run. */
struct sim_state {
    const struct pld__run_env *env; /* what it reads of the run */
    struct pld__device *devs;       /* each rank's device, as the platform gives it */
    const struct pld__frontend *fe; /* the calls back into the front end */
    sg_host_t *hosts;
    sg_host_t cpu;
    struct sim_rank *rk;
    double host_ahead; /* the host actor's model time past SimGrid's clock */
    int wake;          /* 1 + the rank whose wait the running actor's last notify may satisfy */
    int host_tag;
    struct sim_core *act; /* the running actor when it is an extra core, else NULL */
    int host_done;
    int aborted;
    int deadlocked;
    pld__host_fn host_fn;
    const void *host_args;
    struct pld__progress progress;
    /* flows.c: whether a flow may be solo, what each link carries, and
     * how many flows went which way (PLD_SOLO_FLOWS=report) */
    int solo_flows, report_flows;
    struct sim_flow_counts {
        uint64_t solo, comms, joined;
    } flow_counts;
    struct sim_link *links;
    int nlinks;
    /* notifies to other ranks in flight (landing.c): a heap by due time
     * and issue, the landed ones for reuse, and the one SimGrid timer, set
     * for the earliest */
    struct sim_update **pending, *spare;
    size_t npending, cap_pending;
    size_t inflight; /* not landed yet: the heap less the updates landed early */
    uint64_t issued;
    void *timer;
    double timer_at;
    /* called by maestro when the last update in flight has landed:
     * pld__sim_wake_if_stuck (a hook, as waits.c calls landing.c) */
    void (*all_landed)(void);
};
/* The backend's state: set when sim_run starts, NULL again when it
 * returns.  A global, because the hooks read it dozens of times per
 * operation. */
extern struct sim_state *pld__sim;
/* The running actor's rank, PLD__HOST or PLD__NOBODY (sim_self); NOBODY
 * whenever pld__sim is NULL.  A global of its own rather than a field of
 * pld__sim, so that the front end reads it through the backend table's
 * self_at without a call: pld__self() is called some 50 times per rank and
 * round of a ring allreduce, and the indirect call and the check of
 * pld__sim were 2 % of its instructions at P = 512. */
extern int pld__sim_cur;

/* The running actor, kept here rather than asked of SimGrid: pld__self() is
 * called a few dozen times per operation, and sg_actor_self() costs a
 * thread-local lookup and a dynamic_cast each time.  Any simcall may run
 * other actors before it returns, so each one goes through SIMCALL, which
 * puts the caller back. */
#define SIMCALL(call)                                                                              \
    do {                                                                                           \
        int self_ = pld__sim_cur;                                                                  \
        struct sim_core *act_ = pld__sim->act;                                                     \
        call;                                                                                      \
        pld__sim_cur = self_;                                                                      \
        if (pld__sim->act != act_ || (self_ >= 0 && pld__sim->rk[self_].owner != act_))            \
            pld__sim_resume(act_);                                                                 \
    } while (0)

/* clock.c: each actor's model time, and who runs. */

static inline int sim_self(void)
{
    return pld__sim_cur;
}

static inline double *ahead_of(int self)
{
    return self >= 0 ? &pld__sim->rk[self].ahead : &pld__sim->host_ahead;
}
/* Carries the model time `t` of an actor that has been blocked over to its
 * clock: what it owed before blocking it still owes, past its wake-up. */
static inline void resume_at(double *ahead, double t)
{
    double now = simgrid_get_clock();
    *ahead = t > now ? t - now : 0;
}
/* Puts core `a` (NULL: the rank's own actor) back in charge of its rank. */
void pld__sim_resume(struct sim_core *a);
/* Outside the simulation (sim_release): the rank's own state back in it. */
void pld__sim_resume_owner_none(int r);
/* Called at every entry into the backend: flushes wakes, leaves if aborted. */
void pld__sim_leave_if_aborted(void);
/* Brings SimGrid's clock up to the caller's model time. */
void pld__sim_catch_up(double *ahead);
/* The clock hooks of the backend table. */
double pld__sim_now(void);
void pld__sim_charge(double seconds);
void pld__sim_settle(void);
void pld__sim_yield(void);

/* flows.c: a transfer's bytes in flight. */

/* Moves `bytes` from device `from` to `to` over route `m`, starting at
 * SimGrid date `start` (s, not before now), and blocks the calling actor
 * until the last byte has arrived: a solo flow or a SimGrid comm, ending
 * when CM02 ends it.  `f` and `wake` (made on first use) belong to the
 * caller.  A simcall: call it through SIMCALL. */
void pld__sim_flow(struct sim_flow *f, sg_sem_t *wake, int from, int to, double bytes, double start,
                   const struct route_memo *m);

/* What PLD_SOLO_FLOWS and the run allow: solo flows need CM02 as pldsim
 * sets it up, no SimGrid setting that changes flows or traces them, and a
 * platform whose lone flows take what its links say.  A SOLO_* value, or a
 * negative PLD_E* code after printing why (PLD_SOLO_FLOWS is on, off or
 * report). */
enum { SOLO_OFF, SOLO_ON, SOLO_REPORT, SOLO_OFF_REPORT };
int pld__sim_solo_flows_mode(const struct pld__run_env *env);
/* PLD_SOLO_FLOWS=report: one line on stderr, how the run's flows went. */
void pld__sim_flows_report(void);

/* transfer.c: bulk bytes, synchronous and on the DMA engines. */

/* The route from -> to, memoised per rank; 0, or PLD_EPLATFORM. */
int pld__sim_route(struct sim_rank *rk, int from, int to, double *lat, double *bw);
/* The same, and the memo entry with the route's links. */
const struct route_memo *pld__sim_route_links(struct sim_rank *rk, int from, int to);
/* The data hooks of the backend table. */
int pld__sim_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                  struct pld__span dst, struct pld__cost *c);
int pld__sim_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span src, pl_atomic op, struct pld__cost *c);
int pld__sim_write_async(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                         struct pld__span src, const struct pld__cost *c, void **h);
void pld__sim_wait_write(void *h, struct pld__cost *c);

/* vcores.c: a rank's vector cores as actors of their own (run_cores). */

/* Frees the cores of rk's last run_cores. */
void pld__sim_free_batch(struct sim_rank *rk);
/* The run_cores hook of the backend table. */
void pld__sim_run_cores(int n, void (*fn)(void *arg, int core), void *arg);

/* landing.c: notifies to other ranks, landed by a timer when due. */

/* Applies op(value) to `owner`'s `cell` once SimGrid's clock reaches `due`
 * (s), then calls fe->landed and wakes the waits it satisfies; sets
 * c->landing.  0, or PLD_ENOMEM. */
int pld__sim_land_later(int owner, int32_t *cell, pld_notify_op op, int32_t value, double due,
                        struct pld__cost *c);
/* Lands now the updates to `rank` due by its model time `t`, in the order
 * the timer would: its wait may read them, as it reads those due before
 * SimGrid's clock.  Not while the rank runs other cores, which may be
 * behind `t`. */
void pld__sim_land_early(int rank, double t);
/* Frees the updates of the run (sim_release). */
void pld__sim_free_updates(void);

/* waits.c: signals, waits, idle cores, deadlock detection and abort. */

/* From maestro, once nothing is in flight: when every rank is blocked for
 * good, wakes one, which then finds the deadlock and ends the run. */
void pld__sim_wake_if_stuck(void);

/* Wakes the waits of `rk` that `force` or their cells now satisfy. */
void pld__sim_wake_waiter(struct sim_rank *rk, int force);
/* Wakes the waiter the caller's last notify may have satisfied. */
void pld__sim_flush_wakes(void);
/* Ends the run with a deadlock report when no rank can ever move again. */
void pld__sim_declare_deadlock_if_stuck(void);
/* The signal and task-graph hooks of the backend table. */
int pld__sim_notify(int owner, const struct pld__cell_ref *ref, pld_notify_op op, int32_t value,
                    struct pld__cost *c);
void pld__sim_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected);
void pld__sim_idle(int (*ready)(void *arg), void *arg);
void pld__sim_kick(void);
_Noreturn void pld__sim_abort_run(void);

#pragma GCC visibility pop

#endif
