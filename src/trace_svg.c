/* trace_svg.c: a self-contained SVG timeline: one lane per rank (and the
 * host), ops coloured by kind, an arrow for each transfer from the lane of
 * the rank the data leaves to the lane where it lands, a time axis in
 * microseconds, and a legend.  Built from the events alone, so
 * tools/pldsim-timeline draws the same picture from a text trace.
 *  - Width: the plot is sized so that a typical op (the median of the
 *    ops that take time) is 10 px wide, within 1000..12000 px; a run
 *    whose ops are all short against its span gets a wider picture rather
 *    than blocks squeezed into slivers.  tools/pldsim-timeline --from/--to
 *    draws a window of the run, --width sets the width.
 *  - Arrows are drawn before the blocks, and run from the edge of one lane
 *    to the edge of the other, in the gap around the blocks, so that no
 *    arrowhead or line covers an op. */
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *colour;
} kinds[] = {
    {"kernel work (load, store, vector ops, launch)", "#4c78a8"},
    {"data movement (remote load/store, put, get)", "#f58518"},
    {"signal (notify)", "#54a24b"},
    {"host dispatch", "#b279a2"},
    {"waiting", "#d8d8d8"},
};

/* kinds[] follows enum pld__kind */
static int kind_of(const struct pld__event *e)
{
    return (int)pld__ops[e->id].kind;
}

/* A round step for the time axis: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
    double raw = span / 8, p = pow(10, floor(log10(raw)));
    return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* The plot width (px) at which the median op that takes time is about
 * 10 px wide, within [1000, 12000]. */
static double auto_width(const struct pld__trace *t, double span)
{
    double *d = malloc((t->n + 1) * sizeof *d);
    size_t n = 0;
    for (size_t i = 0; d && i < t->n; i++)
        if (t->ev[i].t1 > t->ev[i].t0 && pld__ops[t->ev[i].id].kind != PLD__KIND_WAIT)
            d[n++] = t->ev[i].t1 - t->ev[i].t0;
    double w = 1000;
    if (n) {
        qsort(d, n, sizeof *d, cmp_double);
        w = fmin(fmax(10 * span / d[n / 2], 1000), 12000);
    }
    free(d);
    return w;
}

int pld__write_svg(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    const struct pld__svg_view whole = {0, -1, 0};
    return pld__write_svg_view(out, R, t, &whole);
}

