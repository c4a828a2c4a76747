/* Step 11: the reveal.  Steps 08-10 built allreduce by hand; here it is one
 * call, pld_tensor_allreduce(data, signal, .op = PLD_REDUCE_SUM, .mode = ...),
 * and --show-lowering shows what that call runs: the primitives the builtin
 * executed on rank 0, beside those of step 08 (--mode mesh) or step 10
 * (--mode ring), as a unified diff.  Upstream diffs the compiler's IR; here
 * the library is the compiler, and its lowering is plain calls.
 *
 * What the diff shows, mesh (against step 08):
 *  - The builtin accumulates in rank order, its own chunk at its own place,
 *    so every rank gets the same bits; step 08 starts from its own vector.
 *  - A read-done barrier (a second notify/wait round, waiting for >= 2):
 *    the builtin writes the sum back into `data`, and a peer may still be
 *    reading our vector.  Step 08 writes only y, so it needs no second one.
 *  - The store back into `data` (the builtin returns the rebound target).
 *  - The epilogue: a notify to itself of -2 per peer cell (two barriers'
 *    credits), which leaves the signal at zero, ready for the next call.
 *    Step 08's cells stay at 1, so its signal cannot be reused.
 *  - Vectors larger than 16 KiB go chunk by chunk, one read-done barrier
 *    each; 64 floats are one chunk.
 * What the diff shows, ring (against step 10):
 *  - A read-complete notify to the left neighbour after every pull, and a
 *    wait for the right neighbour's before writing again: the builtin does
 *    not lean on the ring-wide argument step 10 relies on.
 *  - Every round begins with the ready notify, the first round included
 *    (step 10 sends the first one before its loop, and the last round's
 *    none); the builtin works on `data` in place, with no staging.
 *  - The epilogue returns every cell of [2(P-1), P] to zero.
 * Golden: y[r] = sum_k x[k], in both modes, for the builtin and (with
 * --show-lowering) for the hand-rolled run.  Any P >= 2 (default 4). */
#include "allreduce_hand.h"
#include "line_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void builtin(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal, int ring)
{
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, AR_SIZE)), PL_IDX(0, 0), data);
    data = pld_tensor_allreduce(data, signal, .op = PLD_REDUCE_SUM,
                                .mode = ring ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH);
    pl_store(pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, AR_SIZE)), PL_IDX(0, 0), y);
}

/* What rank 0 recorded, for main to print after the run. */
static char *lowering_hand, *lowering_builtin;

struct rank_args {
    pl_tensor x, y, y_hand;
    pld_dtensor data, signal, data_hand, signal_hand;
    int rank, ring, show;
};

static void per_device(const struct rank_args *a)
{
    if (!a->show) {
        pl_incore(builtin, a->x, a->y, a->data, a->signal, a->ring);
        return;
    }
    /* The hand-rolled version first, on windows of its own, then the
     * builtin; rank 0 keeps what each ran. */
    pld_record_begin();
    if (a->ring)
        pl_incore(ar_ring_hand, a->x, a->y_hand, a->data_hand, a->signal_hand,
                  AR_SIZE / a->signal_hand.shape.dim[1]);
    else
        pl_incore(ar_mesh_hand, a->x, a->y_hand, a->data_hand, a->signal_hand);
    char *hand = pld_record_end();
    pld_record_begin();
    pl_incore(builtin, a->x, a->y, a->data, a->signal, a->ring);
    char *b = pld_record_end();
    if (a->rank == 0) {
        lowering_hand = hand;
        lowering_builtin = b;
    } else {
        free(hand);
        free(b);
    }
}

struct host_args {
    pl_tensor x, y, y_hand;
    int ring, show;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pl_shape sig_shape = h->ring ? PL_SHAPE(2 * (nr - 1), nr) : PL_SHAPE(nr, 1);
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(sig_shape, PL_INT32, .name = "signal");
    /* only --show-lowering runs the hand-rolled step beside the builtin, on
     * windows of its own; they carry the same names, so the diff lines up on
     * what the code does, not on what the buffers are called */
    pld_buffer hdata = {0}, hsig = {0};
    if (h->show) {
        hdata = pld_alloc_window_buffer(PL_SHAPE(1, AR_SIZE), PL_FP32, .name = "data");
        hsig = pld_alloc_window_buffer(sig_shape, PL_INT32, .name = "signal");
    }
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {
            .x = pl_at(h->x, r),
            .y = pl_at(h->y, r),
            .y_hand = pl_at(h->y_hand, r),
            .data = pld_window(data, PL_SHAPE(1, AR_SIZE), PL_FP32),
            .signal = pld_window(sig, sig_shape, PL_INT32),
            .rank = r,
            .ring = h->ring,
            .show = h->show,
        };
        if (h->show) {
            a.data_hand = pld_window(hdata, PL_SHAPE(1, AR_SIZE), PL_FP32);
            a.signal_hand = pld_window(hsig, sig_shape, PL_INT32);
        }
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"mesh", "ring", NULL};
    static const struct tut_spec spec = {
        .name = "11_allreduce_reveal",
        .summary = "Step 11: pld_tensor_allreduce, and (--show-lowering) what it lowers to.",
        .modes = modes,
        .default_mode = "mesh",
        .min_p = 2,
        .default_p = 4,
        .show_lowering_flag = 1,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    int ring = strcmp(t.mode, "ring") == 0;
    if (t.show_lowering && ring && AR_SIZE % t.P)
        tut_refuse("--show-lowering --mode ring runs step 10 beside the builtin, so P must "
                   "divide %d; got P=%d",
                   AR_SIZE, t.P);
    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, AR_SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, AR_SIZE), PL_FP32, "y"),
                          /* named y as well, so that the diff lines up */
                          pl_tensor_new(PL_SHAPE(t.P, 1, AR_SIZE), PL_FP32, "y"), ring,
                          t.show_lowering};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);

    char why[256];
    int ok = ar_check(h.x, h.y, t.P, why, sizeof why);
    if (!rc && t.show_lowering) {
        ok = ok && ar_check(h.x, h.y_hand, t.P, why, sizeof why);
        printf("== what pld_tensor_allreduce(.mode = %s) ran on rank 0 (P=%d) ==\n", t.mode, t.P);
        fputs(lowering_builtin, stdout);
        printf("\n== from step %s (hand-rolled) to the builtin ==\n", ring ? "10" : "08");
        char a_label[64], b_label[64];
        snprintf(a_label, sizeof a_label, "step %s, hand-rolled %s, rank 0", ring ? "10" : "08",
                 t.mode);
        snprintf(b_label, sizeof b_label, "pld_tensor_allreduce, mode %s, rank 0", t.mode);
        print_unified_diff(stdout, a_label, lowering_hand, b_label, lowering_builtin);
        putchar('\n');
    }
    free(lowering_hand);
    free(lowering_builtin);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    pl_tensor_free(&h.y_hand);
    return tut_finish(rc, ok, why);
}
