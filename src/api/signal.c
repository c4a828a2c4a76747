/* signal.c: notify and wait on INT32 signal cells (release/acquire). */
#include "internal.h"
#include "cost.h"
#include "mem.h"
#include "observe.h"
#include "backend.h"

/* Is `t` a dense INT32 window view, already made, with `offsets` naming
 * one of its cells?  The common case, decided without copying the tensor
 * into each check in turn: a collective's signal ops are most of its ops. */
static int signal_ok(const pl_tensor *t, pl_shape offsets)
{
    if (t->dtype != PL_INT32 || !t->win || !t->win->mem || t->layout.ndim ||
        offsets.ndim != t->shape.ndim || offsets.ndim == 0)
        return 0;
    for (int i = 0; i < offsets.ndim; i++)
        if (offsets.dim[i] < 0 || offsets.dim[i] >= t->shape.dim[i])
            return 0;
    return 1;
}

/* The checks that say what is wrong with a signal operand signal_ok
 * refused, one by one (or make its window's storage, when that was all). */
static __attribute__((noinline)) void explain_signal(const char *file, int line, const char *op,
                                                     const char *what, const pl_tensor *tp,
                                                     pl_shape offsets)
{
    pl_tensor t = *tp;
    pld__check_tensor(file, line, op, what, t);
    if (!t.win)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s '%s' is a host tensor; signals live in windows (make it with pld_window)",
                  what, t.name);
    if (t.dtype != PL_INT32)
        pld__fail(PLD_EINVAL, file, line, op, "%s '%s' is %s; signal cells must be INT32", what,
                  t.name, pl_dtype_name(t.dtype));
    if (offsets.ndim == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .offsets");
    pld__check_dense(file, line, op, what, t);
    pld__check_region(file, line, op, what, t, offsets,
                      (pl_shape){.ndim = t.shape.ndim, .dim = {1, 1, 1, 1}});
    pld__materialize(file, line, op, t.win);
}

void pld__check_signal(const char *file, int line, const char *op, const char *what,
                       const pl_tensor *t, pl_shape offsets)
{
    if (!signal_ok(t, offsets))
        explain_signal(file, line, op, what, t, offsets);
}

int64_t pld__cell_offset(const pl_tensor *t, const pl_shape *offsets)
{
    int64_t flat = 0;
    for (int i = 0; i < t->shape.ndim; i++)
        flat = flat * t->shape.dim[i] + offsets->dim[i];
    return flat * 4;
}

