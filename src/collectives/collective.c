/* collective.c: the self-clearing credit barrier and the checks and views
 * that every builtin collective shares. */
#include "collective.h"
#include "cost.h"
#include "mem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Do the mesh builtins with one barrier include `name`?  They have a
 * split-phase form (pld_deferred). */
static int has_split_form(const char *name)
{
    static const char *const splits[] = {"pld_tensor_allgather", "pld_tensor_all_to_all",
                                         "pld_tensor_all_to_all_v", "pld_tensor_broadcast",
                                         "pld_tensor_barrier"};
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++)
        if (strcmp(name, splits[k]) == 0)
            return 1;
    return 0;
}

void pld__coll_begin(struct pld__coll *c, const char *file, int line, const char *name,
                     pld_dtensor ctx_of)
{
    *c = (struct pld__coll){.file = file, .line = line, .name = name};
    c->rk = pld__op_rank(file, line, name);
    if (ctx_of.dtype == 0 || !ctx_of.win)
        pld__fail(PLD_EINVAL, file, line, name,
                  "'%s' must be a window view (pld_window): collectives work on windows",
                  ctx_of.name ? ctx_of.name : "argument");
    pld__check_dense(file, line, name, ctx_of.name ? ctx_of.name : "argument", ctx_of);
    pld_comm_ctx ctx = pld__get_comm_ctx(file, line, ctx_of);
    c->me = pld__rank(file, line, ctx);
    c->nr = pld__nranks(file, line, ctx);
    c->group = ctx_of.win->group;
    c->outer = c->rk->collective;
    c->builtin = c->rk->builtin;
    c->rk->collective = name;
    /* a split call is asked for rarely: the name is looked at only then */
    c->defer = pld__defer_take(file, line, name, c->nr - 1);
    if (c->defer && !has_split_form(name))
        pld__fail(PLD_EINVAL, file, line, name,
                  "defer=True is for the mesh builtins with one barrier (allgather, all_to_all, "
                  "all_to_all_v, broadcast, barrier); %s has no split-phase form",
                  pld__op_shown(name));
}

void pld__coll_end(struct pld__coll *c)
{
    c->rk->collective = c->outer;
}

void pld__coll_check_group(struct pld__coll *c, const char *what, pl_tensor t)
{
    if (!t.win || t.win->group == c->group)
        return;
    const struct pld__group *g = t.win->group;
    pld__fail(PLD_EINVAL, c->file, c->line, c->name,
              "%s '%s' is in the comm group of %s but the call's is %s: every window of a "
              "collective must be in one group",
              what, t.name, g ? g->desc : "the whole world",
              c->group ? c->group->desc : "the whole world");
}

void pld__coll_mesh_signal(struct pld__coll *c, pld_dtensor s)
{
    char a[64];
    pld__coll_check_group(c, "signal", s);
    int ok = s.dtype == PL_INT32 && s.win &&
             ((s.shape.ndim == 1 && s.shape.dim[0] == c->nr) ||
              (s.shape.ndim == 2 && s.shape.dim[0] == c->nr && s.shape.dim[1] == 1));
    if (!ok)
        pld__fail(PLD_EINVAL, c->file, c->line, c->name,
                  "signal '%s' is %s %s%s; expected an INT32 window view of shape [%d] or [%d, 1]",
                  s.name ? s.name : "?", pld__shape_str(s.shape, a, sizeof a),
                  pl_dtype_name(s.dtype), s.win ? "" : " (a host tensor)", c->nr, c->nr);
    pld__check_dense(c->file, c->line, c->name, "signal", s);
    c->sig = s;
}

static pl_shape cell(const struct pld__coll *c, int r)
{
    return c->sig.shape.ndim == 2 ? PL_IDX(r, c->lane) : PL_IDX(r);
}

/* The barrier's first half: a credit into cell [me] of every peer. */
static void credit_peers(struct pld__coll *c)
{
    c->k++;
    for (int p = 0; p < c->nr; p++)
        if (p != c->me)
            COLL_NOTIFY(c, c->sig, p, cell(c, c->me), 1);
}

void pld__coll_barrier(struct pld__coll *c)
{
    credit_peers(c);
    for (int s = 0; s < c->nr; s++)
        if (s != c->me)
            COLL_WAIT(c, c->sig, cell(c, s), c->k);
}

void pld__coll_epilogue(struct pld__coll *c)
{
    /* A peer already in its next call may have added a credit for that call;
     * adds commute, so it survives this subtraction. */
    for (int s = 0; s < c->nr; s++)
        if (s != c->me)
            COLL_NOTIFY(c, c->sig, c->me, cell(c, s), -c->k);
}

/* What a split-phase call keeps for its rest. */
struct rest {
    struct pld__coll c;
    pld__coll_then then;
    size_t size;
    _Alignas(max_align_t) unsigned char arg[];
};

static void run_rest(void *p)
{
    struct rest *r = p;
    struct pld__coll *c = &r->c;
    c->outer = c->rk->collective;
    c->rk->collective = c->name;
    if (r->then)
        r->then(c, r->arg);
    pld__coll_epilogue(c);
    pld__coll_end(c);
    free(r);
}

