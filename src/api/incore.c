/* incore.c: entering and leaving an InCore kernel on a rank: the launch's
 * cost, the UB's scope and the async puts a kernel must not leave behind.
 * Below the dispatch (levels.c) and the task graphs (taskgraph_run.c),
 * which both run kernels, so that neither calls the other back. */
#include "internal.h"
#include "cost.h"
#include "mem.h"
#include "observe.h"
#include "backend.h"

void pld__incore_enter(const char *file, int line, const char *kernel)
{
    static const char op[] = "pl_incore";
    int self = pld__self();
    if (self >= 0 && pld__R->ranks[self].kernel)
        pld__fail(PLD_EINVAL, file, line, op,
                  "kernel %s called from inside kernel %s: kernels do not nest", kernel,
                  pld__R->ranks[self].kernel);
    pld__require_level(file, line, op, PLD__LVL_DEVICE);
    struct pld__rank *rk = &pld__R->ranks[self];
    double t0 = pld__now();
    pld__charge_launch();
    rk->kernel = kernel;
    rk->builtin = 0;
    rk->kernel_file = file;
    rk->kernel_line = line;
    pld__ub_enter(rk);
    pld__observe_work(PLD__OP_LAUNCH, t0, 0, -1, -1, file, line);
}

void pld__incore_exit(void)
{
    int self = pld__self();
    struct pld__rank *rk = &pld__R->ranks[self];
    pld__pipes_settle(rk); /* the kernel ends when its cube's pipes do */
    pld__async_kernel_exit(rk);
    pld__ub_exit(rk);
    rk->kernel = NULL;
}
