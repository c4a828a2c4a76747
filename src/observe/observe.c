/* observe.c: the record phase of an op, applied in one place (issue 29
 * item 3): the op table's kind and price say whether the op moved bytes
 * between ranks (the transfer is recorded, and a missing route reported),
 * then the race detector sees the regions and the signal cell it touched,
 * then the trace gets its event.  The primitives call it once, after the
 * backend call, instead of the observers inline; the order is the one they
 * used, so traces and reports are the same byte for byte. */
#include "internal.h"
#include "cost.h"
#include "observe.h"
#include "detect.h"
#include "backend.h"

#include <string.h>

/* An op moves bytes between ranks when its lane is data or signal and the
 * op table gives it a price: a deferred wait is a signal op that only
 * registers, priced "none", and moves nothing. */
static int moves_bytes(enum pld__op op)
{
    /* the answer of each op, found once (0: not yet, 1: no, 2: yes): a
     * strcmp at every notify was 0.4 % of the ring allreduce's
     * instructions.  Ranks may be threads; they write the same value. */
    static signed char known[PLD__NOPS];
    int v = __atomic_load_n(&known[op], __ATOMIC_RELAXED);
    if (!v) {
        enum pld__kind k = pld__ops[op].kind;
        v = 1 + ((k == PLD__KIND_DATA || k == PLD__KIND_SIGNAL) &&
                 strcmp(pld__ops[op].price, "none") != 0);
        __atomic_store_n(&known[op], (signed char)v, __ATOMIC_RELAXED);
    }
    return v == 2;
}

static void transfer(const struct pld__observed *o, int me)
{
    const struct pld__async_put *p = o->landed;
    if (p) /* its bytes have landed: the transfer counts now, at its issue's line */
        pld__op_done(p->file, p->line, PLD__OP_PUT_ASYNC, me, p->peer, 0, &p->c);
    else if (o->issued ? o->rc != 0 /* in flight: only a missing route is known yet */
                       : moves_bytes(o->op))
        pld__op_done(o->file, o->line, o->op, o->from, o->to, o->rc, o->cost);
}

/* Without a race detector (every run above 64 ranks, and any with races
 * off) the race calls all return at once, but each region's call first
 * copied a tensor and two shapes (200 bytes) to the stack: only what the
 * other observers need is done then, the same way. */
static void no_races(const struct pld__observed *o, int me)
{
    if (o->issued) /* its flight, marked as not watched */
        pld__races_put_async_issued(me, o->issued, o->api, &o->issued->flight);
    const struct pld__observed_cell *c = &o->cell;
    if (c->use != PLD__CELL_NOTIFY || !c->p)
        return;
    if (o->cost && o->cost->landing) /* what pld__races_release_begin gives */
        o->cost->landing->release = NULL;
    if (c->how == PLD_NOTIFY_SET || c->value > 0) /* as races() does, below */
        pld__deadlock_note(c->win, c->p, me);
}

static void races(const struct pld__observed *o, int me)
{
    if (!pld__R->racer) {
        no_races(o, me);
        return;
    }
    if (o->issued) /* from here until its wait the engine reads src and writes dst */
        pld__races_put_async_issued(me, o->issued, o->api, &o->issued->flight);
    const struct pld__async_put *p = o->landed;
    if (p) { /* its accesses end here, ordered as this rank's at the wait, named at its line */
        const char *api = pld__ops[PLD__OP_PUT_ASYNC].api;
        pld__races_landed(&p->flight);
        pld__races_region(me, p->src, me, p->src_off, p->shape, 0, 0, api, p->file, p->line);
        pld__races_region(me, p->dst, p->peer, p->dst_off, p->shape, 1, 0, api, p->file, p->line);
    }
    for (int i = 0; i < o->ntouch; i++) {
        const struct pld__touch *r = &o->touch[i];
        if (r->t.dtype != 0)
            pld__races_region(me, r->t, r->copy, r->offsets, r->shape, r->write, r->atomic, o->api,
                              o->file, o->line);
    }
    const struct pld__observed_cell *c = &o->cell;
    switch (c->use) {
    case PLD__CELL_NONE:
        break;
    case PLD__CELL_NOTIFY:
        if (!c->p) /* the cell lies in another process: nothing here to watch */
            break;
        pld__races_notify(me, c->win, c->copy, c->at, (pld_notify_op)c->how, c->value, o->api,
                          o->file, o->line);
        if (o->cost && o->cost->landing) /* the arrival is recorded as it lands */
            o->cost->landing->release = pld__races_release_begin(me);
        else
            pld__races_release(me, c->p, (pld_notify_op)c->how, c->value);
        /* only an update that can release a wait makes its rank the cell's
         * notifier: a barrier's epilogue takes its credits back with a
         * negative add to itself, which would otherwise be named as the
         * last notifier of the cell a rank is stuck on */
        if (c->how == PLD_NOTIFY_SET || c->value > 0)
            pld__deadlock_note(c->win, c->p, me);
        break;
    case PLD__CELL_WAIT:
        pld__races_acquire(me, c->p, (pld_wait_cmp)c->how, c->value);
        pld__races_access(me, c->win, c->copy, c->at, c->at + 4, 0, 1, o->api, o->file, o->line);
        break;
    case PLD__CELL_READ:
        pld__races_access(me, c->win, c->copy, c->at, c->at + 4, 0, 1, o->api, o->file, o->line);
        break;
    }
}

int64_t pld__observe(const struct pld__observed *o)
{
    int me = pld__self();
    transfer(o, me);
    races(o, me);
    if (o->poll) /* after the race detector took the read's time, as the wait's */
        pld__charge_poll();
    pld__trust_account(o->op, o->t0, o->t1 > 0 ? o->t1 : pld__now());
    /* most runs have neither a trace nor a recording rank: no event */
    int64_t seq =
        pld__R && (pld__R->trace || __atomic_load_n(&pld__R->any_recording, __ATOMIC_RELAXED))
            ? pld__trace_op(o->op, o->t0, o->t1, o->peer, o->t, o->elem_off, o->bytes, o->value,
                            o->file, o->line)
            : -1;
    /* the trace's arrows: which notify last set a cell, which one released a wait */
    if (o->cell.use == PLD__CELL_NOTIFY && o->cost && o->cost->landing)
        o->cost->landing->seq = seq; /* the cell's last notify once it lands */
    else if (o->cell.use == PLD__CELL_NOTIFY && o->cell.p)
        pld__trace_note_cell(o->cell.p, seq);
    else if (o->cell.use == PLD__CELL_WAIT)
        pld__trace_set_cause(seq, o->cell.p);
    return seq;
}

void pld__observe_landed(struct pld__landing *l, int notifier, const int32_t *cell,
                         pld_notify_op op, int32_t value)
{
    pld__races_release_land(notifier, cell, op, value, l->release);
    l->release = NULL;
    if (l->seq >= 0)
        pld__trace_note_cell(cell, l->seq);
}

void pld__observe_work(enum pld__op op, double t0, double t1, int peer, int64_t bytes,
                       const char *file, int line)
{
    pld__observe(&(struct pld__observed){.op = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .t1 = t1,
                                         .peer = peer,
                                         .elem_off = -1,
                                         .bytes = bytes,
                                         .value = PLD__MISSING});
}
