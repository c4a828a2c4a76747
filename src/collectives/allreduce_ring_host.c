/* allreduce_ring_host.c: the ring allreduce of a host orchestrator
 * (upstream's builtin.tensor.allreduce_ring), which is not the kernel's.
 *
 * The target is NR chunks of N/NR elements (N must divide).  Every ring step
 * starts with a round barrier on its own row of the [2(NR-1)+1, NR] signal:
 * each rank adds 1 to cell [row, me] of every peer and waits for every
 * peer's cell of its own row.  Reduce-scatter step s (1..NR-1) pulls chunk
 * (me-s-1) mod NR from the left neighbour and adds it into the same chunk of
 * its own copy; allgather step s pulls chunk (me-s) mod NR and stores it.
 * A last barrier, on the last row, keeps every rank until all have read
 * their last chunk, and the epilogue takes back the NR-1 credits of every
 * row, so the signal is zero again for the next call.  The barriers are
 * what order each step's reads after the writes of the step before: a
 * whole barrier per step is what upstream's builtin pays, and the kernel
 * ring (allreduce_ring.c) does with neighbour handshakes. */
#include "collective.h"
#include "mem.h"

static void round_barrier(struct pld__coll *c, pld_dtensor sig, int row)
{
    for (int p = 0; p < c->nr; p++)
        if (p != c->me)
            COLL_NOTIFY(c, sig, p, PL_IDX(row, c->me), 1);
    for (int p = 0; p < c->nr; p++)
        if (p != c->me)
            COLL_WAIT(c, sig, PL_IDX(row, p), 1);
}

void pld__allreduce_ring_host(struct pld__coll *c, pl_tensor flat, pld_dtensor sig)
{
    int me = c->me, nr = c->nr, left = (me + nr - 1) % nr, row = 0;
    int64_t chunk = flat.shape.dim[1] / nr, piece = pld__coll_chunk(c, flat.dtype);
    for (int phase = 0; phase < 2; phase++) {
        for (int s = 1; s < nr; s++) {
            int idx = ((me - s - (phase == 0)) % nr + nr) % nr;
            round_barrier(c, sig, row++);
            for (int64_t off = idx * chunk; off < (idx + 1) * chunk; off += piece) {
                int64_t len = (idx + 1) * chunk - off < piece ? (idx + 1) * chunk - off : piece;
                int mark = pld__ub_mark();
                pl_tile got = COLL_REMOTE_LOAD(c, flat, left, off, len);
                if (phase == 0)
                    got = pld__combine(c->file, c->line, PLD_REDUCE_SUM,
                                       COLL_LOAD(c, flat, off, len), got);
                COLL_STORE(c, got, flat, off);
                pld__ub_fold(mark);
            }
        }
    }
    round_barrier(c, sig, row);
    for (int r = 0; r <= row; r++)
        for (int p = 0; p < nr; p++)
            if (p != me)
                COLL_NOTIFY(c, sig, me, PL_IDX(r, p), -1);
}
