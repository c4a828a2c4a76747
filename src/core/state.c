/* state.c: the run in progress and the three questions every layer asks of
 * it: who is executing, what time it is, and how long a rank's device ran.
 * A leaf: it names no other module, so any file may read the run's state
 * without climbing up to run.c, which sets it and calls every module. */
#include "internal.h"
#include "contract.h"

struct pld__run *pld__R;

extern inline int pld__self(void);

int pld__self_ask(void)
{
    if (!pld__R || !pld__R->be)
        return PLD__NOBODY;
    return pld__R->be->self();
}

double pld__now(void)
{
    return pld__R && pld__R->be ? pld__R->be->now() : 0.0;
}

double pld__device_wall(const struct pld__rank *rk)
{
    double w = 0;
    for (int i = 0; i < rk->nspans; i++)
        if (rk->spans[i].t1 - rk->spans[i].t0 > w)
            w = rk->spans[i].t1 - rk->spans[i].t0;
    return w;
}
