/* all_to_all_v.c: pld_tensor_all_to_all_v, the variable-count exchange, as
 * upstream defines it.  Every rank owns a block of MAX = rows / P rows per
 * peer.  For each destination d (ourselves included) it publishes
 * rows = min(send_counts[d], MAX) (at least 0) into d's recv_counts[me]
 * with a Set notify, then pushes those rows of its block d into block `me`
 * of d's target: only the rows it sends, as upstream does since it bounded
 * the transfer by the runtime count (pypto#2536); the rows after them keep
 * what they held.  The block's rows are contiguous, so they go as one run
 * of rows * S elements, in the call's chunks (a builtin's 256-element
 * tiles).  Then the credit barrier: every push and count is visible once it
 * passes.  Under --no-data a count kept in a window has no value, and the
 * whole block moves: the most the call can cost. */
#include "collective.h"

/* send_counts[d] clamped to 0..max, read like pl_read (a GM access). */
static int32_t count_for(struct pld__coll *c, pl_tensor counts, int d, int64_t max)
{
    if (!pld__has_data(&counts))
        return (int32_t)max; /* --no-data: the count is not kept; the transfer is the same */
    pl_shape at = counts.shape.ndim == 2 ? PL_IDX(d, 0) : PL_IDX(d);
    double n = pl__read(c->file, c->line, counts, at);
    return (int32_t)(n < 0 ? 0 : n > (double)max ? max : n);
}

static int is_counts(const struct pld__coll *c, pl_tensor t)
{
    return t.dtype == PL_INT32 &&
           ((t.shape.ndim == 1 && t.shape.dim[0] == c->nr) ||
            (t.shape.ndim == 2 && t.shape.dim[0] == c->nr && t.shape.dim[1] == 1));
}

/* The builtin kernel of the host's call, on one rank (host_builtin.c). */
static void all_to_all_v_kernel(const struct pld__host_call *h)
{
    pld__tensor_all_to_all_v(h->file, h->line, h->t[0], h->t[1], h->t[2], h->t[3], h->t[4]);
}

pld_dtensor pld__tensor_all_to_all_v(const char *file, int line, pl_tensor input,
                                     pld_dtensor target, pld_dtensor signal, pl_tensor send_counts,
                                     pld_dtensor recv_counts)
{
    if (pld__builtin_rail()) {
        pld__host_builtin(
            &(struct pld__host_call){.kernel = all_to_all_v_kernel,
                                     .file = file,
                                     .line = line,
                                     .name = "builtin pld_tensor_all_to_all_v",
                                     .t = {input, target, signal, send_counts, recv_counts}});
        return target;
    }
    struct pld__coll c;
    char a[64], b[64];
    pld__coll_begin(&c, file, line, "pld_tensor_all_to_all_v", target);
    pld__coll_check_target(&c, "target", target, 1);
    pld__check_tensor(file, line, c.name, "input", input);
    int ok = target.shape.ndim == 2 && target.shape.dim[0] % c.nr == 0 && input.shape.ndim == 2 &&
             input.shape.dim[0] == target.shape.dim[0] &&
             input.shape.dim[1] == target.shape.dim[1] && input.dtype == target.dtype;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "input '%s' is %s %s and target '%s' is %s %s; expected both [%d * MAX_RECV, S] "
                  "of the same dtype",
                  input.name, pld__shape_str(input.shape, a, sizeof a), pl_dtype_name(input.dtype),
                  target.name, pld__shape_str(target.shape, b, sizeof b),
                  pl_dtype_name(target.dtype), c.nr);
    pld__coll_check_exchange_input(&c, input, target);
    if (send_counts.dtype == 0 || !is_counts(&c, send_counts))
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "send_counts '%s' is %s %s; expected INT32 of shape [%d] or [%d, 1] (rows for "
                  "each destination)",
                  send_counts.name ? send_counts.name : "?",
                  pld__shape_str(send_counts.shape, a, sizeof a), pl_dtype_name(send_counts.dtype),
                  c.nr, c.nr);
    if (!recv_counts.win || !is_counts(&c, recv_counts))
        pld__fail(PLD_EINVAL, file, line, c.name,
                  "recv_counts '%s' is %s %s%s; expected an INT32 window view of shape [%d] or "
                  "[%d, 1]",
                  recv_counts.name ? recv_counts.name : "?",
                  pld__shape_str(recv_counts.shape, a, sizeof a), pl_dtype_name(recv_counts.dtype),
                  recv_counts.win ? "" : " (a host tensor)", c.nr, c.nr);
    pld__check_dense(file, line, c.name, "send_counts", send_counts);
    pld__check_dense(file, line, c.name, "recv_counts", recv_counts);
    pld__coll_mesh_signal(&c, signal);
    int64_t max = target.shape.dim[0] / c.nr, s = target.shape.dim[1];
    pl_shape mine = recv_counts.shape.ndim == 2 ? PL_IDX(c.me, 0) : PL_IDX(c.me);
    pl_tensor from = pld__flat(input), to = pld__flat(target);
    int mark = pld__ub_mark();
    for (int d = 0; d < c.nr; d++) {
        int32_t rows = count_for(&c, send_counts, d, max);
        pld__notify(file, line, recv_counts,
                    (struct pld_notify_kw){
                        .peer = d, .offsets = mine, .value = rows, .op = PLD_NOTIFY_SET});
        if (rows == 0)
            continue;
        pld__put(file, line, to,
                 (struct pld_p2p_kw){.peer = d,
                                     .src = from,
                                     .dst_offsets = PL_IDX(0, c.me * max * s),
                                     .src_offsets = PL_IDX(0, d * max * s),
                                     .shape = PL_SHAPE(1, rows * s),
                                     .chunk_rows = 1,
                                     .chunk_cols = pld__coll_chunk(&c, target.dtype)});
    }
    pld__ub_fold(mark); /* one record for the staging tiles of all the puts */
    pld__coll_finish(&c, NULL, NULL, 0);
    return target;
}
