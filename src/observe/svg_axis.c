/* svg_axis.c: the time axis of the SVG timeline, and its breaks.
 *
 * A calibrated a2a3 host takes 277 us to dispatch one task, while the ops
 * take 0.1 to 1 us, so a run drawn to scale is almost all ranks waiting
 * for the host, the work a sliver at the right.  So by default an idle
 * stretch (no rank runs anything but waits, no transfer is in flight, the
 * host at most dispatches) is cut short: drawn as a fixed narrow break,
 * marked by a zig-zag and labelled with the time it stands for.  Between
 * breaks time stays to scale, one scale for the whole picture, so blocks
 * and gaps keep their true proportions and the ticks (in real simulated
 * time) are right on both sides of each break.
 *
 * Which stretches: those longer than 50 times the median op (of the ops
 * that take time, waits aside: the op the width rule makes 10 px wide).
 * 50 typical ops would be 500 px of empty lanes, well over ten times the
 * 40-px break, so each cut saves real width; anything shorter (a notify's
 * flight, a rank waiting on its neighbour's round, a slow transfer) is the
 * algorithm's own rhythm and stays to scale.  A 277-us dispatch is some
 * 3000 median ops, far past the line.
 *
 * A block that straddles a break (a long wait, a dispatch) is drawn
 * through it, squeezed into the band like the time it stands for, and the
 * break's veil and zig-zag over it show the cut.  No transfer can cross a
 * break (a transfer is a rank's op, so not idle), so arrows keep their
 * ends.  With no stretch to cut, or with `linear`, the axis is the one
 * scale of the whole window, as it always was. */
#include "svg_axis.h"
#include "observe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BREAK_PX = 40, IDLE_OPS = 50 };

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* The median duration of the ops that take time, waits aside; 0 if none,
 * -1 when out of memory. */
static double median_op(const struct pld__trace *t)
{
    double *d = malloc((t->n + 1) * sizeof *d), m = 0;
    size_t n = 0;
    if (!d)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].t1 > t->ev[i].t0 && pld__ops[t->ev[i].id].kind != PLD__KIND_WAIT)
            d[n++] = t->ev[i].t1 - t->ev[i].t0;
    if (n) {
        qsort(d, n, sizeof *d, cmp_double);
        m = d[n / 2];
    }
    free(d);
    return m;
}

/* The plot width (px) at which the median op is about 10 px wide, within
 * [1000, 12000], for `span` s drawn to scale and `fixed` px of breaks. */
static double auto_width(double median, double span, double fixed)
{
    return median > 0 ? fmin(fmax(10 * span / median + fixed, 1000), 12000) : 1000;
}

/* Time intervals in which something runs: every op but waits and host
 * dispatches, and the in-flight part of each async transfer, held to
 * [from, to]; sorted by start.  Returns how many, or -1. */
static long busy_intervals(const struct pld__trace *t, double from, double to, double (**out)[2])
{
    double(*iv)[2] = malloc((t->n + t->nx + 1) * sizeof *iv);
    long n = 0;
    if (!iv)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *e = &t->ev[i];
        enum pld__kind k = pld__ops[e->id].kind;
        if (k != PLD__KIND_WAIT && k != PLD__KIND_DISPATCH && e->t1 >= from && e->t0 <= to)
            iv[n][0] = fmax(e->t0, from), iv[n][1] = fmin(e->t1, to), n++;
    }
    for (size_t i = 0; i < t->nx; i++)
        if (t->xf[i].is_async && t->xf[i].t1 >= from && t->xf[i].t0 <= to)
            iv[n][0] = fmax(t->xf[i].t0, from), iv[n][1] = fmin(t->xf[i].t1, to), n++;
    qsort(iv, (size_t)n, sizeof *iv, cmp_double); /* by start: the first double */
    *out = iv;
    return n;
}

static int add_seg(struct pld__svg_axis *a, double t0, double t1, int is_break)
{
    struct pld__svg_seg *s = realloc(a->seg, (size_t)(a->nseg + 1) * sizeof *s);
    if (!s)
        return -1;
    a->seg = s;
    s[a->nseg++] = (struct pld__svg_seg){t0, t1, 0, 0, is_break};
    return 0;
}

/* One segment, the whole window to scale. */
static int linear_axis(struct pld__svg_axis *a, double width, double median)
{
    a->plot_w = width > 0 ? width : auto_width(median, a->to - a->from, 0);
    a->nbreaks = 0;
    a->nseg = 0;
    if (add_seg(a, a->from, a->to, 0))
        return -1;
    a->seg[0].x1 = a->plot_w;
    return 0;
}

