/* cost.c: the device cost model.  Every op's simulated time is priced
 * here, from the numbers of the device model; the backend adds only the
 * route's share (latency, bandwidth, contention).  docs/models.md gives
 * each formula and its units.
 *
 * Which function prices which op (the price column of PLD__OP_LIST, ops.h).
 * G(b) = (hbm_lat + b / hbm_bw) * speed_factor, one GM access of b bytes
 * (at the core's share of gm_read_bw or gm_write_bw instead of hbm_bw when
 * the device's cores crowd them: gm_share.c; so are the cube's loads and
 * drains); "route" is the backend's share: on sim, engine.c's carry() adds
 * extra_lats x the route latency and one flow of the bytes (SimGrid's
 * latency, bandwidth and contention), after `before`, before `after`.
 *
 *   op                          function        formula
 *   LOAD, READ, WRITE           charge_gm       G(bytes)
 *   STORE, STORE_ADD            price_store     G(bytes); from the cube's
 *                                               L0C: l0c_lat + bytes / l0c_bw
 *   ADD .. SUBS, CAST           charge_vector   elems / vector_rate * speed_factor
 *   LAUNCH                      charge_launch   launch_lat * speed_factor
 *   MATMUL, CUBE_MOVE           charge_cube     cube_matmul_seconds or
 *                                               cube_move_seconds, * speed_factor
 *   REMOTE_LOAD, REMOTE_STORE*  price_transfer  pull_lat or push_lat + bytes at
 *                                               pull_bw or push_bw + route;
 *                                               to oneself G(2 bytes)
 *   PUT, PUT_ADD, GET           price_staged    per chunk: G(chunk) (pipelined:
 *                                               one), push/pull_lat, + route
 *                                               with nchunks - 1 extra latencies
 *   PUT_ASYNC                   price_async     sdma_issue, then sdma_lat per
 *                                               block + bytes at sdma_bw + route
 *   NOTIFY_SET, NOTIFY_ADD      price_notify    signal_lat + signal_bytes over
 *                                               the route (sim: lat + bytes/bw,
 *                                               engine.c, not a flow)
 *   WAIT_*, WAIT_ASYNC          charge_poll     poll_lat, after the wait returns
 *   DISPATCH                    charge_dispatch the host's dispatch_lat
 *   DEFER_WAIT                  none            free: it only registers */
#include "internal.h"
#include "cost.h"
#include "contract.h"

static struct pld__device *self_dev(void)
{
    int self = pld__self();
    return self >= 0 ? &pld__R->ranks[self].dev : &pld__R->host_dev;
}

static double gm_seconds(const struct pld__device *d, double bytes)
{
    return (d->hbm_lat + bytes / d->hbm_bw) * d->speed_factor;
}

/* One GM access by the executing core: a fixed latency plus the bytes at
 * HBM bandwidth, or at its share of the device's GM (gm_share.c).  A
 * straggler (speed_factor > 1) takes proportionally longer for all compute. */
static double gm_access(double bytes, int write, int hbm)
{
    int self = pld__self();
    if (self < 0)
        return gm_seconds(self_dev(), bytes);
    struct pld__rank *rk = &pld__R->ranks[self];
    double start = -1;
    return pld__gm_seconds(rk, &start, rk->dev.hbm_lat, bytes, rk->dev.hbm_bw, write, hbm, 0);
}

void pld__charge_gm(size_t bytes, int write, int hbm)
{
    pld__R->be->charge(gm_access((double)bytes, write, hbm));
}

void pld__charge_vector(int64_t elems)
{
    struct pld__device *d = self_dev();
    pld__R->be->charge((double)elems / d->vector_rate * d->speed_factor);
}

void pld__charge_launch(void)
{
    struct pld__device *d = self_dev();
    pld__R->be->charge(d->launch_lat * d->speed_factor);
}

void pld__charge_poll(void)
{
    pld__R->be->charge(self_dev()->poll_lat);
}

void pld__charge_dispatch(void)
{
    pld__R->be->charge(pld__R->host_dev.dispatch_lat);
}

/* What a core pays to move bytes to or from a peer itself (not through a
 * DMA engine): `n` transfers' fixed costs before the bytes move, and its
 * own rate.  The caller pulls when the bytes come to it (remote_load, get)
 * and pushes when they leave it (remote_store, put): on the 910B the two
 * differ by an order of magnitude (docs/validation.md). */
static void core_mover(struct pld__cost *c, const struct pld__device *d, int pull, int64_t n)
{
    c->before += (double)n * (pull ? d->pull_lat : d->push_lat);
    c->rate = pull ? d->pull_bw : d->push_bw;
}

/* Bytes between two ranks go over the route, moved by the calling core;
 * within one rank they are a copy within its GM, read and written at HBM
 * speed. */
void pld__price_transfer(struct pld__cost *c, int from, int to, size_t bytes)
{
    const struct pld__device *d = self_dev();
    *c = (struct pld__cost){0};
    if (from == to) {
        c->before = gm_seconds(d, 2.0 * (double)bytes);
        return;
    }
    core_mover(c, d, to == pld__self(), 1);
    c->bytes = (double)bytes;
}

void pld__price_store(struct pld__cost *c, size_t bytes, int drain)
{
    int self = pld__self();
    double start = -1, s;
    if (drain && self >= 0) {
        struct pld__rank *rk = &pld__R->ranks[self];
        s = pld__gm_seconds(rk, &start, rk->dev.l0c_lat, (double)bytes, rk->dev.l0c_bw, 1, 0, 0);
    } else {
        s = gm_access((double)bytes, 1, 0);
    }
    *c = (struct pld__cost){.before = s};
}

