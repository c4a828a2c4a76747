/* allreduce.c: pld_tensor_allreduce, the checks and the choice between the
 * mesh and ring lowerings (chosen only by the caller's .mode, as upstream). */
#include "collective.h"
#include "mem.h"

/* Upstream's compile-time checks of the host ring builtin, made on the
 * host before any rank is dispatched. */
static void check_host_ring(const char *file, int line, pld_dtensor target, pld_dtensor signal,
                            struct pld_allreduce_kw kw)
{
    static const char op[] = "pld_tensor_allreduce";
    char a[64];
    int P = pld__R->P;
    static const char *const names[] = {"", "SUM", "MAX", "MIN", "PROD"};
    if (kw.op != 0 && kw.op != PLD_REDUCE_SUM)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports only PLD_REDUCE_SUM, not %s%s; use the mesh "
                  "mode for other reductions",
                  kw.op > 0 && kw.op <= PLD_REDUCE_PROD ? "PLD_REDUCE_" : ".op ",
                  kw.op > 0 && kw.op <= PLD_REDUCE_PROD ? names[kw.op] : "out of range");
    if (target.dtype != PL_FP32)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports only FP32 targets; '%s' is %s", target.name,
                  pl_dtype_name(target.dtype));
    if (P > 16)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce supports at most 16 ranks; this run has %d", P);
    int64_t n = pl_shape_numel(target.shape);
    if (n % P != 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "target '%s' has %lld elements, not divisible by the %d ranks: the host ring "
                  "splits it into one chunk per rank",
                  target.name, (long long)n, P);
    int ok = signal.dtype == PL_INT32 && signal.win && signal.shape.ndim == 2 &&
             signal.shape.dim[0] == 2 * (P - 1) + 1 && signal.shape.dim[1] == P;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the host ring allreduce needs an INT32 signal of shape [2(P-1)+1, P] = [%d, %d] "
                  "(one row per round and one for the final barrier); got '%s' %s %s",
                  2 * (P - 1) + 1, P, signal.name ? signal.name : "?",
                  pld__shape_str(signal.shape, a, sizeof a), pl_dtype_name(signal.dtype));
}

/* Upstream's checks of core_num: host and mesh only, at most the AIV
 * count, one signal column per core. */
static void check_cores(const char *file, int line, pld_dtensor target, pld_dtensor signal,
                        struct pld_allreduce_kw kw)
{
    static const char op[] = "pld_tensor_allreduce";
    if (kw.core_num >= 1 && pld__builtin_rail() && kw.mode == PLD_ALLREDUCE_RING)
        pld__fail(PLD_EINVAL, file, line, op,
                  "ring mode requires core_num == 1 (got %lld); core_num is mesh only",
                  (long long)kw.core_num);
    pld__coll_check_cores(file, line, op, target, signal, kw.core_num, kw.core_num,
                          "one lane per core");
}

/* One core's share of a core_num allreduce: the mesh on a contiguous run
 * of whole 256-element tiles, with its own column of the signal. */
struct lanes {
    const char *file;
    int line;
    pld_dtensor target, signal;
    pld_reduce_op op;
    int n;
};

static void lane(void *arg, int k)
{
    const struct lanes *L = arg;
    pl_tensor flat = pld__flat(L->target);
    int64_t elems = flat.shape.dim[1], tiles = (elems + 255) / 256;
    int64_t lo = k * tiles / L->n * 256, hi = (k + 1) * tiles / L->n * 256;
    if (hi > elems)
        hi = elems;
    if (lo >= hi)
        return; /* an idle lane: its column stays untouched */
    flat.shape = PL_SHAPE(1, hi - lo);
    flat.win_offset += lo * (int64_t)pl_dtype_size(flat.dtype);
    struct pld__coll c;
    pld__coll_begin(&c, L->file, L->line, "pld_tensor_allreduce", L->target);
    c.sig = L->signal;
    c.lane = k;
    if (c.nr > 1)
        pld__allreduce_mesh(&c, flat, L->op);
    pld__coll_end(&c);
}

void pld__allreduce_cores_task(const char *file, int line, pld_dtensor target, pld_dtensor signal,
                               struct pld_allreduce_kw kw)
{
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_allreduce", target);
    pld__coll_check_target(&c, "target", target, 0);
    struct lanes L = {.file = file,
                      .line = line,
                      .target = target,
                      .signal = signal,
                      .op = pld__coll_reduce_op(&c, kw.op),
                      .n = (int)kw.core_num};
    pld__coll_end(&c);
    pld__run_cores(L.n, lane, &L);
}

