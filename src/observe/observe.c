/* observe.c: the record phase of an op, applied in one place (issue 29
 * item 3): the op table's kind says whether the op moved bytes between
 * ranks (the transfer is recorded, and a missing route reported), then the
 * race detector sees the regions it touched, then the trace gets its
 * event.  The primitives call it once, after the backend call, instead of
 * three observers inline; the order is the one they used, so traces and
 * reports are the same byte for byte. */
#include "internal.h"
#include "backend.h"

int64_t pld__observe(const struct pld__observed *o)
{
    enum pld__kind k = pld__ops[o->op].kind;
    if (k == PLD__KIND_DATA || k == PLD__KIND_SIGNAL)
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
