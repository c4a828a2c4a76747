/* landing.c: notifies to another rank land when they are due, without the
 * notifier sleeping until then.
 *
 * A notify's update becomes visible at the owner at its due time: the
 * notifier's model time plus the route's latency and signal_bytes over its
 * bandwidth.  The notifier used to sleep until then and apply it itself,
 * one SimGrid activity (and two context switches) per notify.  Now the
 * update waits here, in a heap ordered by due time and then by issue, and
 * one SimGrid timer, set for the earliest, lands every update that is due
 * when it fires: maestro applies them in that order before any actor runs
 * at that date, hands each to the front end (fe->landed: the race
 * detector's arrival, the trace's cell) and wakes the waits they satisfy.
 * The notifier's model time moves on by the notify's time as before, on
 * its own clock.
 *
 * What a rank sees is what it saw: an update is in the cell from the
 * SimGrid date it is due at, and a wait that blocks resumes at the later
 * of its model time and the landing.  docs/models.md, "Local clocks". */
#include "engine.h"

#include <stdlib.h>

/* One update in flight. */
struct sim_update {
    double due;     /* s, SimGrid's clock */
    uint64_t order; /* of issue: breaks ties between equal due times */
    int32_t *cell;
    int owner, notifier;
    pld_notify_op op;
    int32_t value;
    struct pld__landing landing; /* what the front end keeps until it lands */
    int landed;                  /* early, by its owner's wait: the heap skips it */
    /* the owner's updates in flight, earliest due first (then issue); then
     * the spare list */
    struct sim_update *next, *prev;
};

static int before(const struct sim_update *a, const struct sim_update *b)
{
    return a->due < b->due || (a->due == b->due && a->order < b->order);
}

static void sift_up(struct sim_update **h, size_t i)
{
    struct sim_update *u = h[i];
    while (i > 0 && before(u, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = u;
}

static void sift_down(struct sim_update **h, size_t n, size_t i)
{
    struct sim_update *u = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(h[c + 1], h[c]))
            c++;
        if (!before(h[c], u))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = u;
}

static void land_due(void);

static void pop(void)
{
    struct sim_state *S = pld__sim;
    S->pending[0] = S->pending[--S->npending];
    if (S->npending)
        sift_down(S->pending, S->npending, 0);
}

/* The timer, for the heap's earliest update not landed yet. */
static void arm(void)
{
    struct sim_state *S = pld__sim;
    while (S->npending && S->pending[0]->landed) {
        struct sim_update *u = S->pending[0];
        pop();
        u->next = S->spare;
        S->spare = u;
    }
    if (!S->npending)
        return;
    double due = S->pending[0]->due;
    if (S->timer && S->timer_at <= due)
        return;
    if (S->timer)
        pld__sgx_timer_cancel(S->timer);
    S->timer = pld__sgx_timer_set(due, land_due);
    S->timer_at = due;
}

/* Applies one update (unless the run was aborted) and wakes its owner's
 * waits that it satisfies. */
static void land(struct sim_update *u)
{
    struct sim_state *S = pld__sim;
    struct sim_rank *o = &S->rk[u->owner];
    if (u->prev)
        u->prev->next = u->next;
    else
        o->inbound = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        o->inbound_tail = u->prev;
    u->landed = 1;
    if (S->aborted) {
        free(u->landing.release);
        return;
    }
    int32_t *cell = u->cell;
    if (u->op == PLD_NOTIFY_SET)
        *cell = u->value;
    else
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)u->value); /* wraps like the hardware */
    S->fe->landed(&u->landing, u->notifier, cell, u->op, u->value);
    pld__sim_wake_waiter(o, 0);
}

/* The timer: maestro lands every update due by now, earliest first. */
static void land_due(void)
{
    struct sim_state *S = pld__sim;
    int self = pld__sim_cur;
    pld__sim_cur = PLD__NOBODY; /* no rank runs here */
    S->timer = NULL;
    double now = simgrid_get_clock();
    while (S->npending && S->pending[0]->due <= now) {
        struct sim_update *u = S->pending[0];
        pop();
        if (!u->landed) {
            land(u);
            S->inflight--;
        }
        u->next = S->spare;
        S->spare = u;
    }
    arm();
    /* with nothing left in flight, the ranks' waits may be for good; the
     * last rank to block saw updates in flight and could not tell */
    if (!S->inflight && S->all_landed)
        S->all_landed();
    pld__sim_cur = self;
}

int pld__sim_land_later(int owner, int32_t *cell, pld_notify_op op, int32_t value, double due,
                        struct pld__cost *c)
{
    struct sim_state *S = pld__sim;
    if (S->npending == S->cap_pending) {
        size_t cap = S->cap_pending ? 2 * S->cap_pending : 64;
        struct sim_update **h = realloc(S->pending, cap * sizeof *h);
        if (!h)
            return PLD_ENOMEM;
        S->pending = h;
        S->cap_pending = cap;
    }
    struct sim_update *u = S->spare;
    if (u)
        S->spare = u->next;
    else if (!(u = malloc(sizeof *u)))
        return PLD_ENOMEM;
    *u = (struct sim_update){.due = due,
                             .order = S->issued++,
                             .cell = cell,
                             .owner = owner,
                             .notifier = sim_self(),
                             .op = op,
                             .value = value,
                             .landing = {.seq = -1}};
    /* the owner's list is kept earliest first (its order of landing):
     * from the tail, where a later notify's update usually goes */
    struct sim_rank *o = &S->rk[owner];
    struct sim_update *after = o->inbound_tail;
    while (after && before(u, after))
        after = after->prev;
    u->prev = after;
    u->next = after ? after->next : o->inbound;
    if (u->next)
        u->next->prev = u;
    else
        o->inbound_tail = u;
    if (after)
        after->next = u;
    else
        o->inbound = u;
    S->inflight++;
    S->pending[S->npending] = u;
    sift_up(S->pending, S->npending++);
    arm();
    c->landing = &u->landing;
    return 0;
}

void pld__sim_land_early(int rank, double t)
{
    struct sim_state *S = pld__sim;
    struct sim_rank *rk = &S->rk[rank];
    if (rk->cores) /* another core of the rank may be behind `t` */
        return;
    /* Every update due by `t` lands, earliest first: the head of the
     * rank's list, which is kept in that order.  The list used to be in
     * issue order and was searched whole for the earliest, at every wait:
     * a barrier's P - 1 waits on P - 1 updates each made it cubic in P
     * (78 % of a barrier at P = 1024). */
    while (rk->inbound && rk->inbound->due <= t) {
        land(rk->inbound);
        S->inflight--;
    }
}

void pld__sim_free_updates(void)
{
    struct sim_state *S = pld__sim;
    if (S->timer) /* only after a run that never ran: a run ends with no timer left */
        pld__sgx_timer_cancel(S->timer);
    S->timer = NULL;
    for (size_t i = 0; i < S->npending; i++) {
        if (!S->pending[i]->landed)
            free(S->pending[i]->landing.release);
        free(S->pending[i]);
    }
    free(S->pending);
    for (struct sim_update *u = S->spare, *n; u; u = n) {
        n = u->next;
        free(u);
    }
}
