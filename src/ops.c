/* ops.c: the operation table, and the one place that records what a
 * transfer did (trace, counters) once the backend has carried it out. */
#include "internal.h"
#include "backend.h"

#include <string.h>

const struct pld__op_info pld__ops[PLD__NOPS] = {
#define PLD__OP_ROW(id, tr, ap, k) [PLD__OP_##id] = {.trace = tr, .api = ap, .kind = PLD__KIND_##k},
    PLD__OP_LIST(PLD__OP_ROW)
#undef PLD__OP_ROW
};

void pld__op_done(const char *file, int line, enum pld__op op, int from, int to, int rc,
                  const struct pld__cost *c)
{
    struct pld__run *R = pld__R;
    if (rc != 0)
        pld__fail(PLD_EPLATFORM, file, line, pld__ops[op].api,
                  "platform %s has no route from dev%d (rank %d) to dev%d (rank %d)",
                  R->platform_desc, R->ranks[from].device_id, from, R->ranks[to].device_id, to);
    if (from == to || c->bytes <= 0)
        return;
    pld__trace_xfer(c->t_start, c->t_end, from, to, c->bytes, pld__ops[op].kind == PLD__KIND_SIGNAL,
                    op == PLD__OP_PUT_ASYNC);
    /* ranks may be threads (threads backend): count atomically */
    uint64_t bytes = (uint64_t)c->bytes;
    __atomic_fetch_add(&R->bytes_moved, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->transfers, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[from].bytes_sent, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[to].bytes_received, bytes, __ATOMIC_RELAXED);
}

int pld__op_by_trace_name(const char *name)
{
    for (int i = 0; i < PLD__NOPS; i++)
        if (strcmp(pld__ops[i].trace, name) == 0)
            return i;
    return -1;
}
