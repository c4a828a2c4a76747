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
 * whole block moves: the most the call can cost.
 *
 * With core_num (the host's builtin, RFC #2521) the kernel runs B blocks
 * on as many vector cores, each with its own columns of a [P, stride]
 * signal, and no barrier: a lane's credit says its rows (and, for lane 0,
 * the count) have landed, and the block that serves a peer takes that
 * peer's credit back once it holds, so the signal is zero again after the
 * call with nothing cleared by the host. */
#include "collective.h"
#include "mem.h"

#include <stdio.h>

/* send_counts[d] clamped to 0..max, read like pl_read (a GM access). */
static int32_t count_for(struct pld__coll *c, pl_tensor counts, int d, int64_t max)
{
    if (!pld__has_data(&counts)) {
        /* --no-data keeps no window payloads, counts included (--timing-only
         * keeps them): the schedule then depends on a value the mode does
         * not have, which a timing study must be told, once a process */
        static int warned;
        if (!warned && !pld__mute_host) {
            warned = 1;
            fflush(stdout);
            fprintf(stderr,
                    "%s:%d: rank %d: %s: warning: --no-data keeps no send_counts ('%s' is in a "
                    "window), so every block moves whole (%lld rows) where the data run moves "
                    "its count; --timing-only keeps them and moves what the data run moves "
                    "(said once)\n",
                    c->file, c->line, pld__self(), pld__op_shown(c->name),
                    counts.name ? counts.name : "?", (long long)max);
        }
        return (int32_t)max;
    }
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
    pld__tensor_all_to_all_v(h->file, h->line, h->t[0], h->t[1], h->t[2], h->t[3], h->t[4],
                             (struct pld_all_to_all_v_kw){0});
}

/* The call's operands, checked, as every lane sees them. */
struct exchange {
    const char *file;
    int line;
    pl_tensor from, counts; /* input as one row; send_counts */
    pld_dtensor to, target, signal, recv_counts;
    int64_t max, s; /* MAX_RECV rows per block, elements per row */
    int B, K;       /* blocks and lanes per peer (core_num; 1 and 1 otherwise) */
};

/* Everything but the signal, as upstream checks it. */
static void check_operands(struct pld__coll *c, struct exchange *x, pl_tensor input,
                           pld_dtensor target, pl_tensor send_counts, pld_dtensor recv_counts)
{
    const char *file = c->file;
    int line = c->line;
    char a[64], b[64];
    pld__coll_check_target(c, "target", target, 1);
    pld__check_tensor(file, line, c->name, "input", input);
    int ok = target.shape.ndim == 2 && target.shape.dim[0] % c->nr == 0 && input.shape.ndim == 2 &&
             input.shape.dim[0] == target.shape.dim[0] &&
             input.shape.dim[1] == target.shape.dim[1] && input.dtype == target.dtype;
    if (!ok)
        pld__fail(PLD_EINVAL, file, line, c->name,
                  "input '%s' is %s %s and target '%s' is %s %s; expected both [%d * MAX_RECV, S] "
                  "of the same dtype",
                  input.name, pld__shape_str(input.shape, a, sizeof a), pl_dtype_name(input.dtype),
                  target.name, pld__shape_str(target.shape, b, sizeof b),
                  pl_dtype_name(target.dtype), c->nr);
    pld__coll_check_exchange_input(c, input, target);
    if (send_counts.dtype == 0 || !is_counts(c, send_counts))
        pld__fail(PLD_EINVAL, file, line, c->name,
                  "send_counts '%s' is %s %s; expected INT32 of shape [%d] or [%d, 1] (rows for "
                  "each destination)",
                  send_counts.name ? send_counts.name : "?",
                  pld__shape_str(send_counts.shape, a, sizeof a), pl_dtype_name(send_counts.dtype),
                  c->nr, c->nr);
    if (!recv_counts.win || !is_counts(c, recv_counts))
        pld__fail(PLD_EINVAL, file, line, c->name,
                  "recv_counts '%s' is %s %s%s; expected an INT32 window view of shape [%d] or "
                  "[%d, 1]",
                  recv_counts.name ? recv_counts.name : "?",
                  pld__shape_str(recv_counts.shape, a, sizeof a), pl_dtype_name(recv_counts.dtype),
                  recv_counts.win ? "" : " (a host tensor)", c->nr, c->nr);
    pld__check_dense(file, line, c->name, "send_counts", send_counts);
    pld__check_dense(file, line, c->name, "recv_counts", recv_counts);
    *x = (struct exchange){.file = file,
                           .line = line,
                           .from = pld__flat(input),
                           .counts = send_counts,
                           .to = pld__flat(target),
                           .target = target,
                           .recv_counts = recv_counts,
                           .max = target.shape.dim[0] / c->nr,
                           .s = target.shape.dim[1],
                           .B = 1,
                           .K = 1};
}

/* Lane j of K of the rows for destination d: lane 0 publishes the count
 * (every lane moves its contiguous share of the rows). */
static void send_share(struct pld__coll *c, const struct exchange *x, int d, int j)
{
    int32_t rows = count_for(c, x->counts, d, x->max);
    if (j == 0) {
        pl_shape mine = x->recv_counts.shape.ndim == 2 ? PL_IDX(c->me, 0) : PL_IDX(c->me);
        pld__notify(c->file, c->line, x->recv_counts,
                    (struct pld_notify_kw){
                        .peer = d, .offsets = mine, .value = rows, .op = PLD_NOTIFY_SET});
    }
    int64_t lo = (int64_t)j * rows / x->K, hi = (int64_t)(j + 1) * rows / x->K;
    if (hi == lo)
        return;
    pld__put(c->file, c->line, x->to,
             (struct pld_p2p_kw){.peer = d,
                                 .src = x->from,
                                 .dst_offsets = PL_IDX(0, (c->me * x->max + lo) * x->s),
                                 .src_offsets = PL_IDX(0, (d * x->max + lo) * x->s),
                                 .shape = PL_SHAPE(1, (hi - lo) * x->s),
                                 .chunk_rows = 1,
                                 .chunk_cols = pld__coll_chunk(c, x->target.dtype)});
}