int pld__write_svg_view(FILE *out, const struct pld__run *R, const struct pld__trace *t,
                        const struct pld__svg_view *view)
{
    int lanes = R->P + 1; /* lane 0 is the host */
    double tend = 0;
    for (size_t i = 0; i < t->n; i++)
        tend = fmax(tend, t->ev[i].t1);
    double t_from = view->from, tmax = view->to >= 0 ? view->to : tend;
    if (tmax <= t_from)
        tmax = t_from + 1e-6;
    double span = tmax - t_from;
    int async = 0; /* a put_async's transfer: one legend line more */
    for (size_t i = 0; i < t->nx; i++)
        async |= t->xf[i].is_async;
    const double L = 70, lane_h = 28, T = 40, gap = 4;
    const double plot_w = view->width > 0 ? view->width : auto_width(t, span);
    const double W = L + plot_w + 20, H = T + lanes * lane_h + 60 + 18 * (5 + async);
    /* x of a time, held to the window (an op that straddles its edge is cut) */
#define X(s)          (L + (fmin(fmax((s), t_from), tmax) - t_from) / span * plot_w)
#define IN_VIEW(a, b) ((b) >= t_from && (a) <= tmax)
#define LANE_Y(rank)  (T + ((rank) + 1) * lane_h)
/* the edge of `lane` that faces `other`: in the gap around its blocks */
#define EDGE_Y(lane, other) (LANE_Y(lane) + ((other) > (lane) ? lane_h - gap / 2 : gap / 2))
    char *platform = pld__escape_xml(R->platform_desc);
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<defs><marker id=\"arrow\" markerWidth=\"6\" markerHeight=\"6\" refX=\"6\" refY=\"3\" "
            "orient=\"auto\" markerUnits=\"userSpaceOnUse\"><path d=\"M0,0 L6,3 L0,6 z\" "
            "fill=\"#333\"/></marker></defs>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"22\" font-size=\"14\">pldsim timeline: %s, P=%d, %.3f us "
            "simulated",
            W, H, W, H, L, platform ? platform : "", R->P, tend * 1e6);
    if (t_from > 0 || tmax < tend)
        fprintf(out, ", drawn from %.3f to %.3f us", t_from * 1e6, tmax * 1e6);
    fputs("</text>\n", out);
    free(platform);
    for (int l = 0; l < lanes; l++) {
        double y = T + l * lane_h;
        char label[32];
        if (l == 0)
            snprintf(label, sizeof label, "host");
        else
            snprintf(label, sizeof label, "rank %d", l - 1);
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L, y, plot_w, lane_h, l % 2 ? "#f7f7f7" : "#ffffff", L - 8, y + lane_h / 2 + 4,
                label);
    }
    /* transfers: data leaves `src` at the op's start and lands at its end */
    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *e = &t->ev[i];
        if (pld__ops[e->id].kind != PLD__KIND_DATA || e->peer < 0 || e->peer == e->rank ||
            e->id == PLD__OP_PUT_ASYNC)
            continue;
        if (!IN_VIEW(e->t0, e->t1))
            continue;
        int pull = e->id == PLD__OP_REMOTE_LOAD || e->id == PLD__OP_GET;
        int src = pull ? e->peer : e->rank, dst = pull ? e->rank : e->peer;
        fprintf(out,
                "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\" "
                "stroke-width=\"0.8\" marker-end=\"url(#arrow)\"/>\n",
                X(e->t0), EDGE_Y(src, dst), X(e->t1), EDGE_Y(dst, src));
    }
    /* an async put's bytes move while its rank goes on: a band along the
     * bottom of the sender's lane, from the engine's start to the landing */
    for (size_t i = 0; i < t->nx; i++) {
        const struct pld__xfer *x = &t->xf[i];
        if (!x->is_async || !IN_VIEW(x->t0, x->t1))
            continue;
        double x0 = X(x->t0), w = fmax(X(x->t1) - x0, 0.5), y = LANE_Y(x->from) + lane_h - gap;
        fprintf(out,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"4\" fill=\"%s\">"
                "<title>put_async in flight %.3f-%.3f us</title></rect>\n"
                "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\" "
                "stroke-width=\"1\" stroke-dasharray=\"3,2\" marker-end=\"url(#arrow)\"/>\n",
                x0, y, w, kinds[PLD__KIND_DATA].colour, x->t0 * 1e6, x->t1 * 1e6, x0,
                EDGE_Y(x->from, x->to), X(x->t1), EDGE_Y(x->to, x->from));
    }
    /* the ops, over the arrows */
    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *e = &t->ev[i];
        if (!IN_VIEW(e->t0, e->t1))
            continue;
        double x0 = X(e->t0), w = fmax(X(e->t1) - x0, 0.5), y = LANE_Y(e->rank) + gap;
        fprintf(out,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
                "<title>%s %.3f-%.3f us</title></rect>\n",
                x0, y, w, lane_h - 2 * gap, kinds[kind_of(e)].colour, e->op, e->t0 * 1e6,
                e->t1 * 1e6);
    }

    /* time axis */
    double axis_y = T + lanes * lane_h, step = nice_step(span * 1e6);
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"black\"/>\n", L,
            axis_y, L + plot_w, axis_y);
    /* at most a few dozen ticks: the count, not the sum, ends the loop when
     * a step is too small to move `us` (a window narrower than a double
     * tells apart at its time) */
    int ticks = 0;
    for (double us = ceil(t_from * 1e6 / step - 1e-9) * step;
         us <= tmax * 1e6 + 1e-9 && ticks < 100; us += step, ticks++)
        fprintf(out,
                "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>"
                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                X(us * 1e-6), axis_y, X(us * 1e-6), axis_y + 5, X(us * 1e-6), axis_y + 17,
                fabs(us) < step * 1e-6 ? 0.0 : us); /* never "-0" */
    fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">time (us)</text>\n",
            L + plot_w / 2, axis_y + 32);
    for (int k = 0; k < 5; k++) {
        double y = axis_y + 48 + 18 * k;
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%.1f\">%s</text>\n",
                L, y - 10, kinds[k].colour, L + 20, y, kinds[k].name);
    }
    if (async) /* only then: the other timelines stay as they were */
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%.1f\">put_async in flight on a DMA engine (dashed: to "
                "the peer)</text>\n",
                L, axis_y + 48 + 18 * 5 - 6, kinds[PLD__KIND_DATA].colour, L + 20,
                axis_y + 48 + 18 * 5);
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}
