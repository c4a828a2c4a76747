/* summary.c: the run summary (--summary): per rank busy, waiting and idle
 * time and bytes sent and received; per route (directed rank pair) bytes
 * and peak utilisation; and the critical path, walked back from the last
 * event through each wait's releasing notify. */
#include "internal.h"
#include "backend.h"
#include "trace.h"
#include "units.h"
#include "observe.h"

#include <stdlib.h>
#include <string.h>

const char *const pld__kind_names[] = {"kernel", "data", "signal", "dispatch", "wait"};

/* kind_names follows enum pld__kind */
static int kind_of(const struct pld__event *e)
{
    return (int)pld__ops[e->id].kind;
}

static int cmp_xf_time(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* One end of an event on a rank's timeline: +1 or -1 to its busy or wait
 * count at time t. */
struct edge {
    double t;
    int rank, busy, wait;
};

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Each rank's busy and waiting time as spans of its timeline, not sums of
 * its events: a rank's cores, and a cube core's pipes, run ops at once.
 * A span with an op running is busy, one with only waits is waiting; the
 * rest is idle, so busy + wait + idle is the rank's end.  -1 without
 * memory. */
static int sweep(const struct pld__trace *t, int P, double *busy, double *wait)
{
    struct edge *e = malloc((2 * t->n + 1) * sizeof *e);
    if (!e)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *v = &t->ev[i];
        int r = v->rank >= 0 ? v->rank : P, w = kind_of(v) == 4;
        if (v->t1 <= v->t0)
            continue;
        e[n++] = (struct edge){v->t0, r, !w, w};
        e[n++] = (struct edge){v->t1, r, -!w, -w};
    }
    qsort(e, n, sizeof *e, cmp_edge);
    int nb = 0, nw = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && e[i].rank == e[i - 1].rank) {
            double dt = e[i].t - e[i - 1].t;
            if (nb > 0)
                busy[e[i].rank] += dt;
            else if (nw > 0)
                wait[e[i].rank] += dt;
        } else
            nb = nw = 0; /* a new rank */
        nb += e[i].busy;
        nw += e[i].wait;
    }
    free(e);
    return 0;
}

void pld__summary_free(struct pld__summary *S)
{
    free(S->busy);
    free(S->wait);
    free(S->routes);
    free(S->links);
    free(S->path);
    memset(S, 0, sizeof *S);
}

