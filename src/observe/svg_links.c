/* svg_links.c: the links view of the SVG timeline (pldsim-timeline on a
 * JSON trace): where a link is busy beside what the ranks do, and where a
 * rank does nothing but wait.  A link's lane is a step area of its
 * throughput over its bandwidth, so a bottleneck reads as a lane filled to
 * the top while ranks above it wait. */
#include "svg_links.h"
#include "escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char link_colour[] = "#e45756", gap_colour[] = "#c0392b";

double pld__svg_links_label_w(const struct pld__svg_view *v, double min)
{
    double w = min;
    for (size_t i = 0; i < v->nlinks; i++) {
        /* sans-serif at 11 px: about 6.5 px a character, and 8 px to the plot */
        double need = 6.5 * (double)strlen(v->links[i].name) + 16;
        if (need > w)
            w = need;
    }
    return ceil(w);
}

void pld__svg_draw_links(FILE *out, const struct pld__svg_view *v, const struct pld__svg_axis *a,
                         double left, double top, double lane_h)
{
    const double pad = 4, h = lane_h - 2 * pad;
    for (size_t i = 0; i < v->nlinks; i++) {
        const struct pld__link_series *l = &v->links[i];
        double y = top + (double)i * lane_h, base = y + lane_h - pad, peak = 0;
        char *name = pld__escape_xml(l->name);
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s</text>\n",
                left, y, a->plot_w, lane_h, i % 2 ? "#fbf3f3" : "#fff8f8", left - 8,
                y + lane_h / 2 + 4, link_colour, name ? name : "?");
        /* the area: along the base to the first step, then step by step */
        fprintf(out, "<path d=\"M%.2f,%.1f", left + pld__svg_axis_x(a, a->from), base);
        double prev_y = base;
        for (size_t k = 0; k < l->n; k++) {
            if (l->t[k] > a->to)
                break;
            double share = l->bw > 0 ? fmin(l->v[k] / l->bw, 1) : 0;
            if (k + 1 < l->n ? l->t[k + 1] > a->from : 1)
                peak = fmax(peak, share);
            double x = left + pld__svg_axis_x(a, l->t[k]), yk = base - share * h;
            if (yk != prev_y)
                fprintf(out, " L%.2f,%.1f L%.2f,%.1f", x, prev_y, x, yk);
            prev_y = yk;
        }
        fprintf(out,
                " L%.2f,%.1f L%.2f,%.1f Z\" fill=\"%s\" fill-opacity=\"0.75\" stroke=\"none\">"
                "<title>%s: %.0f bytes at %.3g GB/s, busy %.3f us</title></path>\n",
                left + pld__svg_axis_x(a, a->to), prev_y, left + pld__svg_axis_x(a, a->to), base,
                link_colour, name ? name : "?", l->bytes, l->bw / 1e9, l->busy * 1e6);
        fprintf(out,
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" fill=\"#555\">"
                "peak %.0f %%</text>\n",
                left + a->plot_w - 4, y + 10, 100 * peak);
        free(name);
    }
}

void pld__svg_draw_gaps(FILE *out, const struct pld__trace *t, const struct pld__idle_gap *g,
                        size_t n, const struct pld__svg_axis *a, double left, const double *lane_y)
{
    for (size_t i = 0; i < n; i++) {
        if (g[i].t1 < a->from || g[i].t0 > a->to)
            continue;
        double x0 = left + pld__svg_axis_x(a, g[i].t0), x1 = left + pld__svg_axis_x(a, g[i].t1);
        if (x1 - x0 < 2)
            continue;
        double y = lane_y[g[i].rank + 1] + 1.5;
        fprintf(
            out,
            "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"2\"><title>rank %d idle %.3f us (%.3f-%.3f us)%s%s%s</title></line>\n",
            x0, y, x1, y, gap_colour, g[i].rank, (g[i].t1 - g[i].t0) * 1e6, g[i].t0 * 1e6,
            g[i].t1 * 1e6, g[i].waiting ? ", waiting" : "", g[i].next >= 0 ? "; then " : "",
            g[i].next >= 0 ? t->ev[g[i].next].op : "");
    }
}

int pld__svg_links_legend(FILE *out, double left, double y, int links, int gaps)
{
    int k = 0;
    if (links)
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\" "
                "fill-opacity=\"0.75\"/><text x=\"%.0f\" y=\"%.1f\">a link's throughput as a "
                "share of its bandwidth (a full lane: 100 %%), the busiest links</text>\n",
                left, y + 18 * k - 10, link_colour, left + 20, y + 18 * k),
            k++;
    if (gaps)
        fprintf(out,
                "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.1f\">a rank's idle gap: none of its "
                "ops but waits run</text>\n",
                left, y + 18 * k - 4, left + 14, y + 18 * k - 4, gap_colour, left + 20, y + 18 * k),
            k++;
    return k;
}
