/* ops.c: the operation table, a leaf of the core: every layer looks ops up
 * here, so it calls nobody (recording a transfer is events.c's). */
#include "internal.h"
#include "contract.h"

#include <string.h>

const struct pld__op_info pld__ops[PLD__NOPS] = {
#define PLD__OP_ROW(id, tr, ap, k, pr)                                                             \
    [PLD__OP_##id] = {.trace = tr, .api = ap, .kind = PLD__KIND_##k, .price = #pr},
    PLD__OP_LIST(PLD__OP_ROW)
#undef PLD__OP_ROW
};

int pld__op_by_trace_name(const char *name)
{
    for (int i = 0; i < PLD__NOPS; i++)
        if (strcmp(pld__ops[i].trace, name) == 0)
            return i;
    return -1;
}