int pld__svg_axis_init(struct pld__svg_axis *a, const struct pld__trace *t, double from, double to,
                       double width, int linear)
{
    memset(a, 0, sizeof *a);
    a->from = from, a->to = to;
    double median = median_op(t);
    if (median < 0)
        return -1;
    if (linear || median == 0)
        return linear_axis(a, width, median);
    double(*iv)[2];
    long n = busy_intervals(t, from, to, &iv);
    if (n < 0)
        return -1;
    /* sweep: a break is each gap between busy intervals longer than the
     * line, the window's edges included */
    double line = IDLE_OPS * median, end = from, idle = 0;
    int rc = 0;
    for (long i = 0; i <= n && n > 0 && !rc; i++) {
        double start = i < n ? iv[i][0] : to;
        if (start - end > line) {
            if (end > from || a->nseg)
                rc |= add_seg(a, a->nseg ? a->seg[a->nseg - 1].t1 : from, end, 0);
            rc |= add_seg(a, end, start, 1);
            a->nbreaks++;
            idle += start - end;
        }
        if (i < n)
            end = fmax(end, iv[i][1]);
    }
    free(iv);
    double kept = to - from - idle;
    if (rc || !a->nbreaks || !(kept > 0)) { /* nothing to cut, or nothing left */
        free(a->seg);
        a->seg = NULL;
        return rc ? -1 : linear_axis(a, width, median);
    }
    if (a->seg[a->nseg - 1].t1 < to && add_seg(a, a->seg[a->nseg - 1].t1, to, 0))
        return -1;
    a->break_w = BREAK_PX;
    /* whole px: the lanes' and the picture's width are written so */
    a->plot_w = width > 0 ? width : round(auto_width(median, kept, a->nbreaks * a->break_w));
    /* breaks never take more than a quarter of the plot */
    if (a->nbreaks * a->break_w > a->plot_w / 4)
        a->break_w = a->plot_w / 4 / a->nbreaks;
    double scale = (a->plot_w - a->nbreaks * a->break_w) / kept, x = 0;
    for (int i = 0; i < a->nseg; i++) {
        struct pld__svg_seg *s = &a->seg[i];
        s->x0 = x;
        x += s->is_break ? a->break_w : (s->t1 - s->t0) * scale;
        s->x1 = i == a->nseg - 1 ? a->plot_w : x; /* no rounding gap at the end */
    }
    return 0;
}

void pld__svg_axis_free(struct pld__svg_axis *a)
{
    free(a->seg);
    a->seg = NULL;
    a->nseg = 0;
}