int pld__summary_compute(struct pld__summary *S, const struct pld__run *R,
                         const struct pld__trace *t)
{
    memset(S, 0, sizeof *S);
    int P = R->P;
    double end = R->end_time > 0 ? R->end_time : 0;
    double *busy = calloc((size_t)P + 1, sizeof *busy), *wait = calloc((size_t)P + 1, sizeof *wait);
    S->busy = busy, S->wait = wait;
    if (!busy || !wait) {
        pld__summary_free(S);
        return -1;
    }
    if (sweep(t, P, busy, wait) != 0) {
        pld__summary_free(S);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].t1 > end)
            end = t->ev[i].t1;
    S->end = end;

    /* routes: total bytes, and the peak of concurrent throughput against
     * the route's bottleneck bandwidth */
    struct pld__summary_route *routes = NULL;
    size_t nroutes = 0;
    for (size_t i = 0; i < t->nx; i++) {
        const struct pld__xfer *x = &t->xf[i];
        size_t k = 0;
        while (k < nroutes && !(routes[k].from == x->from && routes[k].to == x->to))
            k++;
        if (k == nroutes) {
            struct pld__summary_route *nr = realloc(routes, (nroutes + 1) * sizeof *nr);
            if (!nr)
                break;
            routes = nr;
            routes[nroutes++] = (struct pld__summary_route){x->from, x->to, 0, 0, x->route_bw};
        }
        routes[k].bytes += x->bytes;
    }
    double *steps = malloc((2 * t->nx + 1) * 2 * sizeof *steps);
    for (size_t k = 0; steps && k < nroutes; k++) {
        size_t ns = 0;
        for (size_t i = 0; i < t->nx; i++) {
            const struct pld__xfer *x = &t->xf[i];
            if (x->from != routes[k].from || x->to != routes[k].to || x->t1 <= x->t0)
                continue;
            double rate = x->bytes / (x->t1 - x->t0);
            steps[2 * ns] = x->t0, steps[2 * ns + 1] = rate, ns++;
            steps[2 * ns] = x->t1, steps[2 * ns + 1] = -rate, ns++;
        }
        qsort(steps, ns, 2 * sizeof *steps, cmp_xf_time);
        double cur = 0;
        for (size_t i = 0; i < ns; i++) {
            cur += steps[2 * i + 1];
            if (cur > routes[k].peak)
                routes[k].peak = cur;
        }
    }
    free(steps);
    S->routes = routes, S->nroutes = nroutes;
    if (pld__summary_links(S, t) != 0) {
        pld__summary_free(S);
        return -1;
    }

    /* critical path: from the event that ends last, step back to the
     * notify that released a wait that blocked, else to the previous event
     * of the same rank (a kernel's first event: to the dispatch that sent
     * it) */
    if (t->n) {
        size_t cur = 0;
        for (size_t i = 0; i < t->n; i++)
            if (t->ev[i].t1 >= t->ev[cur].t1)
                cur = i;
        double *by_kind = S->by_kind, start = t->ev[cur].t0;
        int hops = 0, steps_n = 0;
        S->has_path = 1;
        for (;;) {
            const struct pld__event *e = &t->ev[cur];
            long prev = -1;
            if (e->cause >= 0 && t->ev[e->cause].t1 > e->t0) {
                prev = e->cause; /* the wait blocked until this notify */
                hops++;
            } else {
                for (long j = (long)cur - 1; j >= 0; j--)
                    if (t->ev[j].rank == e->rank && t->ev[j].t1 <= e->t0 + 1e-15) {
                        prev = j;
                        break;
                    }
                if (prev < 0 && e->rank >= 0)
                    for (long j = (long)cur - 1; j >= 0; j--)
                        if (t->ev[j].rank < 0 && t->ev[j].peer == e->rank &&
                            t->ev[j].id == PLD__OP_DISPATCH) {
                            prev = j;
                            hops++;
                            break;
                        }
            }
            /* only the part of this event after its predecessor ended is
             * on the path */
            double from = prev >= 0 && t->ev[prev].t1 > e->t0 ? t->ev[prev].t1 : e->t0;
            by_kind[kind_of(e)] += e->t1 - from;
            if (S->npath == S->cappath) {
                size_t cap = S->cappath ? 2 * S->cappath : 16;
                struct pld__summary_seg *np = realloc(S->path, cap * sizeof *np);
                if (np)
                    S->path = np, S->cappath = cap;
            }
            if (S->npath < S->cappath)
                S->path[S->npath++] = (struct pld__summary_seg){e, from};
            start = e->t0;
            steps_n++;
            if (prev < 0)
                break;
            cur = (size_t)prev;
        }
        S->start = start, S->hops = hops, S->nevents = steps_n;
    }
    return 0;
}

/* Link indices by busy time, most first (ties: by number). */
static const struct pld__summary_link *sort_links;
static int cmp_busy(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double bx = sort_links[x].busy, by = sort_links[y].busy;
    return bx > by ? -1 : bx < by ? 1 : (x > y) - (x < y);
}

/* The ten links busiest over the run: the ones a bottleneck is among. */
static void print_busiest_links(FILE *out, const struct pld__summary *S)
{
    size_t *order = malloc((S->nlinks ? S->nlinks : 1) * sizeof *order), n = 0;
    if (!order)
        return;
    for (size_t id = 0; id < S->nlinks; id++)
        if (S->links[id].bytes > 0)
            order[n++] = id;
    sort_links = S->links;
    qsort(order, n, sizeof *order, cmp_busy);
    if (n)
        fprintf(out, "%-24s %14s %12s %8s %8s   (%zu link%s carried bytes%s)\n", "link", "bytes",
                "busy (us)", "busy", "util", n, n == 1 ? "" : "s",
                n > 10 ? "; the 10 busiest" : "");
    for (size_t i = 0; i < n && i < 10; i++) {
        const struct pld__summary_link *l = &S->links[order[i]];
        char busy[16] = "-", util[16] = "-";
        if (S->end > 0)
            snprintf(busy, sizeof busy, "%.1f %%", 100 * l->busy / S->end);
        if (S->end > 0 && l->bw > 0)
            snprintf(util, sizeof util, "%.1f %%", 100 * l->bytes / (l->bw * S->end));
        fprintf(out, "%-24s %14.0f %12.3f %8s %8s\n", l->name, l->bytes, l->busy * 1e6, busy, util);
    }
    free(order);
}

