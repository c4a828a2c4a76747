/* barrier.c: pld_tensor_barrier, lowered to notify/wait exactly as upstream
 * lowers pld.tensor.barrier: a self-clearing credit barrier.  Built only on
 * the public primitives, so every backend runs this same code. */
#include "../internal.h"

pld_dtensor pld__tensor_barrier(const char *file, int line, pld_dtensor signal)
{
    static const char op[] = "pld_tensor_barrier";
    struct pld__rank *rk = pld__kernel_rank(file, line, op);
    char a[64];

    if (signal.dtype == 0 || !signal.win)
        pld__fail(PLD_EINVAL, file, line, op, "signal must be a window view (pld_window)");
    pld_comm_ctx ctx = pld__get_comm_ctx(file, line, signal);
    int me = pld__rank(file, line, ctx), nr = pld__nranks(file, line, ctx);
    int two_d = signal.shape.ndim == 2;
    if (signal.dtype != PL_INT32 || !(signal.shape.ndim == 1 || two_d) ||
        signal.shape.dim[0] != nr || (two_d && signal.shape.dim[1] != 1))
        pld__fail(PLD_EINVAL, file, line, op,
                  "signal '%s' is %s %s; expected INT32 of shape [%d] or [%d, 1] (one cell per "
                  "rank)",
                  signal.name, pld__shape_str(signal.shape, a, sizeof a),
                  pl_dtype_name(signal.dtype), nr, nr);

    const char *outer = rk->collective;
    rk->collective = op;
    /* The single barrier of this call (k = 1): one credit to every peer's
     * cell [me], then wait until every peer's credit has reached [src]. */
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld__notify(file, line, signal,
                        (struct pld_notify_kw){.peer = p,
                                               .offsets = two_d ? PL_IDX(me, 0) : PL_IDX(me),
                                               .value = 1,
                                               .op = PLD_NOTIFY_ATOMIC_ADD});
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld__wait(file, line, signal,
                      (struct pld_wait_kw){.offsets = two_d ? PL_IDX(s, 0) : PL_IDX(s),
                                           .expected = 1,
                                           .cmp = PLD_WAIT_GE});
    /* Epilogue: take back the credits received, so the cells return to zero
     * and the same signal works for the next call.  A peer that is already
     * in its next barrier may have added a credit; adds commute, so it
     * survives. */
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld__notify(file, line, signal,
                        (struct pld_notify_kw){.peer = me,
                                               .offsets = two_d ? PL_IDX(s, 0) : PL_IDX(s),
                                               .value = -1,
                                               .op = PLD_NOTIFY_ATOMIC_ADD});
    rk->collective = outer;
    return signal;
}