double pld__svg_axis_x(const struct pld__svg_axis *a, double s)
{
    s = fmin(fmax(s, a->from), a->to);
    int lo = 0, hi = a->nseg - 1; /* the last segment that starts at or before s */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (a->seg[mid].t0 <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    const struct pld__svg_seg *g = &a->seg[lo];
    return g->t1 > g->t0 ? g->x0 + (s - g->t0) / (g->t1 - g->t0) * (g->x1 - g->x0) : g->x0;
}

/* A round step for the time axis: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
    double raw = span / 8, p = pow(10, floor(log10(raw)));
    return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

/* The smallest 1, 2 or 5 times a power of ten that is at least `raw`. */
static double step_at_least(double raw)
{
    double p = pow(10, floor(log10(raw)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void tick(FILE *out, double x, double axis_y, const char *label)
{
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>", x,
            axis_y, x, axis_y + 5);
    if (label)
        fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x, axis_y + 17,
                label);
    fputc('\n', out);
}

/* `us` with `decimals` places, trailing zeros dropped: 277, 277.5 */
static void format_us(char *buf, size_t size, double us, int decimals)
{
    snprintf(buf, size, "%.*f", decimals, fabs(us) < 1e-12 ? 0.0 : us); /* never "-0" */
    if (strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0')
            *e-- = '\0';
        if (*e == '.')
            *e = '\0';
    }
}

/* Cut axis: ticks at round times inside each part drawn to scale, far
 * enough apart for their numbers; a part too short for a round time gets
 * one at its start, so every part says where it is. */
static void cut_ticks(FILE *out, const struct pld__svg_axis *a, double left, double axis_y)
{
    const double char_px = 6.2, min_gap = 70; /* px; an 11-px digit, a label's room */
    double px_per_us = 0;
    for (int i = 0; i < a->nseg; i++)
        if (!a->seg[i].is_break && a->seg[i].t1 > a->seg[i].t0)
            px_per_us = (a->seg[i].x1 - a->seg[i].x0) / ((a->seg[i].t1 - a->seg[i].t0) * 1e6);
    double step = step_at_least(min_gap / px_per_us), last_right = -1e300;
    int decimals = step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;
    for (int i = 0; i < a->nseg; i++) {
        const struct pld__svg_seg *s = &a->seg[i];
        if (s->is_break)
            continue;
        double lo = s->t0 * 1e6, hi = s->t1 * 1e6;
        int drawn = 0;
        for (double k = ceil(lo / step - 1e-9); k * step <= hi + 1e-9 && drawn < 1000; k++) {
            char label[48];
            double x = left + pld__svg_axis_x(a, k * step * 1e-6);
            format_us(label, sizeof label, k * step, decimals);
            double half = strlen(label) * char_px / 2;
            int room = x - half >= last_right + 4;
            tick(out, x, axis_y, room ? label : NULL);
            if (room)
                last_right = x + half;
            drawn++;
        }
        if (!drawn) {
            char label[48];
            double x = left + s->x0;
            format_us(label, sizeof label, lo, 3);
            double half = strlen(label) * char_px / 2;
            int room = x - half >= last_right + 4;
            tick(out, x, axis_y, room ? label : NULL);
            if (room)
                last_right = x + half;
        }
    }
}

void pld__svg_axis_draw_ticks(FILE *out, const struct pld__svg_axis *a, double left, double axis_y)
{
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"black\"/>\n", left,
            axis_y, left + a->plot_w, axis_y);
    if (a->nbreaks) {
        cut_ticks(out, a, left, axis_y);
        return;
    }
    double t_from = a->from, tmax = a->to, step = nice_step((tmax - t_from) * 1e6);
    /* at most a few dozen ticks: the count, not the sum, ends the loop when
     * a step is too small to move `us` (a window narrower than a double
     * tells apart at its time) */
    int ticks = 0;
    for (double us = ceil(t_from * 1e6 / step - 1e-9) * step;
         us <= tmax * 1e6 + 1e-9 && ticks < 100; us += step, ticks++) {
        double x = left + pld__svg_axis_x(a, us * 1e-6);
        fprintf(out,
                "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>"
                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                x, axis_y, x, axis_y + 5, x, axis_y + 17,
                fabs(us) < step * 1e-6 ? 0.0 : us); /* never "-0" */
    }
}

void pld__svg_axis_draw_breaks(FILE *out, const struct pld__svg_axis *a, double left, double top,
                               double axis_y)
{
    /* labels above the lanes, on the row nearest them unless the one
     * before is in the way there */
    const double char_px = 5.6; /* a 10-px digit */
    double right[2] = {-1e300, -1e300};
    for (int i = 0; i < a->nseg; i++) {
        const struct pld__svg_seg *s = &a->seg[i];
        if (!s->is_break)
            continue;
        double x = left + s->x0, w = s->x1 - s->x0, cx = x + w / 2, us = (s->t1 - s->t0) * 1e6;
        char label[48];
        snprintf(label, sizeof label, "%.3f us", us);
        double half = strlen(label) * char_px / 2;
        int row = cx - half >= right[0] + 4 ? 0 : cx - half >= right[1] + 4 ? 1 : 0;
        right[row] = cx + half;
        fprintf(out,
                "<g class=\"break\" data-from-us=\"%.6f\" data-to-us=\"%.6f\"><title>%.3f us cut "
                "short, %.3f to %.3f us: no rank runs anything but waits, the host at most "
                "dispatches</title>\n"
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"white\" "
                "fill-opacity=\"0.6\"/>\n<path d=\"",
                s->t0 * 1e6, s->t1 * 1e6, us, s->t0 * 1e6, s->t1 * 1e6, x, top, w, axis_y - top);
        /* a band 6 px wide whose two edges zig-zag together, from just
         * above the lanes through the axis line */
        const double y0 = top - 2, y1 = axis_y + 6, dy = 6, half_w = 3;
        int steps = (int)ceil((y1 - y0) / dy);
        for (int k = 0; k <= steps; k++)
            fprintf(out, "%s%.2f,%.1f", k ? " L" : "M", cx - half_w + (k % 2 ? 1.5 : -1.5),
                    fmin(y0 + k * dy, y1));
        for (int k = steps; k >= 0; k--)
            fprintf(out, " L%.2f,%.1f", cx + half_w + (k % 2 ? 1.5 : -1.5), fmin(y0 + k * dy, y1));
        fprintf(out,
                " Z\" fill=\"white\" stroke=\"#555\" stroke-width=\"1\"/>\n"
                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" "
                "fill=\"#333\">%s</text></g>\n",
                cx, top - 5 - 11 * row, label);
    }
}
