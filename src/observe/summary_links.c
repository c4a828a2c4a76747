/* summary_links.c: the per-link counters: the bytes routed over each link
 * of the platform, and when they were flowing, from the trace's transfers
 * and the routes the backend named for them; the summary's totals and the
 * Perfetto trace's counter tracks are both made from it.
 *
 * A transfer's bytes flow over [t0 + the route's latency, t1] (CM02: the
 * latency, then the bytes at the flow's share; never faster than the
 * route's bottleneck); a link is busy while at least one transfer's
 * bytes flow on it.  So on a link that is its
 * transfers' bottleneck, busy time is its bytes over its bandwidth, as
 * long as it is never idle with bytes waiting: the closed form the tests
 * hold it to. */
#include "trace.h"

#include <stdlib.h>

int pld__link_flows(const struct pld__trace *t, struct pld__link_flows *f)
{
    size_t n = t->nlinks;
    f->nlinks = n;
    f->first = calloc(n + 1, sizeof *f->first);
    f->flow = NULL;
    if (!f->first)
        return -1;
    /* each link's flows in one array: count, then place */
    for (size_t i = 0; i < t->nx; i++) {
        const struct pld__xfer *x = &t->xf[i];
        if (x->route < 0)
            continue;
        const struct pld__trace_route *r = &t->routes[x->route];
        for (int k = 0; k < r->nlinks; k++)
            f->first[r->ids[k] + 1]++;
    }
    for (size_t id = 0; id < n; id++)
        f->first[id + 1] += f->first[id];
    size_t *at = malloc((n ? n : 1) * sizeof *at);
    f->flow = malloc((f->first[n] ? f->first[n] : 1) * sizeof *f->flow);
    if (!at || !f->flow) {
        free(at);
        pld__link_flows_free(f);
        return -1;
    }
    for (size_t id = 0; id < n; id++)
        at[id] = f->first[id];
    for (size_t i = 0; i < t->nx; i++) {
        const struct pld__xfer *x = &t->xf[i];
        if (x->route < 0)
            continue;
        const struct pld__trace_route *r = &t->routes[x->route];
        double from = x->t0 + r->lat < x->t1 ? x->t0 + r->lat : x->t1;
        /* a transfer whose time is its latency alone (a signal: a few
         * bytes, timed as one latency) still takes bytes / bandwidth on
         * the wire; without it, its rate is bytes over a rounding error */
        double wire = x->route_bw > 0 ? x->bytes / x->route_bw : 0;
        if (x->t1 - from < wire)
            from = x->t1 - wire > x->t0 ? x->t1 - wire : x->t0;
        for (int k = 0; k < r->nlinks; k++)
            f->flow[at[r->ids[k]]++] = (struct pld__link_flow){from, x->t1, x->bytes};
    }
    free(at);
    return 0;
}

void pld__link_flows_free(struct pld__link_flows *f)
{
    free(f->first);
    free(f->flow);
    f->first = NULL;
    f->flow = NULL;
}

/* Flows by start. */
static int cmp_start(const void *a, const void *b)
{
    double x = ((const struct pld__link_flow *)a)->t0, y = ((const struct pld__link_flow *)b)->t0;
    return x < y ? -1 : x > y;
}

int pld__summary_links(struct pld__summary *S, const struct pld__trace *t)
{
    if (t->nlinks == 0)
        return 0;
    struct pld__link_flows f;
    if (pld__link_flows(t, &f) != 0)
        return -1;
    struct pld__summary_link *links = calloc(f.nlinks, sizeof *links);
    if (!links) {
        pld__link_flows_free(&f);
        return -1;
    }
    for (size_t id = 0; id < f.nlinks; id++) {
        struct pld__link_flow *v = f.flow + f.first[id];
        size_t m = f.first[id + 1] - f.first[id];
        qsort(v, m, sizeof *v, cmp_start);
        /* the union of the flows' spans */
        double bytes = 0, busy = 0, lo = 0, hi = -1;
        for (size_t j = 0; j < m; j++) {
            bytes += v[j].bytes;
            if (v[j].t0 > hi) {
                busy += hi > lo ? hi - lo : 0;
                lo = v[j].t0, hi = v[j].t1;
            } else if (v[j].t1 > hi) {
                hi = v[j].t1;
            }
        }
        busy += hi > lo ? hi - lo : 0;
        links[id] = (struct pld__summary_link){t->links[id].name, t->links[id].bw, bytes, busy};
    }
    pld__link_flows_free(&f);
    S->links = links, S->nlinks = f.nlinks;
    return 0;
}
