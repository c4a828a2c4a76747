/* svg_axis.h: the time axis of the SVG timeline: which simulated time is
 * drawn at which x, with the idle stretches of a run cut short, and the
 * ticks and break marks that say so.  Private to libpld. */
#ifndef PLD_SVG_AXIS_H
#define PLD_SVG_AXIS_H

#include "trace.h"

#include <stdio.h>

/* A part of the axis: [t0, t1] s drawn over [x0, x1] px of the plot, to
 * scale, or, for a break, squeezed into a fixed narrow band. */
struct pld__svg_seg {
    double t0, t1, x0, x1;
    int is_break;
};

struct pld__svg_axis {
    double from, to; /* s: the window drawn */
    double plot_w;   /* px */
    double break_w;  /* px of each break */
    int nbreaks;     /* 0: time is to scale across the whole plot */
    struct pld__svg_seg *seg;
    int nseg;
};

/* Lays out the axis of a picture of `t` over [from, to] s: the plot is
 * `width` px, or sized from the events when 0; `linear` keeps time to
 * scale.  Returns 0, or -1 when out of memory. */
int pld__svg_axis_init(struct pld__svg_axis *a, const struct pld__trace *t, double from, double to,
                       double width, int linear);
void pld__svg_axis_free(struct pld__svg_axis *a);

/* The x (px from the plot's left edge) at which time `s` is drawn; a time
 * outside the window is held to its edge. */
double pld__svg_axis_x(const struct pld__svg_axis *a, double s);

/* Draws the axis line at y = axis_y, its ticks and their numbers (in real
 * simulated microseconds), the plot starting at x = left. */
void pld__svg_axis_draw_ticks(FILE *out, const struct pld__svg_axis *a, double left, double axis_y);

/* Draws each break over the lanes, from y = top to y = axis_y: a veil, a
 * zig-zag cut, and above the lanes the time it stands for. */
void pld__svg_axis_draw_breaks(FILE *out, const struct pld__svg_axis *a, double left, double top,
                               double axis_y);

#endif
