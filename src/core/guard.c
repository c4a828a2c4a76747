/* guard.c: the guards of pld_embed.h, which turn a backend's exit from a
 * rank into a return to the front end's own frame.  Core, not API: the
 * backends call pld__guard_escape and the task graph pld_run_aborting, and
 * neither may depend on the embedding API above them. */
#include "internal.h"
#include "contract.h"

#include <pld/pld_embed.h>

/* Where the caller's innermost guard is kept: the rank's, or the host's. */
static struct pld_guard **guard_slot(int self)
{
    if (!pld__R || self == PLD__NOBODY)
        return NULL;
    if (self == PLD__HOST)
        return &pld__R->host_guard;
    return &pld__R->ranks[self].guard;
}

void pld_guard_push(pld_guard *g)
{
    int self = pld__self();
    struct pld_guard **slot = guard_slot(self);
    g->who = self;
    g->prev = NULL;
    if (!slot)
        return;
    g->prev = *slot;
    *slot = g;
}

void pld_guard_pop(pld_guard *g)
{
    struct pld_guard **slot = guard_slot(g->who);
    /* after an escape the slot already points past g */
    if (slot && *slot == g)
        *slot = g->prev;
}

pld_guard *pld_guard_innermost(void)
{
    struct pld_guard **slot = guard_slot(pld__self());
    return slot ? *slot : NULL;
}

void pld__guard_escape(void)
{
    struct pld_guard **slot = guard_slot(pld__self());
    if (!slot || !*slot)
        return;
    struct pld_guard *g = *slot;
    *slot = g->prev;
    siglongjmp(g->env, 1);
}

int pld_run_aborting(void)
{
    return pld__R && __atomic_load_n(&pld__R->error, __ATOMIC_ACQUIRE) != 0;
}
