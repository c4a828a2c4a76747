/* cores.c: several vector cores of one rank running one kernel at once
 * (upstream's core_num: a builtin launches a grid of blocks, one per AIV).
 *
 * Every core of a rank is that rank to the rest of libpld: the same window
 * slot, the same ops.  What each core has of its own is the kernel state,
 * the fields of struct pld__rank from `kernel` to `race_thread`: its UB
 * arena, the wait it is blocked in, the builtin it is in, its put_async
 * events, its cube pipes, and its program order for the race detector (a
 * credit one core receives orders nothing another core does).  A backend
 * that runs cores at once keeps one copy of that state per core and swaps
 * it into the rank while the core runs; the fields are kept together for
 * that. */
#include "internal.h"
#include "mem.h"
#include "detect.h"
#include "backend.h"
#include "cost.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define KSTATE_FIRST offsetof(struct pld__rank, kernel)
#define KSTATE_END   offsetof(struct pld__rank, bytes_sent)

size_t pld__kstate_size(void)
{
    return KSTATE_END - KSTATE_FIRST;
}

void pld__kstate_save(const struct pld__rank *rk, void *to)
{
    memcpy(to, (const char *)rk + KSTATE_FIRST, pld__kstate_size());
}

void pld__kstate_load(struct pld__rank *rk, const void *from)
{
    memcpy((char *)rk + KSTATE_FIRST, from, pld__kstate_size());
}

void pld__kstate_fork(const struct pld__rank *rk, void *to)
{
    struct pld__rank core = *rk;
    core.ub_blocks = NULL;
    core.ub_nblocks = core.ub_cap = 0;
    core.nspare = 0;
    core.async = NULL;
    memset(&core.pipes, 0, sizeof core.pipes);
    core.wait = (struct pld__wait_info){0};
    core.guard = NULL;
    core.task = 0;
    pld__kstate_save(&core, to);
}

void pld__kstate_release(struct pld__rank *rk)
{
    pld__ub_release_all(rk);
    pld__async_release(rk);
}

/* A launch's cores, as the race detector sees them: each core enters its
 * own program order before it runs. */
struct launch {
    void (*fn)(void *arg, int core);
    void *arg;
    int rank, launcher;
};

static void core_of_launch(void *p, int core)
{
    const struct launch *l = p;
    pld__races_core_enter(l->rank, core, l->launcher);
    l->fn(l->arg, core);
}

void pld__run_cores(int n, void (*fn)(void *arg, int core), void *arg)
{
    const struct pld_backend *be = pld__R->be;
    int me = pld__self();
    struct launch l = {fn, arg, me, n > 1 && me >= 0 ? pld__races_thread(me) : -1};
    if (l.launcher >= 0) {
        pld__races_cores_begin(me, n, l.launcher);
        fn = core_of_launch;
        arg = &l;
    }
    if (n > 1 && be->run_cores) {
        pld__gm_cores(n); /* its cores may now share the device's GM */
        be->run_cores(n, fn, arg);
        pld__gm_cores(-n);
    } else {
        for (int c = 0; c < n; c++)
            fn(arg, c);
    }
    if (l.launcher >= 0)
        pld__races_cores_done(me, n, l.launcher);
}