void pld__coll_finish(struct pld__coll *c, pld__coll_then then, const void *arg, size_t size)
{
    if (!c->defer) {
        pld__coll_barrier(c);
        if (then)
            then(c, arg);
        pld__coll_epilogue(c);
        pld__coll_end(c);
        return;
    }
    credit_peers(c);
    for (int s = 0; s < c->nr; s++)
        if (s != c->me)
            pld__defer_wait(
                c->file, c->line, c->sig,
                (struct pld_wait_kw){.offsets = cell(c, s), .expected = c->k, .cmp = PLD_WAIT_GE});
    struct rest *r = malloc(sizeof *r + size);
    if (!r)
        pld__fail(PLD_ENOMEM, c->file, c->line, c->name, "out of memory");
    r->c = *c;
    r->then = then;
    r->size = size;
    if (size)
        memcpy(r->arg, arg, size);
    pld__defer_rest(run_rest, r);
    pld__coll_end(c);
}

void pld__coll_check_target(struct pld__coll *c, const char *what, pl_tensor t, int any_dtype)
{
    pld__check_tensor(c->file, c->line, c->name, what, t);
    if (!t.win)
        pld__fail(PLD_EINVAL, c->file, c->line, c->name,
                  "%s '%s' is a host tensor; it must be a window view (pld_window)", what, t.name);
    pld__coll_check_group(c, what, t);
    pld__check_dense(c->file, c->line, c->name, what, t);
    if (!any_dtype && t.dtype != PL_FP32 && t.dtype != PL_FP16)
        pld__fail(PLD_EINVAL, c->file, c->line, c->name, "%s '%s' is %s; expected FP32 or FP16",
                  what, t.name, pl_dtype_name(t.dtype));
}

pl_tensor pld__flat(pl_tensor t)
{
    t.shape = PL_SHAPE(1, pl_shape_numel(t.shape));
    return t;
}

pl_tensor pld__row(pl_tensor t, int64_t r)
{
    int64_t cols = t.shape.dim[1];
    size_t off = (size_t)(r * cols) * pl_dtype_size(t.dtype);
    t.shape = PL_SHAPE(1, cols);
    if (t.win)
        t.win_offset += (int64_t)off;
    else
        t.data = (unsigned char *)t.data + off;
    return t;
}

pld_reduce_op pld__coll_reduce_op(struct pld__coll *c, pld_reduce_op op)
{
    if (op == 0)
        return PLD_REDUCE_SUM;
    if (op < PLD_REDUCE_SUM || op > PLD_REDUCE_PROD)
        pld__fail(PLD_EINVAL, c->file, c->line, c->name,
                  ".op is %d; expected PLD_REDUCE_SUM, _MAX, _MIN or _PROD", (int)op);
    return op;
}

pl_tile pld__combine(const char *file, int line, pld_reduce_op op, pl_tile a, pl_tile b)
{
    switch (op) {
    case PLD_REDUCE_MAX:
        return pl__max_tt(file, line, a, b);
    case PLD_REDUCE_MIN:
        return pl__min_tt(file, line, a, b);
    case PLD_REDUCE_PROD:
        return pl__mul_tt(file, line, a, b);
    default:
        return pl__add_tt(file, line, a, b);
    }
}

int64_t pld__coll_chunk(const struct pld__coll *c, pl_dtype dt)
{
    return c->builtin ? 256 : 16384 / (int64_t)pl_dtype_size(dt);
}

int pld__aliases(pl_tensor a, pl_tensor b)
{
    if (!a.win || a.win != b.win)
        return 0;
    int64_t a0 = a.win_offset, a1 = a0 + (int64_t)pl_tensor_bytes(a);
    int64_t b0 = b.win_offset, b1 = b0 + (int64_t)pl_tensor_bytes(b);
    return a0 < b1 && b0 < a1;
}

void pld__coll_check_exchange_input(struct pld__coll *c, pl_tensor input, pld_dtensor target)
{
    pld__check_dense(c->file, c->line, c->name, "input", input);
    if (pld__aliases(input, target))
        pld__fail(PLD_EINVAL, c->file, c->line, c->name,
                  "input '%s' aliases target '%s': incoming rows would overwrite rows not yet "
                  "sent; use a separate buffer",
                  input.name, target.name);
}

void pld__coll_check_cores(const char *file, int line, const char *op, pld_dtensor target,
                           pld_dtensor signal, int64_t core_num, int64_t columns, const char *why)
{
    char a[64];
    struct pld__run *R = pld__R;
    if (core_num < 1)
        pld__fail(PLD_EINVAL, file, line, op, ".core_num is %lld; expected 1 or more",
                  (long long)core_num);
    if (!pld__builtin_rail())
        pld__fail(PLD_EINVAL, file, line, op,
                  ".core_num is %lld in a kernel; only the host orchestrator's %s spreads over "
                  "cores (a kernel splits its work itself)",
                  (long long)core_num, op + (strncmp(op, "pld_tensor_", 11) == 0 ? 11 : 0));
    for (int r = 0; r < R->P; r++)
        if (core_num > (int64_t)R->ranks[r].dev.aiv_cores)
            pld__fail(PLD_EINVAL, file, line, op,
                      ".core_num %lld exceeds the %.0f vector cores (aiv_cores) of dev%d: the "
                      "launch needs every block admitted at once",
                      (long long)core_num, R->ranks[r].dev.aiv_cores, R->ranks[r].device_id);
    int nr = target.win ? pld__group_n(target.win) : R->P;
    int ok = signal.dtype == PL_INT32 && signal.win && signal.shape.ndim == 2 &&
             signal.shape.dim[0] == nr && signal.shape.dim[1] >= columns;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, op,
                  "core_num %lld needs an INT32 signal of shape [%d, stride] with stride >= "
                  "%lld (%s); got '%s' %s %s",
                  (long long)core_num, nr, (long long)columns, why, signal.name ? signal.name : "?",
                  pld__shape_str(signal.shape, a, sizeof a), pl_dtype_name(signal.dtype));
}
