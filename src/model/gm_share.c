/* gm_share.c: the GM bandwidth a device's cores share (gm_read_bw,
 * gm_write_bw).  On a 910B the AIC's loads into L1 and its drains, and
 * the vector cores' loads and stores, all go through the chip's L2; when
 * enough of them stream at once each gets less than its own port's rate,
 * which is how vector cores streaming beside a GEMM slow it
 * (docs/models.md, "Shared GM bandwidth").  Reads and writes are shared
 * apart, as the L2 has a rate for each.
 *
 * The model is processor sharing by demand.  Each access is a stream of
 * its bytes at the core's own rate r (hbm_bw for a vector core, l1_bw for
 * the cube's loads, l0c_bw for its drains).  A stream that starts while
 * the device's live streams of its kind ask for D in all (its own r
 * included) gets r * bw / D for its whole length when D > bw, else r:
 * n equal streams that keep the device busy share it evenly.  A stream
 * keeps the rate it started with, so the streams that started before a
 * crowd arrived keep theirs.
 *
 * Streams are booked in the order of their starts: a booking first brings
 * SimGrid's clock to the core's (backend settle), so actors book in model
 * time order, and streams that start at once are all booked before any
 * is priced (backend yield).  That costs simcalls on every access, so it
 * is done only while the device runs enough cores at once
 * (pld__run_cores) that their rates could add up to more than it has:
 * otherwise no stream could be slowed, and each core costs what it did,
 * to the bit (but on a device whose whole bandwidth is less than one
 * core's own rate).  On a2a3 that takes cube cores: its 48 AIV at
 * hbm_bw ask 2.9 TB/s of 4.75.  Wall-clock backends (threads, mpi) have
 * no model time to share. */
#include "internal.h"
#include "contract.h"
#include "cost.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Whether a stream that ends at `end` is still live at `t`.  One that
 * ends within a few ulps of `t` is over: a core's next access starts
 * where its clock put the last one's end, which SimGrid's clock may
 * leave an ulp short of it, and a core must not share with its own last
 * stream.  The margin is far below SimGrid's precision. */
static int live_at(double end, double t)
{
    return end > t + 1e-12 * fabs(t) + 1e-15;
}

struct gm_stream {
    double begin, end; /* model seconds; end is +inf until the stream is priced */
    double rate;       /* what it asked for, B/s */
    uint64_t id;
};

struct gm_streams {
    int n, cap;
    uint64_t ids;
    struct gm_stream *s;
};

struct pld__gm_share {
    int cores;                /* cores of the device's running grids */
    int cube;                 /* how many of them are cube cores */
    struct gm_streams dir[3]; /* reads, writes; and the reads from HBM again (hbm_chip_bw) */
};

/* The executing device's share of the run, made on first use; NULL where
 * nothing is shared (no model time, or neither key set). */
static struct pld__gm_share *device_share(void)
{
    int self = pld__self();
    if (self < 0 || !(pld__R->be->caps & PLD_CAP_TIMED))
        return NULL;
    const struct pld__device *d = &pld__R->ranks[self].dev;
    if (d->gm_read_bw <= 0 && d->gm_write_bw <= 0 && d->hbm_chip_bw <= 0)
        return NULL;
    if (!pld__R->gm && !(pld__R->gm = calloc((size_t)pld__R->P, sizeof *pld__R->gm)))
        pld__fail(PLD_ENOMEM, "pldsim", 0, "pl_incore", "out of memory for the shared GM");
    return &pld__R->gm[self];
}

void pld__gm_cores(int delta)
{
    struct pld__gm_share *g = device_share();
    if (g)
        g->cores += delta;
}

void pld__gm_cube_cores(int delta)
{
    struct pld__gm_share *g = device_share();
    if (g)
        g->cube += delta;
}

static struct gm_stream *book(struct gm_streams *f, double begin, double rate)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 64;
        struct gm_stream *s = realloc(f->s, (size_t)cap * sizeof *s);
        if (!s)
            pld__fail(PLD_ENOMEM, "pldsim", 0, "pl_load", "out of memory for the shared GM");
        f->s = s;
        f->cap = cap;
    }
    f->s[f->n] = (struct gm_stream){begin, INFINITY, rate, ++f->ids};
    return &f->s[f->n++];
}

/* The rate stream `id` gets among the streams live at its start: its own
 * rate, or its share of `bw` by demand.  Forgets the streams that ended
 * by `now`: no core books before its own clock, and every booking core is
 * settled to SimGrid's.  Returns the stream, which has moved. */
