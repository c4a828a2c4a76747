/* cost.h: the device cost model (cost.c): what each op charges the
 * executing rank, and the prices of the operations that cross ranks
 * (ops.h names which function prices which op). */
#ifndef PLD_COST_H
#define PLD_COST_H

#include "internal.h"

/* Costs (cost.c): charge simulated time for work on the executing rank.
 * The prices of the operations that cross ranks follow. */
/* One GM read (or `write`) of `bytes` by the executing core; `hbm`: a read
 * that comes from HBM, not L2 (pld__from_hbm). */
void pld__charge_gm(size_t bytes, int write, int hbm);
void pld__charge_vector(int64_t elems); /* a vector op over `elems` */
/* The cube unit's costs (cost.c): a matmul's seconds on device `d`, or -1
 * when the model has no cube rate for `dt`; a move along one of the cube's
 * paths; and charging them to the executing core (scaled by speed_factor,
 * as all compute). */
enum pld__cube_path { PLD__CUBE_L1_TO_L0A, PLD__CUBE_L1_TO_L0B, PLD__CUBE_DRAIN };
double pld__cube_matmul_seconds(const struct pld__device *d, int64_t m, int64_t n, int64_t k,
                                pl_dtype dt);
/* The rate of the cube's loads from GM into L1 (MTE2), B/s: l1_bw where
 * the model gives it (an AIC's load path is not a vector core's), else
 * hbm_bw.  A load costs hbm_lat plus its bytes at this rate.  Inline: the
 * shared GM (gm_share.c), below cost.c, needs it too. */
static inline double pld__cube_load_rate(const struct pld__device *d)
{
    return d->l1_bw > 0 ? d->l1_bw : d->hbm_bw;
}
/* Whether reads of a tensor whose array spans `extent` bytes come from
 * the chip's HBM rather than its L2: when the model has both levels
 * (l2_bytes, hbm_chip_bw) and the array is larger than L2, which then
 * cannot hold it however the reads are ordered.  A smaller one is taken to
 * be in L2: the model keeps no cache state (docs/models.md, "HBM"). */
static inline int pld__from_hbm(const struct pld__device *d, double extent)
{
    return d->hbm_chip_bw > 0 && d->l2_bytes > 0 && extent > d->l2_bytes;
}
double pld__cube_move_seconds(const struct pld__device *d, enum pld__cube_path path, double bytes);
void pld__charge_cube(double seconds);
/* The cube's pipes (pipes.c): pld__pipe_issue puts `seconds` of work
 * (scaled by speed_factor) on pipe `p` of the executing core `rk` and
 * returns when it starts, *end when it ends (model seconds), leaving the
 * core's clock where it was; pld__cube_rank is pld__kernel_rank for the
 * cube's ops, which leave the pipes running; every other op settles them
 * (pld__pipes_settle: the core's clock to the pipes' last end). */
double pld__pipe_issue(struct pld__rank *rk, enum pld__pipe p, double seconds, double *end);
/* pld__pipe_issue for a GM access of `bytes` on pipe `p`: MTE2's load
 * (hbm_lat, then the bytes at the cube's load rate; `hbm`: from HBM) or
 * FIX's drain (l0c_lat, then l0c_bw), sharing the device's GM
 * (pld__gm_seconds). */
double pld__pipe_issue_gm(struct pld__rank *rk, enum pld__pipe p, double bytes, int hbm,
                          double *end);
struct pld__rank *pld__cube_rank(const char *file, int line, const char *op);
/* pld__kernel_rank for every op that is not the cube's: the executing
 * kernel's rank, its cube's pipes settled first (the op starts once the
 * cube's work before it is done).  Fails unless inside a kernel. */
struct pld__rank *pld__op_rank(const char *file, int line, const char *op);
/* The GM bandwidth a device's cores share (gm_share.c).  pld__gm_seconds
 * is what a GM read (or a `write`) of `bytes` by the executing core `rk`
 * takes, in model seconds (speed_factor included): `lat` plus the bytes at
 * the core's own `rate` (B/s; 0: free), or at its share of gm_read_bw or
 * gm_write_bw when the device's cores crowd it; a read from HBM (`hbm`)
 * gets no more than its share of hbm_chip_bw either.  It starts at *start
 * (model seconds; < 0: now).  A shared access first settles the core's
 * clock, brought up to *start when `move`, and sets *start to no earlier.
 * pld__gm_cores counts the cores the executing rank runs at once (+n
 * before pld__run_cores' grid, -n after), pld__gm_cube_cores how many of
 * them are cube cores (a task graph's, around its grid); pld__gm_share_free
 * is run.c's. */
double pld__gm_seconds(struct pld__rank *rk, double *start, double lat, double bytes, double rate,
                       int write, int hbm, int move);
void pld__gm_cores(int delta);
void pld__gm_cube_cores(int delta);
void pld__gm_share_free(struct pld__run *R);
static inline void pld__pipes_settle(struct pld__rank *rk)
{
    double last = 0, now = pld__now();
    rk->pipes.ahead = 0;
    for (int p = 0; p < PLD__NPIPES; p++)
        last = rk->pipes.free[p] > last ? rk->pipes.free[p] : last;
    if (last > now)
        pld__R->be->charge(last - now);
}
void pld__charge_launch(void);   /* a kernel launch */
void pld__charge_dispatch(void); /* the host dispatching one task */
void pld__charge_poll(void);     /* the poll that sees a wait's cell hold */

/* Prices of the operations that cross ranks (the backend contract,
 * backend.h, leaves them out: a backend never needs them), for the executing
 * rank: a remote load/store of `bytes`; a put (put = 1) or get staged in
 * `nchunks` chunks of `chunk` bytes, the last `last`; a notify. */
void pld__price_transfer(struct pld__cost *c, int from, int to, size_t bytes);
void pld__price_staged(struct pld__cost *c, int from, int to, int put, int64_t nchunks,
                       int64_t chunk, int64_t last, int pipeline);
void pld__price_notify(struct pld__cost *c, int from, int to);
/* An async put of `bytes` in blocks of `block` bytes (docs/models.md). */
void pld__price_async(struct pld__cost *c, int from, int to, int64_t bytes, int64_t block);
/* A tile store into the rank's own window slot: one GM access, or with
 * `drain` a drain of the cube's L0C. */
void pld__price_store(struct pld__cost *c, size_t bytes, int drain);

#endif /* PLD_COST_H */
