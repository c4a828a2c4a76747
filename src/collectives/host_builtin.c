/* host_builtin.c: a builtin collective called from the host orchestrator
 * or from a per-device function.
 *
 * Upstream's compiler lowers a collective written in a host orchestrator
 * into a builtin kernel dispatched to every rank at that point of the
 * host's program.  So does pldsim: the call becomes one task per rank, in
 * rank order, whose kernel makes the same call there.  Each rank runs its
 * tasks in order, so the builtin comes after the host's earlier dispatches
 * to that rank and before its later ones.  Window views name every rank's
 * copy at once, so the same arguments serve every rank.  Written in a
 * per-device (chip) orchestrator, the same builtin kernel is launched on
 * that device at that point (upstream's L2 rail).  Either way the kernel is
 * upstream's template, whose transfers are 256-element tiles. */
#include "collective.h"

void pld__host_builtin(const struct pld__host_call *h)
{
    if (pld__self() >= 0) {
        pld__host_task(h); /* a per-device function's call: on this device */
        return;
    }
    /* the ranks of the collective's comm group: those of its first window
     * view (every view of one call must be in that group; the kernel checks) */
    const struct pld__group *g = NULL;
    for (int i = 0; i < 5 && !g; i++)
        if (h->t[i].dtype != 0 && h->t[i].win)
            g = h->t[i].win->group;
    int n = g ? g->n : pld__R->P;
    for (int i = 0; i < n; i++)
        pld__dispatch(h->file, h->line, g ? g->members[i] : i, h->name,
                      (pld__task_fn)(void (*)(void))pld__host_task, h, sizeof *h);
}

void pld__host_task(const struct pld__host_call *h)
{
    pld__incore_enter(h->file, h->line, h->name);
    pld__R->ranks[pld__self()].builtin = 1;
    h->kernel(h); /* the collective's own kernel: this file names none */
    pld__incore_exit();
}

int pld__builtin_rail(void)
{
    int self = pld__R ? pld__self() : PLD__NOBODY;
    if (self == PLD__NOBODY)
        return 0;
    return self < 0 || (pld__R->ranks[self].in_task && !pld__R->ranks[self].kernel);
}