void pld__notify(const char *file, int line, pld_dtensor target, struct pld_notify_kw kw)
{
    static const char op[] = "pld_system_notify";
    struct pld__rank *rk = pld__op_rank(file, line, op);
    int me = (int)(rk - pld__R->ranks);
    double t0 = pld__now();

    if (kw.peer == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .peer");
    if (kw.value == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .value");
    if (kw.op == 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "missing required keyword .op (PLD_NOTIFY_ATOMIC_ADD or PLD_NOTIFY_SET)");
    if (kw.op != PLD_NOTIFY_ATOMIC_ADD && kw.op != PLD_NOTIFY_SET)
        pld__fail(PLD_EINVAL, file, line, op,
                  ".op is %d; expected PLD_NOTIFY_ATOMIC_ADD or PLD_NOTIFY_SET", (int)kw.op);
    if (kw.value < INT32_MIN || kw.value > INT32_MAX)
        pld__fail(PLD_EINVAL, file, line, op, "value %lld does not fit in INT32",
                  (long long)kw.value);
    /* a peer is a rank of the target's group (the world's when it has none) */
    int peer =
        target.dtype != 0 && target.win ? pld__peer_rank(file, line, op, &target, kw.peer) : -1;
    pld__check_signal(file, line, op, "target", &target, kw.offsets);
    pld__check_member(file, line, op, "target", &target);
    enum pld__op id = kw.op == PLD_NOTIFY_SET ? PLD__OP_NOTIFY_SET : PLD__OP_NOTIFY_ADD;
    int64_t elem_off = pld__cell_offset(&target, &kw.offsets);
    int64_t at = target.win_offset + elem_off;
    /* the cell's address, when the owner's window is in this process */
    int32_t *cell =
        pld__R->be->caps & PLD_CAP_DISTRIBUTED ? NULL : pld__shm_cell(target.win, peer, at);
    struct pld__cell_ref ref = {target.win, at, cell};
    struct pld__cost c;
    pld__price_notify(&c, me, peer);
    int rc = pld__R->be->notify(peer, &ref, kw.op, (int32_t)kw.value, &c);
    pld__observe(&(struct pld__observed){
        .op = id,
        .api = op,
        .file = file,
        .line = line,
        .t0 = t0,
        .from = me,
        .to = peer,
        .rc = rc,
        .cost = &c,
        .cell = {PLD__CELL_NOTIFY, target.win, peer, at, cell, kw.op, (int32_t)kw.value},
        .peer = peer,
        .t = &target,
        .elem_off = elem_off,
        .bytes = 4,
        .value = kw.value});
}

void pld__wait(const char *file, int line, pld_dtensor signal, struct pld_wait_kw kw)
{
    static const char op[] = "pld_system_wait";
    /* a wait publishes nothing: a cube core's pipes run on while it waits
     * (pld__cube_rank does not settle them), and what it issues after the
     * wait starts when the wait ends (pipes.c) */
    struct pld__rank *rk = pld__cube_rank(file, line, op);
    int me = (int)(rk - pld__R->ranks);
    double t0 = pld__now();

    if (kw.expected == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .expected");
    if (kw.cmp == 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "missing required keyword .cmp (PLD_WAIT_EQ or PLD_WAIT_GE)");
    if (kw.cmp != PLD_WAIT_EQ && kw.cmp != PLD_WAIT_GE)
        pld__fail(PLD_EINVAL, file, line, op, ".cmp is %d; expected PLD_WAIT_EQ or PLD_WAIT_GE",
                  (int)kw.cmp);
    if (kw.expected < INT32_MIN || kw.expected > INT32_MAX)
        pld__fail(PLD_EINVAL, file, line, op, "expected %lld does not fit in INT32",
                  (long long)kw.expected);
    pld__check_signal(file, line, op, "signal", &signal, kw.offsets);
    pld__check_member(file, line, op, "signal", &signal);

    int64_t elem_off = pld__cell_offset(&signal, &kw.offsets);
    int64_t at = signal.win_offset + elem_off;
    int32_t *cell = pld__shm_cell(signal.win, me, at);
    struct pld__cell_ref ref = {signal.win, at, cell};
    rk->wait = (struct pld__wait_info){
        .buf = signal.win,
        .offsets = kw.offsets,
        .expected = kw.expected,
        .cmp = kw.cmp,
        .cellp = cell,
        .file = file,
        .line = line,
        .collective = rk->collective,
    };
    /* published last: a report on another thread reads the rest after it */
    __atomic_store_n(&rk->wait.active, 1, __ATOMIC_RELEASE);
    pld__graph_note_wait(rk);
    pld__R->be->wait(&ref, kw.cmp, (int32_t)kw.expected);
    __atomic_store_n(&rk->wait.active, 0, __ATOMIC_RELAXED);
    pld__graph_note_wait(rk);
    pld__observe(&(struct pld__observed){
        .op = kw.cmp == PLD_WAIT_EQ ? PLD__OP_WAIT_EQ : PLD__OP_WAIT_GE,
        .api = op,
        .file = file,
        .line = line,
        .t0 = t0,
        .cell = {PLD__CELL_WAIT, signal.win, me, at, cell, kw.cmp, (int32_t)kw.expected},
        .poll = 1,
        .peer = -1,
        .t = &signal,
        .elem_off = elem_off,
        .bytes = 4,
        .value = kw.expected});
}