/* How far the run's time can be trusted: the ops' time by label, then by
 * kind (trust.c), on a timed backend. */
static void print_trust(FILE *out, const struct pld__run *R)
{
    double by_label[PLD__NTRUST], priced = pld__trust_shares(R, by_label);
    if (!R->be || !(R->be->caps & PLD_CAP_TIMED) || !(priced > 0))
        return;
    fputs("trust (ops' time, waits aside):", out);
    for (int l = PLD__NTRUST; l-- > 0;)
        fprintf(out, "%s %s %.1f %%", l == PLD__NTRUST - 1 ? "" : ",", pld__trust_names[l],
                100 * by_label[l] / priced);
    fputs("; by kind:", out);
    for (int k = 0, first = 1; k < PLD__TRUST_KINDS; k++) {
        if (R->trust_label[k] < 0 || k == PLD__TRUST_WAIT)
            continue;
        fprintf(out, "%s %s %s %.1f %%", first ? "" : ",", pld__trust_kind_names[k],
                pld__trust_names[(int)R->trust_label[k]], 100 * R->trust_op_s[k] / priced);
        first = 0;
    }
    fputc('\n', out);
}

void pld__print_summary(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    struct pld__summary S;
    if (pld__summary_compute(&S, R, t))
        return;
    int P = R->P;
    double end = S.end, *busy = S.busy, *wait = S.wait;
    struct pld__summary_route *routes = S.routes;
    size_t nroutes = S.nroutes;
    fprintf(out, "== run summary: %s, P=%d, %.3f us ==\n", R->platform_desc, P, end * 1e6);
    fprintf(out, "%-6s %12s %12s %12s %12s %12s %16s\n", "rank", "busy (us)", "waiting (us)",
            "idle (us)", "sent (B)", "received (B)", "device wall (us)");
    int slowest = -1;
    for (int r = 0; r <= P; r++) {
        if (r == P) {
            fprintf(out, "%-6s %12.3f %12s %12.3f %12s %12s %16s\n", "host", busy[r] * 1e6, "-",
                    (end - busy[r]) * 1e6, "-", "-", "-");
            continue;
        }
        double wall = pld__device_wall(&R->ranks[r]);
        if (slowest < 0 || wall > pld__device_wall(&R->ranks[slowest]))
            slowest = r;
        fprintf(out, "r%-5d %12.3f %12.3f %12.3f %12llu %12llu %16.3f\n", r, busy[r] * 1e6,
                wait[r] * 1e6, (end - busy[r] - wait[r]) * 1e6,
                (unsigned long long)R->ranks[r].bytes_sent,
                (unsigned long long)R->ranks[r].bytes_received, wall * 1e6);
    }
    /* what upstream's runtime reports as device_wall: the slowest rank's
     * longest dispatch, host time outside it */
    if (slowest >= 0)
        fprintf(out,
                "device wall: %.3f us (r%d's longest of %d dispatch%s); host dispatching %.3f us "
                "of the run's %.3f us\n",
                pld__device_wall(&R->ranks[slowest]) * 1e6, slowest, R->ranks[slowest].nspans,
                R->ranks[slowest].nspans == 1 ? "" : "es", busy[P] * 1e6, end * 1e6);

    if (nroutes) {
        fprintf(out, "%-12s %14s %14s %12s\n", "route", "bytes", "peak (GB/s)", "peak util");
        for (size_t k = 0; k < nroutes; k++) {
            double bw = routes[k].bw;
            char util[16] = "-";
            if (bw > 0)
                snprintf(util, sizeof util, "%.1f %%", 100 * routes[k].peak / bw);
            char name[32];
            snprintf(name, sizeof name, "r%d -> r%d", routes[k].from, routes[k].to);
            fprintf(out, "%-12s %14.0f %14.3f %12s\n", name, routes[k].bytes, routes[k].peak / 1e9,
                    util);
        }
    }

    print_busiest_links(out, &S);

    if (S.has_path) {
        double *by_kind = S.by_kind, start = S.start;
        int hops = S.hops, steps_n = S.nevents;
        fprintf(out, "critical path: %.3f us over %d events, %d hops between ranks (",
                (end - start) * 1e6, steps_n, hops);
        for (int k = 0; k < 5; k++)
            fprintf(out, "%s%s %.3f us", k ? ", " : "", pld__kind_names[k], by_kind[k] * 1e6);
        fprintf(out, ")\n");
    }
    print_trust(out, R);
    pld__summary_free(&S);
}
