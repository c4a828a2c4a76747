/* trace_svg.c: a self-contained SVG timeline: one lane per rank (and the
 * host), ops coloured by kind, an arrow for each transfer from the lane of
 * the rank the data leaves to the lane where it lands, a time axis in
 * microseconds, and a legend.  Built from the events alone, so
 * tools/pldsim-timeline draws the same picture from a text trace.
 *  - Time: idle stretches (ranks only waiting, the host at most
 *    dispatching) are cut short, each a narrow marked break labelled with
 *    the time it stands for; the rest is to scale (svg_axis.c says which
 *    stretches and why).  --trace-linear, pldsim-timeline --linear: all
 *    to scale.
 *  - Width: the plot is sized so that a typical op (the median of the
 *    ops that take time) is 10 px wide, within 1000..12000 px; a run
 *    whose ops are all short against its span gets a wider picture rather
 *    than blocks squeezed into slivers.  tools/pldsim-timeline --from/--to
 *    draws a window of the run, --width sets the width.
 *  - Arrows are drawn before the blocks, and run from the edge of one lane
 *    to the edge of the other, in the gap around the blocks, so that no
 *    arrowhead or line covers an op.
 *  - Ops of one rank that overlap in time (its cores at once: a builtin's
 *    core_num, a task graph's vector and cube cores) go to rows of its
 *    lane, so that none hides another: each op to the row whose last op
 *    ended latest no later than its start, which keeps a core's run of
 *    ops on one row; a rank whose ops never overlap has one row, drawn as
 *    before. */
#include "escape.h"
#include "svg_axis.h"
#include "svg_links.h"
#include "trace.h"
#include "observe.h"

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

/* `s` as the text trace keeps it (ns to 3 places) and pldsim-timeline
 * reads it back.  Drawing from these times makes --trace FILE.svg and
 * pldsim-timeline FILE.txt the same bytes at any scale: a cut axis draws
 * a microsecond over a hundred px, where a picosecond can tip a
 * coordinate's last digit. */
static double as_text_trace(double s)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", s * 1e9);
    return strtod(buf, NULL) * 1e-9;
}

