/* levels.c: the three levels (host orchestrator, per-device function,
 * kernel), and the system queries that depend on where they are called. */
#include "internal.h"
#include "cost.h"
#include "observe.h"
#include "backend.h"

#include <stdlib.h>
#include <string.h>

int64_t pld__world_size(const char *file, int line)
{
    pld__require_level(file, line, "pld_world_size", PLD__LVL_HOST);
    return pld__R->P;
}

pld_comm_ctx pld__get_comm_ctx(const char *file, int line, pld_dtensor dt)
{
    static const char op[] = "pld_get_comm_ctx";
    pld__require_level(file, line, op, PLD__LVL_HOST | PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    pld__check_tensor(file, line, op, "argument", dt);
    if (!dt.win)
        pld__fail(PLD_EINVAL, file, line, op,
                  "'%s' is a host tensor; a comm context comes from a window view (pld_window)",
                  dt.name);
    int self = pld__self();
    if (self < 0)
        return (pld_comm_ctx){.rank = -1, .nranks = pld__group_n(dt.win)};
    pld__check_member(file, line, op, "window view", &dt);
    return (pld_comm_ctx){.rank = pld__group_rank_of(dt.win, self), .nranks = pld__group_n(dt.win)};
}

int pld__rank(const char *file, int line, pld_comm_ctx ctx)
{
    pld__require_level(file, line, "pld_rank", PLD__LVL_KERNEL);
    if (ctx.nranks <= 0 || ctx.rank < 0)
        pld__fail(PLD_EINVAL, file, line, "pld_rank",
                  "context was not made by pld_get_comm_ctx on this device");
    return ctx.rank;
}

int pld__nranks(const char *file, int line, pld_comm_ctx ctx)
{
    pld__require_level(file, line, "pld_nranks", PLD__LVL_KERNEL);
    if (ctx.nranks <= 0)
        pld__fail(PLD_EINVAL, file, line, "pld_nranks", "context was not made by pld_get_comm_ctx");
    return ctx.nranks;
}

void pld__dispatch(const char *file, int line, int64_t rank, const char *fn_name, pld__task_fn fn,
                   const void *args, size_t size)
{
    static const char op[] = "pld_dispatch";
    struct pld__run *R = pld__R;
    pld__require_level(file, line, op, PLD__LVL_HOST);
    if (rank < 0 || rank >= R->P)
        pld__fail(PLD_EINVAL, file, line, op, "device %lld out of range [0, %d)", (long long)rank,
                  R->P);
    double t0 = pld__now();
    pld__charge_dispatch();
    struct pld__task *t = calloc(1, sizeof *t);
    if (!t || !(t->args = malloc(size ? size : 1)))
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    memcpy(t->args, args, size);
    t->fn = fn;
    t->fn_name = fn_name;
    t->file = file;
    t->line = line;
    pld__observe_work(PLD__OP_DISPATCH, t0, 0, (int)rank, -1, file, line);
    R->be->dispatch((int)rank, t);
}

/* Runs a dispatched task and records its device span.  The slot is made
 * before the task runs, so that running out of memory fails at the
 * dispatch's line rather than losing a span after the fact. */
void pld__run_task(int rank, struct pld__task *t)
{
    struct pld__rank *fr = &pld__R->ranks[rank];
    if (fr->nspans == fr->capspans) {
        int cap = fr->capspans ? 2 * fr->capspans : 4;
        struct pld__dispatch_span *n = realloc(fr->spans, (size_t)cap * sizeof *n);
        if (!n)
            pld__fail(PLD_ENOMEM, t->file, t->line, "pld_dispatch",
                      "out of memory recording the device span of dispatch %d to rank %d",
                      fr->nspans, rank);
        fr->spans = n;
        fr->capspans = cap;
    }
    double t0 = pld__now();
    fr->submitted = t0; /* the orchestrator submits nothing before it starts */
    __atomic_store_n(&fr->in_task, 1, __ATOMIC_RELAXED);
    t->fn(t->args);
    pld__graph_check_closed(rank, t->fn_name);
    __atomic_store_n(&fr->in_task, 0, __ATOMIC_RELAXED);
    fr->spans[fr->nspans++] = (struct pld__dispatch_span){t0, pld__now(), t->fn_name};
}