/* The launch width for core_num L over nr ranks (RFC #2521): L blocks
 * below nr, else the largest multiple of nr up to L. */
static int64_t blocks_for(int64_t L, int nr)
{
    return L < nr ? L : L / nr * nr;
}

/* The core_num call's one line: how it launched. */
static void say_launch(const char *file, int line, int64_t L, int nr, int64_t B, int64_t stride)
{
    char how[96];
    if (pld__mute_host)
        return;
    if (B >= nr)
        snprintf(how, sizeof how, "%lld lane%s a peer", (long long)(B / nr),
                 B / nr == 1 ? "" : "s");
    else if (B == 1)
        snprintf(how, sizeof how, "one block for every peer");
    else
        snprintf(how, sizeof how, "block b for the peers d with d %% %lld == b", (long long)B);
    fflush(stderr);
    printf("[pldsim] %s:%d: all_to_all_v core_num %lld over %d ranks: %lld block%s, %s, signal "
           "stride %lld\n",
           file, line, (long long)L, nr, (long long)B, B == 1 ? "" : "s", how, (long long)stride);
    fflush(stdout);
}

/* The block that carries lane j of the rows for destination d. */
static int block_of(const struct exchange *x, int nr, int d, int j)
{
    return x->B >= nr ? d * x->K + j : d % x->B;
}

/* Block b of a core_num call: its lanes out, then its peers' lanes in. */
static void block(void *arg, int b)
{
    const struct exchange *x = arg;
    struct pld__coll c;
    pld__coll_begin(&c, x->file, x->line, "pld_tensor_all_to_all_v", x->target);
    c.sig = x->signal;
    int mark = pld__ub_mark();
    for (int d = 0; d < c.nr; d++)
        for (int j = 0; j < x->K; j++)
            if (block_of(x, c.nr, d, j) == b) {
                send_share(&c, x, d, j);
                COLL_NOTIFY(&c, x->signal, d, PL_IDX(c.me, b), 1);
            }
    pld__ub_fold(mark);
    for (int src = 0; src < c.nr; src++)
        for (int j = 0; j < x->K; j++)
            if (block_of(x, c.nr, src, j) == b) {
                pl_shape cell = PL_IDX(src, block_of(x, c.nr, c.me, j));
                COLL_WAIT(&c, x->signal, cell, 1);
                COLL_NOTIFY(&c, x->signal, c.me, cell, -1);
            }
    pld__coll_end(&c);
}

static void all_to_all_v_blocks_kernel(const struct pld__host_call *h)
{
    struct pld__coll c;
    struct exchange x;
    pld__coll_begin(&c, h->file, h->line, "pld_tensor_all_to_all_v", h->t[1]);
    check_operands(&c, &x, h->t[0], h->t[1], h->t[3], h->t[4]);
    x.B = (int)blocks_for(h->all_to_all_v.core_num, c.nr);
    x.K = x.B >= c.nr ? x.B / c.nr : 1;
    x.signal = h->t[2];
    pld__coll_end(&c);
    pld__run_cores(x.B, block, &x);
}

pld_dtensor pld__tensor_all_to_all_v(const char *file, int line, pl_tensor input,
                                     pld_dtensor target, pld_dtensor signal, pl_tensor send_counts,
                                     pld_dtensor recv_counts, struct pld_all_to_all_v_kw kw)
{
    static const char op[] = "pld_tensor_all_to_all_v";
    /* a lane signal [P, stride > 1] is the core_num form even with one core */
    int lanes = signal.shape.ndim == 2 && signal.shape.dim[1] > 1 && pld__builtin_rail();
    if ((kw.core_num != 0 && kw.core_num != 1) || lanes) {
        if (kw.core_num == 0)
            kw.core_num = 1;
        int nr = target.win ? pld__group_n(target.win) : pld__R->P;
        int64_t B = blocks_for(kw.core_num, nr);
        char why[96];
        snprintf(why, sizeof why, "one column per block: core_num %lld launches B = %lld blocks",
                 (long long)kw.core_num, (long long)(B > 0 ? B : 1));
        pld__coll_check_cores(file, line, op, target, signal, kw.core_num, B, why);
        say_launch(file, line, kw.core_num, nr, B, signal.shape.dim[1]);
        pld__host_builtin(
            &(struct pld__host_call){.kernel = all_to_all_v_blocks_kernel,
                                     .file = file,
                                     .line = line,
                                     .name = "builtin pld_tensor_all_to_all_v blocks",
                                     .t = {input, target, signal, send_counts, recv_counts},
                                     .all_to_all_v = kw});
        return target;
    }
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
    struct exchange x;
    pld__coll_begin(&c, file, line, op, target);
    check_operands(&c, &x, input, target, send_counts, recv_counts);
    pld__coll_mesh_signal(&c, signal);
    int mark = pld__ub_mark();
    for (int d = 0; d < c.nr; d++)
        send_share(&c, &x, d, 0);
    pld__ub_fold(mark); /* one record for the staging tiles of all the puts */
    pld__coll_finish(&c, NULL, NULL, 0);
    return target;
}
