/* svg_links.h: pldsim-timeline's links view, drawn on the SVG timeline:
 * a lane per link with its throughput as a share of its bandwidth, and
 * each rank's idle gaps marked on its lane.  Private to libpld. */
#ifndef PLD_SVG_LINKS_H
#define PLD_SVG_LINKS_H

#include "svg_axis.h"
#include "trace.h"

#include <stdio.h>

/* The px the links' names need left of the plot (at least `min`). */
double pld__svg_links_label_w(const struct pld__svg_view *v, double min);

/* Draws the view's links, one lane of `lane_h` px each from y = top, the
 * plot starting at x = left: a step area of throughput / bandwidth (0 to
 * 100 % of the lane), named on the left, with its totals as a tooltip. */
void pld__svg_draw_links(FILE *out, const struct pld__svg_view *v, const struct pld__svg_axis *a,
                         double left, double top, double lane_h);

/* Marks each gap at least 2 px wide along the top of its rank's lane
 * (lane_y[rank + 1], lane_y[rank + 2]: its edges), with a tooltip that
 * says how long it is and what ended it. */
void pld__svg_draw_gaps(FILE *out, const struct pld__trace *t, const struct pld__idle_gap *g,
                        size_t n, const struct pld__svg_axis *a, double left, const double *lane_y);

/* The legend's lines for the links view, from y on, 18 px apart; returns
 * how many it drew. */
int pld__svg_links_legend(FILE *out, double left, double y, int links, int gaps);

#endif
