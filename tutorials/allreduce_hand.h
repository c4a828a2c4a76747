/* allreduce_hand.h: the hand-rolled allreduce kernels of steps 08 (mesh)
 * and 10 (ring), shared with step 11, which sets them beside the builtin. */
#ifndef PLD_TUTORIAL_ALLREDUCE_HAND_H
#define PLD_TUTORIAL_ALLREDUCE_HAND_H

#include "common.h"

enum { AR_SIZE = 64 };

/* Step 08, mesh: stage x in the window, a barrier (every rank's data is
 * there), then pull every peer's whole vector and add it to our own.
 * (P-1) * SIZE elements cross the links per rank: cheap for small vectors,
 * the link-bound choice for large ones. */
static inline void ar_mesh_hand(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor signal)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    pl_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, AR_SIZE)), PL_IDX(0, 0), data);
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld_system_notify(signal, .peer = p, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld_system_wait(signal, .offsets = PL_IDX(s, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    pl_tile acc = pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, AR_SIZE));
    for (int p = 0; p < nr; p++)
        if (p != me)
            acc = pl_add(acc, pld_tile_remote_load(data, .peer = p, .offsets = PL_IDX(0, 0),
                                                   .shape = PL_SHAPE(1, AR_SIZE)));
    /* Nobody writes `data` again, so no second barrier is needed here. */
    pl_store(acc, PL_IDX(0, 0), y);
}

/* Step 10, ring: reduce-scatter then allgather, each rank talking only to
 * its neighbours, 2(P-1) rounds on signal rows 0 .. 2P-3.  Chunk c is
 * columns [c*chunk, (c+1)*chunk).  In reduce-scatter round s a rank pulls
 * chunk (me-s-2) mod P from its left neighbour and adds it into its own; in
 * allgather round s it copies chunk (me-s-1) mod P.  There is no
 * read-complete handshake: a rank writes a chunk only after a chain of
 * ready signals that runs all the way round the ring, so its readers are
 * always done (the builtin adds the handshake anyway; see step 11). */
static inline void ar_ring_hand(pl_tensor x, pl_tensor y, pld_dtensor scratch, pld_dtensor signal,
                                int64_t chunk)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(scratch);
    int me = pld_rank(ctx), nr = pld_nranks(ctx);
    int left = (me + nr - 1) % nr, right = (me + 1) % nr;
    /* stage in chunk by chunk, as upstream does */
    for (int c = 0; c < nr; c++)
        pl_store(pl_load(x, PL_IDX(0, c * chunk), PL_SHAPE(1, chunk)), PL_IDX(0, c * chunk),
                 scratch);
    pld_system_notify(signal, .peer = right, .offsets = PL_IDX(0, me), .value = 1,
                      .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < nr - 1; s++) {
        pld_system_wait(signal, .offsets = PL_IDX(s, left), .expected = 1, .cmp = PLD_WAIT_GE);
        int64_t c = ((me - s - 2) % nr + 2 * nr) % nr;
        pl_tile got = pld_tile_remote_load(scratch, .peer = left, .offsets = PL_IDX(0, c * chunk),
                                           .shape = PL_SHAPE(1, chunk));
        pl_tile mine = pl_load(scratch, PL_IDX(0, c * chunk), PL_SHAPE(1, chunk));
        pl_store(pl_add(mine, got), PL_IDX(0, c * chunk), scratch);
        pld_system_notify(signal, .peer = right, .offsets = PL_IDX(s + 1, me), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
    }
    /* Rank me now holds the full sum of chunk me; pass the sums round. */
    for (int s = 0; s < nr - 1; s++) {
        int round = nr - 1 + s;
        pld_system_wait(signal, .offsets = PL_IDX(round, left), .expected = 1, .cmp = PLD_WAIT_GE);
        int64_t c = ((me - s - 1) % nr + 2 * nr) % nr;
        pl_tile got = pld_tile_remote_load(scratch, .peer = left, .offsets = PL_IDX(0, c * chunk),
                                           .shape = PL_SHAPE(1, chunk));
        pl_store(got, PL_IDX(0, c * chunk), scratch);
        if (s < nr - 2)
            pld_system_notify(signal, .peer = right, .offsets = PL_IDX(round + 1, me), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    }
    for (int c = 0; c < nr; c++)
        pl_store(pl_load(scratch, PL_IDX(0, c * chunk), PL_SHAPE(1, chunk)), PL_IDX(0, c * chunk),
                 y);
}

/* The golden of every allreduce step: y[r] = sum over k of x[k]. */
static inline int ar_check(pl_tensor x, pl_tensor y, int P, char *why, size_t len)
{
    pl_tensor want = pl_tensor_new(PL_SHAPE(P, 1, AR_SIZE), PL_FP32, "golden");
    for (int j = 0; j < AR_SIZE; j++) {
        double sum = 0;
        for (int k = 0; k < P; k++)
            sum += pl_tensor_get(x, k * AR_SIZE + j);
        for (int r = 0; r < P; r++)
            pl_tensor_set(want, r * AR_SIZE + j, sum);
    }
    int ok = pl_allclose(y, want, 1e-5, 1e-5, why, len);
    pl_tensor_free(&want);
    return ok;
}

#endif