int pld__write_svg(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    const struct pld__svg_view whole = {0, -1, 0, R->cfg && R->cfg->trace_linear, NULL, 0, 0};
    struct pld__trace q = *t;
    q.ev = malloc((t->n + 1) * sizeof *q.ev);
    q.xf = malloc((t->nx + 1) * sizeof *q.xf);
    int rc = -1;
    if (q.ev && q.xf) {
        for (size_t i = 0; i < t->n; i++) {
            q.ev[i] = t->ev[i];
            q.ev[i].t0 = as_text_trace(t->ev[i].t0), q.ev[i].t1 = as_text_trace(t->ev[i].t1);
        }
        for (size_t i = 0; i < t->nx; i++) {
            q.xf[i] = t->xf[i];
            q.xf[i].t0 = as_text_trace(t->xf[i].t0), q.xf[i].t1 = as_text_trace(t->xf[i].t1);
        }
        rc = pld__write_svg_view(out, R, &q, &whole);
    }
    free(q.ev);
    free(q.xf);
    return rc;
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
    int async = 0; /* a put_async's transfer: one legend line more */
    for (size_t i = 0; i < t->nx; i++)
        async |= t->xf[i].is_async;
    struct pld__svg_axis axis;
    if (pld__svg_axis_init(&axis, t, t_from, tmax, view->width, view->linear) != 0)
        return -1;
    int cut = axis.nbreaks > 0; /* the breaks' labels need a row above the lanes */
    const double L = pld__svg_links_label_w(view, 70), lane_h = 28, row_h = 14, T = cut ? 54 : 40,
                 gap = 4, plot_w = axis.plot_w;
    /* the links view's gaps; the lines of its legend */
    struct pld__idle_gap *gaps = NULL;
    size_t ngaps = 0;
    if (view->gaps && pld__idle_gaps(t, R->P, tend, &gaps, &ngaps) != 0) {
        pld__svg_axis_free(&axis);
        return -1;
    }
    int extra = (view->nlinks > 0) + (view->gaps != 0);
#define IN_VIEW(a, b) ((b) >= t_from && (a) <= tmax)
    /* the row of each op in view, and the rows of each lane */
    int *row = calloc(t->n + 1, sizeof *row), *nrows = calloc((size_t)lanes, sizeof *nrows);
    double *row_end = NULL, *lane_y = malloc(((size_t)lanes + 1) * sizeof *lane_y);
    size_t cap = 0;
    if (!row || !nrows || !lane_y) {
        free(row), free(nrows), free(lane_y), free(gaps);
        pld__svg_axis_free(&axis);
        return -1;
    }
    for (int l = 0; l < lanes; l++) {
        int n = 0; /* rows of lane l so far; row_end[k]: where row k's last op ends */
        for (size_t i = 0; i < t->n; i++) {
            const struct pld__event *e = &t->ev[i];
            if (e->rank + 1 != l || !IN_VIEW(e->t0, e->t1))
                continue;
            int best = -1;
            for (int k = 0; k < n; k++)
                if (row_end[k] <= e->t0 && (best < 0 || row_end[k] > row_end[best]))
                    best = k;
            if (best < 0) {
                if ((size_t)n == cap) {
                    double *g = realloc(row_end, (cap = cap ? 2 * cap : 8) * sizeof *g);
                    if (!g) {
                        free(row), free(nrows), free(lane_y), free(row_end), free(gaps);
                        pld__svg_axis_free(&axis);
                        return -1;
                    }
                    row_end = g;
                }
                best = n++;
            }
            row[i] = best;
            row_end[best] = e->t1;
        }
        nrows[l] = n > 1 ? n : 1;
    }
    free(row_end);
    int rows = 0; /* some lane has more than one row */
    lane_y[0] = T;
    for (int l = 0; l < lanes; l++) {
        rows |= nrows[l] > 1;
        lane_y[l + 1] = lane_y[l] + (nrows[l] > 1 ? 2 * gap + nrows[l] * row_h : lane_h);
    }
    const double links_h = (double)view->nlinks * lane_h, W = L + plot_w + 20,
                 H = lane_y[lanes] + links_h + 60 + 18 * (5 + async + cut + extra);
    /* x of a time, held to the window (an op that straddles its edge is cut) */
#define X(s)         (L + pld__svg_axis_x(&axis, (s)))
#define LANE_Y(rank) (lane_y[(rank) + 1])
#define LANE_H(rank) (lane_y[(rank) + 2] - lane_y[(rank) + 1])
/* the edge of `lane` that faces `other`: in the gap around its blocks */
#define EDGE_Y(lane, other) (LANE_Y(lane) + ((other) > (lane) ? LANE_H(lane) - gap / 2 : gap / 2))
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
    if (cut)
        fprintf(out, "; %d idle stretch%s cut short", axis.nbreaks, axis.nbreaks > 1 ? "es" : "");
    if (rows)
        fputs("; a rank's ops at once (its cores) in rows", out);
    fputs("</text>\n", out);
    free(platform);
    for (int l = 0; l < lanes; l++) {
        double y = lane_y[l], h = lane_y[l + 1] - lane_y[l];
        char label[32];
        if (l == 0)
            snprintf(label, sizeof label, "host");
        else
            snprintf(label, sizeof label, "rank %d", l - 1);
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L, y, plot_w, h, l % 2 ? "#f7f7f7" : "#ffffff", L - 8, y + h / 2 + 4, label);
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
        double x0 = X(x->t0), w = fmax(X(x->t1) - x0, 0.5),
               y = LANE_Y(x->from) + LANE_H(x->from) - gap;
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
        double x0 = X(e->t0), w = fmax(X(e->t1) - x0, 0.5), y = LANE_Y(e->rank) + gap,
               h = lane_h - 2 * gap;
        if (nrows[e->rank + 1] > 1) /* a row of the lane, with a pixel between rows */
            y += row[i] * row_h + 1, h = row_h - 2;
        fprintf(out,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
                "<title>%s %.3f-%.3f us</title></rect>\n",
                x0, y, w, h, kinds[kind_of(e)].colour, e->op, e->t0 * 1e6, e->t1 * 1e6);
    }

    /* the links view: its gaps over the ops, its links under the ranks */
    pld__svg_draw_gaps(out, t, gaps, ngaps, &axis, L, lane_y);
    pld__svg_draw_links(out, view, &axis, L, lane_y[lanes], lane_h);
    free(gaps);
    /* time axis, then the breaks over the lanes and through the axis */
    double axis_y = lane_y[lanes] + links_h;
    free(row), free(nrows), free(lane_y);
    pld__svg_axis_draw_ticks(out, &axis, L, axis_y);
    pld__svg_axis_draw_breaks(out, &axis, L, T, axis_y);
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
    if (cut) { /* a grey block with a white zig-zag band, as the breaks */
        double y = axis_y + 48 + 18 * (5 + async);
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>"
                "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\" "
                "fill=\"white\" stroke=\"#555\"/>"
                "<text x=\"%.0f\" y=\"%.1f\">an idle stretch cut short (the ranks only wait, the "
                "host at most dispatches), labelled with the time it stands for; "
                "--trace-linear (pldsim-timeline --linear) draws time to scale</text>\n",
                L, y - 10, kinds[PLD__KIND_WAIT].colour, L + 4, y - 10, L + 7, y - 4, L + 4, y + 2,
                L + 10, y + 2, L + 13, y - 4, L + 10, y - 10, L + 20, y);
    }
    pld__svg_links_legend(out, L, axis_y + 48 + 18 * (5 + async + cut), view->nlinks > 0,
                          view->gaps);
    pld__svg_axis_free(&axis);
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}
