/* allreduce_ring.c: the ring allreduce: a reduce-scatter then an allgather
 * around the ring, 2(P-1) rounds, signal [2(P-1), P] (row = round).
 *
 * Chunk i of the target is [floor(i*N/P), floor((i+1)*N/P)) elements; for
 * FP16 the bounds are rounded down to 32 bytes, as upstream does.  In
 * reduce-scatter round s a rank pulls chunk (me-s-2) mod P from its left
 * neighbour and combines it into its own copy; after P-1 rounds it holds the
 * full reduction of chunk me.  In allgather round s it copies chunk
 * (me-s-1) mod P from its left neighbour.
 *
 * Each round r has two handshakes on row r:
 *  - ready: a rank adds 1 to its right neighbour's cell [r, me] once its
 *    chunk for round r is final, and waits for its left neighbour's;
 *  - read-complete: after pulling from the left neighbour it adds 1 to the
 *    left neighbour's cell [r, me]; a rank waits for its right neighbour's
 *    read-complete of round r-1 before it writes in round r.
 * Chunks pass through UB in pieces of at most 16 KiB, so any size fits.
 * Step 10's hand-rolled ring has no read-complete handshake: there, the ring
 * of ready signals alone keeps a writer P-1 rounds behind its readers.  The
 * builtin adds it so that the safety does not rest on that argument (and it
 * is what upstream's builtin does).  With P = 2 the left and right neighbour
 * are the same rank, so one cell takes both credits: thresholds 1 then 2.
 * The epilogue takes back the 2 credits of every row. */
#include "collective.h"
#include "mem.h"

static int64_t bound(int64_t i, int64_t n, int nr, pl_dtype dt)
{
    int64_t b = i * n / nr;
    if (dt == PL_FP16 && i < nr)
        b -= b % (PLD__ROW_ALIGN / 2);
    return b;
}

void pld__allreduce_ring(struct pld__coll *c, pl_tensor flat, pld_dtensor sig, pld_reduce_op op)
{
    int me = c->me, nr = c->nr, rounds = 2 * (nr - 1);
    int left = (me + nr - 1) % nr, right = (me + 1) % nr;
    int rc_thr = left == right ? 2 : 1;
    int64_t n = flat.shape.dim[1], piece = pld__coll_chunk(c, flat.dtype);

    for (int r = 0; r < rounds; r++) {
        int rs = r < nr - 1, s = rs ? r : r - (nr - 1);
        int idx = rs ? ((me - s - 2) % nr + 2 * nr) % nr : ((me - s - 1) % nr + 2 * nr) % nr;
        int64_t lo = bound(idx, n, nr, flat.dtype), hi = bound(idx + 1, n, nr, flat.dtype);

        COLL_NOTIFY(c, sig, right, PL_IDX(r, me), 1); /* ready: my chunk for round r */
        COLL_WAIT(c, sig, PL_IDX(r, left), 1);
        if (r > 0) /* right has finished reading what I sent last round */
            COLL_WAIT(c, sig, PL_IDX(r - 1, right), rc_thr);
        /* the chunk goes through UB in pieces of at most 16 KiB */
        for (int64_t off = lo; off < hi; off += piece) {
            int64_t len = hi - off < piece ? hi - off : piece;
            int mark = pld__ub_mark();
            pl_tile got = COLL_REMOTE_LOAD(c, flat, left, off, len);
            if (rs)
                got = pld__combine(c->file, c->line, op, COLL_LOAD(c, flat, off, len), got);
            COLL_STORE(c, got, flat, off);
            pld__ub_fold(mark); /* the piece's tiles are dead */
        }
        COLL_NOTIFY(c, sig, left, PL_IDX(r, me), 1); /* read-complete */
    }
    COLL_WAIT(c, sig, PL_IDX(rounds - 1, right), rc_thr);
    for (int r = 0; r < rounds; r++) {
        COLL_NOTIFY(c, sig, me, PL_IDX(r, left), -1);
        COLL_NOTIFY(c, sig, me, PL_IDX(r, right), -1);
    }
}
