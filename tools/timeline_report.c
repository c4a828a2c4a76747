/* timeline_report.c: the links view's words beside its picture: the
 * busiest links, and each rank's idle gaps, so that a user can name the
 * bottleneck without reading pixels. */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

/* The share of its bandwidth at which a link counts as full: its counter
 * is written to 1e-3 GB/s, a flow's share to a few ulps. */
#define FULL 0.99

/* Per rank: gaps, idle time, the longest gap. */
struct rank_gaps {
    size_t n;
    double idle;
    const struct pld__idle_gap *longest;
    double longest_len, from, to; /* the longest's part in the window */
};

/* A link's bytes, busy time and time at full rate within [from, to] s,
 * from its counter's steps (each holds from its time to the next). */
static void in_window(const struct pld__link_series *l, double from, double to, double *bytes,
                      double *busy, double *full)
{
    *bytes = *busy = *full = 0;
    for (size_t k = 0; k + 1 < l->n; k++) {
        double a = l->t[k] > from ? l->t[k] : from, b = l->t[k + 1] < to ? l->t[k + 1] : to;
        if (b <= a)
            continue;
        *bytes += l->v[k] * (b - a);
        if (l->v[k] > 0)
            *busy += b - a;
        if (l->v[k] >= FULL * l->bw)
            *full += b - a;
    }
}

/* Link and its load in the window, for sorting. */
struct ranked {
    double load;
    struct pld__link_series l;
};

static int by_load(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    return a->load > b->load ? -1 : a->load < b->load ? 1 : strcmp(a->l.name, b->l.name);
}

long timeline_rank_links(struct pld__link_series *links, size_t nlinks, double from, double to)
{
    struct ranked *r = malloc((nlinks + 1) * sizeof *r);
    if (!r)
        return -1;
    long carried = 0;
    for (size_t i = 0; i < nlinks; i++) {
        double bytes, busy, full;
        in_window(&links[i], from, to, &bytes, &busy, &full);
        r[i] = (struct ranked){bytes / links[i].bw, links[i]};
        carried += bytes > 0;
    }
    qsort(r, nlinks, sizeof *r, by_load);
    for (size_t i = 0; i < nlinks; i++)
        links[i] = r[i].l;
    free(r);
    return carried;
}

int timeline_report(FILE *out, const struct pld__run *R, const struct pld__trace *t, double end,
                    double from, double to, const struct pld__link_series *links, size_t nlinks,
                    size_t total_links, int gaps)
{
    /* the window drawn, or the whole run: the run's totals are exact, a
     * window's come from the counters (rates to 1e-3 GB/s, times to 1 ns) */
    int whole = from <= 0 && to >= end;
    char window[96] = "";
    if (!whole)
        snprintf(window, sizeof window, " in the window %.3f-%.3f us", from * 1e6, to * 1e6);
    double span = to - from;
    if (total_links) {
        fprintf(out, "most loaded links%s (%zu carried bytes%s%s), by bytes over bandwidth:\n",
                window, total_links, whole ? "" : " in it",
                nlinks < total_links ? "; the ones drawn" : "");
        fprintf(out, "%-24s %10s %14s %12s %12s %7s\n", "link", "GB/s", "bytes", "busy (us)",
                "full (us)", "util");
        for (size_t i = 0; i < nlinks; i++) {
            const struct pld__link_series *l = &links[i];
            /* at full rate: where the link is what bounds its transfers */
            double bytes, busy, full;
            in_window(l, from, to, &bytes, &busy, &full);
            if (whole)
                bytes = l->bytes, busy = l->busy;
            fprintf(out, "%-24s %10.4g %14.0f %12.3f %12.3f %6.1f%%\n", l->name, l->bw / 1e9, bytes,
                    busy * 1e6, full * 1e6, span > 0 ? 100 * bytes / (l->bw * span) : 0);
        }
    }
    if (!gaps)
        return 0;
    struct pld__idle_gap *g;
    size_t n;
    struct rank_gaps *per = calloc((size_t)R->P + 1, sizeof *per);
    if (!per || pld__idle_gaps(t, R->P, end, &g, &n) != 0) {
        free(per);
        return -1;
    }
    for (size_t i = 0; i < n; i++) { /* each gap, clipped to the window */
        double a = g[i].t0 > from ? g[i].t0 : from, b = g[i].t1 < to ? g[i].t1 : to;
        if (b <= a)
            continue;
        struct rank_gaps *p = &per[g[i].rank];
        p->n++;
        p->idle += b - a;
        if (!p->longest || b - a > p->longest_len)
            p->longest = &g[i], p->longest_len = b - a, p->from = a, p->to = b;
    }
    fprintf(out, "idle gaps per rank (none of its ops but waits run)%s, of %.3f us:\n", window,
            span * 1e6);
    fprintf(out, "%-6s %6s %12s %7s %12s  %s\n", "rank", "gaps", "idle (us)", "idle",
            "longest (us)", "when (us), and what ended it");
    for (int r = 0; r < R->P; r++) {
        const struct pld__idle_gap *l = per[r].longest;
        fprintf(out, "%-6d %6zu %12.3f %6.1f%% ", r, per[r].n, per[r].idle * 1e6,
                span > 0 ? 100 * per[r].idle / span : 0);
        if (!l) {
            fputs(" none\n", out);
            continue;
        }
        fprintf(out, "%12.3f  %.3f-%.3f", per[r].longest_len * 1e6, per[r].from * 1e6,
                per[r].to * 1e6);
        if (l->waiting)
            fputs(", waiting", out);
        if (l->next >= 0) {
            const struct pld__event *e = &t->ev[l->next];
            fprintf(out, "; then %s", e->op);
            if (e->peer >= 0)
                fprintf(out, " r%d", e->peer);
        } else {
            fputs("; to the run's end", out);
        }
        if (l->t0 == 0)
            fputs(" (before its first op)", out);
        fputc('\n', out);
    }
    free(g);
    free(per);
    return 0;
}