/* A staged copy is chunks of GM traffic and transfers, one after another:
 * a put reads each chunk from GM into UB and sends it, a get receives each
 * chunk and writes it from UB to GM.  With pipeline, the GM side of every
 * chunk but the first (put) or the last (get) overlaps the transfer of
 * another chunk, so only that one is charged.  The chunks' transfers are
 * one flow of all the bytes (one SimGrid activity) plus one route latency
 * and one core transfer cost (push_lat or pull_lat) for each chunk: the
 * same time as back-to-back chunks on a quiet route, and the same share of
 * a busy one. */
void pld__price_staged(struct pld__cost *c, int from, int to, int put, int64_t nchunks,
                       int64_t chunk, int64_t last, int pipeline)
{
    const struct pld__device *d = self_dev();
    double gm = 0, total = 0, copies = 0;
    for (int64_t i = 0; i < nchunks; i++) {
        double b = (double)(i == nchunks - 1 ? last : chunk);
        if (!pipeline || i == (put ? 0 : nchunks - 1))
            gm += gm_seconds(d, b);
        copies += gm_seconds(d, 2.0 * b); /* used when from == to */
        total += b;
    }
    *c = (struct pld__cost){0};
    if (from == to) {
        c->before = gm + copies;
        return;
    }
    if (put)
        c->before = gm;
    else
        c->after = gm;
    core_mover(c, d, !put, nchunks);
    c->extra_lats = nchunks - 1;
    c->bytes = total;
}

/* The notifier pays its signal write; the update then crosses the route
 * as signal_bytes (docs/models.md: a signal is not a flow). */
void pld__price_notify(struct pld__cost *c, int from, int to)
{
    const struct pld__device *d = self_dev();
    *c = (struct pld__cost){.before = d->signal_lat};
    if (from == to)
        c->before += gm_seconds(d, 2.0 * d->signal_bytes);
    else
        c->bytes = d->signal_bytes;
}

/* The core pays the issue; the engine pays sdma_lat per block, then moves
 * the bytes over the route (one flow, one route latency more per block
 * after the first), or copies them within GM when the peer is the caller.
 * A DMA engine is not compute: a straggler's speed_factor does not apply. */
void pld__price_async(struct pld__cost *c, int from, int to, int64_t bytes, int64_t block)
{
    const struct pld__device *d = self_dev();
    int64_t nblocks = bytes > block ? (bytes + block - 1) / block : 1;
    *c = (struct pld__cost){.before = d->sdma_issue, .engine = (double)nblocks * d->sdma_lat};
    if (from == to) {
        double copy = 2.0 * (double)bytes / d->hbm_bw;
        if (d->sdma_bw > 0 && (double)bytes / d->sdma_bw > copy)
            copy = (double)bytes / d->sdma_bw;
        c->engine += copy;
        return;
    }
    c->bytes = (double)bytes;
    c->extra_lats = nblocks - 1;
    c->rate = d->sdma_bw;
}

/* The cube unit (an AIC).  A matmul of an [m, k] and a [k, n] tile runs in
 * fractals: 16 x 16 of the result by kt of the reduction, kt = 32 bytes of
 * the operand dtype (16 FP16/BF16 elements, 32 INT8, 8 FP32), each fractal
 * a whole one however little of it the tile fills.  It costs one
 * instruction's fixed cube_lat plus its multiply-adds at the dtype's rate:
 * cube_lat + 2 M N K / rate with M, N, K rounded up to the fractal
 * (docs/models.md, "The cube unit").  Returns seconds, or -1 when the dtype
 * has no cube rate in this model (0: the model gives none). */
double pld__cube_matmul_seconds(const struct pld__device *d, int64_t m, int64_t n, int64_t k,
                                pl_dtype dt)
{
    double rate = dt == PL_FP16 || dt == PL_BF16 ? d->cube_rate
                  : dt == PL_INT8                ? d->cube_int8_rate
                  : dt == PL_FP32                ? d->cube_fp32_rate
                                                 : 0;
    if (rate <= 0)
        return -1;
    int64_t kt = 32 / (int64_t)pl_dtype_size(dt);
    double M = (double)((m + 15) / 16 * 16), N = (double)((n + 15) / 16 * 16),
           K = (double)((k + kt - 1) / kt * kt);
    return d->cube_lat + 2 * M * N * K / rate;
}

/* What moving `bytes` along one of the cube's own paths costs: L1 to L0A
 * or L0B at their rates, or a drain of L0C to GM, a fixed cost and its
 * rate.  Loads into L1 and stores from UB are GM accesses (G(b)). */
double pld__cube_move_seconds(const struct pld__device *d, enum pld__cube_path path, double bytes)
{
    switch (path) {
    case PLD__CUBE_L1_TO_L0A:
        return d->l0a_bw > 0 ? bytes / d->l0a_bw : 0;
    case PLD__CUBE_L1_TO_L0B:
        return d->l0b_bw > 0 ? bytes / d->l0b_bw : 0;
    default:
        return d->l0c_lat + (d->l0c_bw > 0 ? bytes / d->l0c_bw : 0);
    }
}

void pld__charge_cube(double seconds)
{
    const struct pld__device *d = self_dev();
    pld__R->be->charge(seconds * d->speed_factor);
}
