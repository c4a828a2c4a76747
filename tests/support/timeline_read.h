/* timeline_read.h: an SVG timeline (src/trace_svg.c) read back the way
 * the tests look at it: the plot, its op blocks, the breaks that stand for
 * idle stretches, and the time axis' ticks.  Shared by check_traces (the
 * geometry) and check_browser (what Chromium shows). */
#ifndef PLD_TIMELINE_READ_H
#define PLD_TIMELINE_READ_H

/* An op block: a <rect> with a <title> "op T0-T1 us". */
struct tl_op {
    double x, y, w, h; /* px */
    unsigned colour;   /* 0xRRGGBB */
    char op[32];       /* "remote_load"; "put_async" for an in-flight band */
    double t0, t1;     /* us, from the title; both -1 for an in-flight band */
    int lane;          /* 0: the host, r + 1: rank r (the lane whose band holds y) */
};

/* A break: an idle stretch drawn narrow, with the time it stands for. */
struct tl_break {
    double x, w;     /* px: its band */
    double from, to; /* us: the stretch it hides (its data-from-us, data-to-us) */
    double label;    /* us: the number its label shows */
};

/* A tick of the time axis and the number under it. */
struct tl_tick {
    double x, value; /* px, us */
};

struct timeline {
    double width, height;                      /* px: the picture */
    double plot_x0, plot_x1, lanes_y0, lane_h; /* lane_h: the first lane's */
    double *lane_y; /* px: where each lane starts; lane_y[lanes]: where the last ends */
    int lanes;
    struct tl_op *ops;
    int nops;
    struct tl_break *breaks;
    int nbreaks;
    struct tl_tick *ticks;
    int nticks;
};

/* Reads `svg` (the file's text) into `t`; 0, or -1 when it is not a
 * timeline (no lanes). */
int timeline_read(const char *svg, struct timeline *t);
void timeline_free(struct timeline *t);

/* The break whose band holds x (px), or NULL. */
const struct tl_break *timeline_break_at(const struct timeline *t, double x);

#endif
