/* pipes.c: the cube unit's pipes.  An AIC issues its ops in program order
 * to four pipes that run at once (MTE2: GM -> L1, MTE1: L1 -> L0A/L0B,
 * M: the matmul, FIX: L0C -> GM), as a double-buffered GEMM overlaps the
 * next tiles' loads and moves with this tile's matmul.  Without this a
 * GEMM's time would be the sum of its loads, moves and matmuls, about
 * twice what a 910B takes (docs/models.md, "The cube's pipes").
 *
 * pldsim does not see which buffer an op reads, so each op reads the
 * latest op of the pipe that feeds it, the stream of a GEMM's k loop: a
 * move the latest load, a matmul the latest move, a drain the latest
 * matmul; and a matmul after a drain waits for it, since L0C holds one
 * accumulator.  Buffer capacities are not modelled (as before): a load
 * may run ahead of the matmuls as far as the program issues it.
 *
 * The core's own clock stays where it issues; the pipes' ends are settled
 * onto it (pipe_barrier(PIPE_ALL)) before any other op of the kernel but a
 * wait, and at its end, so what other cores see of it is never early.  A
 * wait publishes nothing: the scalar unit spins on its flag as soon as it
 * has issued the ops before it (set_flag and wait_flag between the pipes
 * sit in the pipes' own queues), and the pipes run on meanwhile.  Issue
 * queues are taken as deep enough for a kernel's tiles. */
#include "internal.h"
#include "contract.h"
#include "cost.h"

/* The pipe whose latest op an op of each pipe reads (-1: GM). */
static const int feeds[PLD__NPIPES] = {-1, PLD__PIPE_MTE2, PLD__PIPE_MTE1, PLD__PIPE_M};

/* When an op on pipe `p` of `q` issued now can start. */
static double pipe_start(const struct pld__pipes *q, enum pld__pipe p)
{
    double start = pld__now();
    if (q->free[p] > start)
        start = q->free[p];
    if (feeds[p] >= 0 && q->free[feeds[p]] > start)
        start = q->free[feeds[p]];
    if (p == PLD__PIPE_M && q->free[PLD__PIPE_FIX] > start)
        start = q->free[PLD__PIPE_FIX];
    return start;
}

/* Puts an op from `start` to `end` on pipe `p` of `q`. */
static double occupy(struct pld__pipes *q, enum pld__pipe p, double start, double end)
{
    q->free[p] = end;
    q->ahead = 1;
    return start;
}

double pld__pipe_issue(struct pld__rank *rk, enum pld__pipe p, double seconds, double *end)
{
    struct pld__pipes *q = &rk->pipes;
    double start = pld__now();
    if (!(pld__R->be->caps & PLD_CAP_TIMED)) {
        /* wall time (threads, mpi): nothing to overlap, and the charge is
         * where a device thread notices an aborted run */
        pld__R->be->charge(seconds * rk->dev.speed_factor);
        *end = pld__now();
        return start;
    }
    start = pipe_start(q, p);
    *end = start + seconds * rk->dev.speed_factor;
    return occupy(q, p, start, *end);
}

/* A GM access shares the device's GM from where its pipe starts it.
 * A load is booked with the core's clock brought up to its start, so that
 * loads are booked in the order they start: no op of the core's pipes is
 * issued after it and starts earlier (MTE2 runs first in their chain, and
 * in issue order).  A drain is not: the next tile's loads, issued after
 * it, start before it ends, so it is booked ahead of its start. */
double pld__pipe_issue_gm(struct pld__rank *rk, enum pld__pipe p, double bytes, int hbm,
                          double *end)
{
    const struct pld__device *d = &rk->dev;
    int drain = p == PLD__PIPE_FIX;
    double lat = drain ? d->l0c_lat : d->hbm_lat, rate = drain ? d->l0c_bw : pld__cube_load_rate(d);
    if (!(pld__R->be->caps & PLD_CAP_TIMED))
        return pld__pipe_issue(rk, p, lat + (rate > 0 ? bytes / rate : 0), end);
    struct pld__pipes *q = &rk->pipes;
    double start = pipe_start(q, p);
    double s =
        pld__gm_seconds(rk, &start, lat, bytes, rate, drain, hbm && !drain, p == PLD__PIPE_MTE2);
    *end = start + s;
    return occupy(q, p, start, *end);
}

struct pld__rank *pld__op_rank(const char *file, int line, const char *op)
{
    struct pld__rank *rk = pld__kernel_rank(file, line, op);
    if (rk->pipes.ahead) /* an op of the cube's before this one */
        pld__pipes_settle(rk);
    return rk;
}

struct pld__rank *pld__cube_rank(const char *file, int line, const char *op)
{
    int self = pld__self();
    if (self >= 0 && pld__R->ranks[self].kernel)
        return &pld__R->ranks[self];
    return pld__kernel_rank(file, line, op); /* fails, saying where we are */
}