void pld__allreduce_host_ring_task(const char *file, int line, pld_dtensor target,
                                   pld_dtensor signal)
{
    struct pld__coll c;
    pld__coll_begin(&c, file, line, "pld_tensor_allreduce", target);
    pld__coll_check_target(&c, "target", target, 0);
    if (c.nr > 1)
        pld__allreduce_ring_host(&c, pld__flat(target), signal);
    pld__coll_end(&c);
}

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void allreduce_cores_kernel(const struct pld__host_call *h)
{
    pld__allreduce_cores_task(h->file, h->line, h->t[0], h->t[1], h->allreduce);
}

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void allreduce_ring_kernel(const struct pld__host_call *h)
{
    pld__allreduce_host_ring_task(h->file, h->line, h->t[0], h->t[1]);
}

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void allreduce_kernel(const struct pld__host_call *h)
{
    pld__tensor_allreduce(h->file, h->line, h->t[0], h->t[1], h->allreduce);
}

pld_dtensor pld__tensor_allreduce(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_allreduce_kw kw)
{
    /* a lane signal [P, stride > 1] is the core_num form even with one core */
    int lanes = signal.shape.ndim == 2 && signal.shape.dim[1] > 1 && pld__builtin_rail() &&
                kw.mode != PLD_ALLREDUCE_RING;
    if ((kw.core_num != 0 && kw.core_num != 1) || lanes) {
        if (kw.core_num == 0)
            kw.core_num = 1;
        check_cores(file, line, target, signal, kw);
        pld__host_builtin(&(struct pld__host_call){.kernel = allreduce_cores_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allreduce cores",
                                                   .t = {target, signal},
                                                   .allreduce = kw});
        return target;
    }
    if (pld__builtin_rail() && kw.mode == PLD_ALLREDUCE_RING) {
        check_host_ring(file, line, target, signal, kw);
        pld__host_builtin(&(struct pld__host_call){.kernel = allreduce_ring_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allreduce ring",
                                                   .t = {target, signal}});
        return target;
    }
    if (pld__builtin_rail()) {
        pld__host_builtin(&(struct pld__host_call){.kernel = allreduce_kernel,
                                                   .file = file,
                                                   .line = line,
                                                   .name = "builtin pld_tensor_allreduce",
                                                   .t = {target, signal},
                                                   .allreduce = kw});
        return target;
    }
    struct pld__coll c;
    char a[64];
    pld__coll_begin(&c, file, line, "pld_tensor_allreduce", target);
    pld__coll_check_target(&c, "target", target, 0);
    pld_reduce_op op = pld__coll_reduce_op(&c, kw.op);
    pld_allreduce_mode mode = kw.mode ? kw.mode : PLD_ALLREDUCE_MESH;
    if (mode != PLD_ALLREDUCE_MESH && mode != PLD_ALLREDUCE_RING)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  ".mode is %d; expected PLD_ALLREDUCE_MESH or PLD_ALLREDUCE_RING", (int)mode);
    if (mode == PLD_ALLREDUCE_RING) {
        pld__check_dense(file, line, c.name, "signal", signal);
        int ok = signal.dtype == PL_INT32 && signal.win && signal.shape.ndim == 2 &&
                 signal.shape.dim[0] == 2 * (c.nr - 1) && signal.shape.dim[1] == c.nr;
        if (!ok)
            pld__fail(PLD_EINVAL, file, line, c.name,
                      "ring mode needs an INT32 signal of shape [2(P-1), P] = [%d, %d] (one row "
                      "per round, one cell per rank); got '%s' %s %s",
                      2 * (c.nr - 1), c.nr, signal.name ? signal.name : "?",
                      pld__shape_str(signal.shape, a, sizeof a), pl_dtype_name(signal.dtype));
        pld__coll_check_group(&c, "signal", signal);
        if (c.nr > 1)
            pld__allreduce_ring(&c, pld__flat(target), signal, op);
    } else {
        pld__coll_mesh_signal(&c, signal);
        if (c.nr > 1)
            pld__allreduce_mesh(&c, pld__flat(target), op);
    }
    pld__coll_end(&c);
    return target;
}