static struct gm_stream *share(struct gm_streams *f, uint64_t id, double bw, double now,
                               double *got)
{
    struct gm_stream *me = NULL;
    int k = 0;
    for (int i = 0; i < f->n; i++)
        if (live_at(f->s[i].end, now))
            f->s[k++] = f->s[i];
    f->n = k;
    for (int i = 0; i < f->n && !me; i++)
        if (f->s[i].id == id)
            me = &f->s[i];
    double demand = 0;
    for (int i = 0; i < f->n; i++)
        if (f->s[i].begin <= me->begin && live_at(f->s[i].end, me->begin))
            demand += f->s[i].rate;
    *got = demand > bw ? me->rate * (bw / demand) : me->rate;
    return me;
}

/* Can the device's cores crowd `bw`: do they ask more than it when each
 * streams at its own kind's rate, a vector core at hbm_bw and a cube core
 * at its load (or drain) rate?  Each core has one stream of a kind at a
 * time: a vector core's accesses are in turn, and a cube core's loads
 * and its drains each run on one pipe. */
static int can_crowd(const struct pld__device *d, const struct pld__gm_share *g, int write,
                     double bw)
{
    int cube = g->cube < g->cores ? g->cube : g->cores;
    double own = write ? d->l0c_bw : pld__cube_load_rate(d);
    double ask = (double)(g->cores - cube) * d->hbm_bw + (double)cube * own;
    return g->cores > 1 && ask / d->speed_factor > bw;
}

/* can_crowd for the reads from HBM.  A grid's cores are counted as cube
 * cores only where a task graph says so; an SPMD grid that runs the cube
 * (a front end's pl.spmd of matmuls) is counted at the vector rate, which
 * would leave 24 cube cores streaming a 265 MB weight from HBM unshared.
 * Every core is counted at the faster of the two rates instead: sharing
 * where nothing crowds costs simcalls, not time.  Only reads of arrays
 * larger than L2 take this path, so no other access moves. */
static int can_crowd_hbm(const struct pld__device *d, const struct pld__gm_share *g, double bw)
{
    double own = pld__cube_load_rate(d) > d->hbm_bw ? pld__cube_load_rate(d) : d->hbm_bw;
    return g->cores > 1 && (double)g->cores * own / d->speed_factor > bw;
}

double pld__gm_seconds(struct pld__rank *rk, double *start, double lat, double bytes, double rate,
                       int write, int hbm, int move)
{
    const struct pld__device *d = &rk->dev;
    const struct pld_backend *be = pld__R->be;
    double sf = d->speed_factor, bw = write ? d->gm_write_bw : d->gm_read_bw;
    /* a read from HBM passes the L2 too: it is shared in both */
    double hbw = hbm && !write ? d->hbm_chip_bw : 0;
    int self = pld__self();
    const struct pld__gm_share *g =
        self >= 0 && &pld__R->ranks[self] == rk && pld__R->gm ? &pld__R->gm[self] : NULL;
    if (rate <= 0 || !g || !(be->caps & PLD_CAP_TIMED) ||
        !((bw > 0 && can_crowd(d, g, write, bw)) || (hbw > 0 && can_crowd_hbm(d, g, hbw)))) {
        /* alone, a core shares with nobody, but gets no more than all */
        double all = bw > 0 && (hbw <= 0 || bw < hbw) ? bw : hbw;
        return all > 0 && rate / sf > all ? lat * sf + bytes / all
                                          : (lat + (rate > 0 ? bytes / rate : 0)) * sf;
    }
    struct gm_streams *f = &pld__R->gm[self].dir[write], *h = &pld__R->gm[self].dir[2];
    double now = pld__now();
    if (move && *start > now)
        be->charge(*start - now);
    be->settle();
    now = pld__now();
    if (*start < now)
        *start = now;
    /* a straggler streams slower, as it computes slower */
    uint64_t id = book(f, *start, rate / sf)->id;
    uint64_t hid = hbw > 0 ? book(h, *start, rate / sf)->id : 0;
    /* the cores whose streams start now too book theirs before any is
     * priced, so that they share alike whichever SimGrid runs first */
    if (be->yield)
        be->yield();
    double got, hgot;
    struct gm_stream *me = share(f, id, bw > 0 ? bw : INFINITY, pld__now(), &got);
    struct gm_stream *hme = hbw > 0 ? share(h, hid, hbw, pld__now(), &hgot) : NULL;
    if (hme && hgot < got)
        got = hgot;
    double seconds = lat * sf + bytes / got;
    me->end = *start + seconds;
    if (hme)
        hme->end = me->end;
    return seconds;
}

void pld__gm_share_free(struct pld__run *R)
{
    if (R->gm)
        for (int r = 0; r < R->P; r++)
            for (int w = 0; w < 3; w++)
                free(R->gm[r].dir[w].s);
    free(R->gm);
    R->gm = NULL;
}
