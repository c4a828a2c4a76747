/* observe.c: the record phase of an op, applied in one place (issue 29
 * item 3): the op table's kind and price say whether the op moved bytes
 * between ranks (the transfer is recorded, and a missing route reported),
 * then the race detector sees the regions it touched, then the trace gets
 * its event.  The primitives call it once, after the backend call, instead
 * of the observers inline; the order is the one they used, so traces and
 * reports are the same byte for byte. */
#include "internal.h"
#include "backend.h"

#include <string.h>

/* An op moves bytes between ranks when its lane is data or signal and the
 * op table gives it a price: a deferred wait is a signal op that only
 * registers, priced "none", and moves nothing. */
static int moves_bytes(enum pld__op op)
{
    enum pld__kind k = pld__ops[op].kind;
    return (k == PLD__KIND_DATA || k == PLD__KIND_SIGNAL) && strcmp(pld__ops[op].price, "none");
}

int64_t pld__observe(const struct pld__observed *o)
{
    if (moves_bytes(o->op))
        pld__op_done(o->file, o->line, o->op, o->from, o->to, o->rc, o->cost);
    int me = pld__self();
    for (int i = 0; i < 2; i++) {
        const struct pld__touch *r = &o->touch[i];
        if (r->t.dtype != 0)
            pld__races_region(me, r->t, r->copy, r->offsets, r->shape, r->write, r->atomic, o->api,
                              o->file, o->line);
    }
    return pld__trace_op(o->op, o->t0, o->peer, o->t, o->elem_off, o->bytes, o->value, o->file,
                         o->line);
}

void pld__observe_work(enum pld__op op, double t0, int peer, int64_t bytes, const char *file,
                       int line)
{
    pld__observe(&(struct pld__observed){.op = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .peer = peer,
                                         .elem_off = -1,
                                         .bytes = bytes,
                                         .value = PLD__MISSING});
}
