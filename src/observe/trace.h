/* trace.h: the run's event log and its writers (text, Perfetto JSON, SVG
 * timeline) and the run summary.  Private to libpld. */
#ifndef PLD_TRACE_H
#define PLD_TRACE_H

#include "internal.h"
#include "observe.h"
#include "ptrmap.h"

/* One transfer through the interconnect (a part of an op). */
struct pld__xfer {
    double t0, t1;
    int from, to;  /* ranks */
    int initiator; /* the rank whose op moved it */
    double bytes;
    int is_signal;
    int is_async;    /* moved by a DMA engine while its rank went on (put_async) */
    double route_bw; /* B/s, the route's bottleneck; 0 if unknown */
};

struct pld__trace {
    char *path; /* NULL: events kept for the summary only */
    struct pld__event *ev;
    size_t n, cap;
    struct pld__xfer *xf;
    size_t nx, capx;
    /* cell address -> seq of the last notify that updated it */
    struct pld__ptrmap cells;
    int summary;
};

/* Writers: `ev` is sorted by start time; each returns 0 or -1. */
int pld__write_text(FILE *out, const struct pld__run *R, const struct pld__trace *t);
int pld__write_json(FILE *out, const struct pld__run *R, const struct pld__trace *t);
int pld__write_svg(FILE *out, const struct pld__run *R, const struct pld__trace *t);

/* What part of a run an SVG timeline draws, and how.  from/to are
 * simulated seconds (to < 0: the run's end); width is the plot's width in
 * px, or 0 to size it from the events (pld__write_svg's default); linear:
 * all to scale, no idle stretch cut short (svg_axis.c). */
struct pld__svg_view {
    double from, to, width;
    int linear;
};
int pld__write_svg_view(FILE *out, const struct pld__run *R, const struct pld__trace *t,
                        const struct pld__svg_view *view);

/* Prints the run summary (per rank, per link, critical path) to `out`. */
void pld__print_summary(FILE *out, const struct pld__run *R, const struct pld__trace *t);

/* The summary's numbers, computed once for the text and the JSON writer. */
struct pld__summary_route {
    int from, to;
    double bytes, peak; /* peak: B/s */
    double bw;          /* the route's bottleneck bandwidth, B/s */
};
/* One event on the critical path; only [from, e->t1] of it is on the path. */
struct pld__summary_seg {
    const struct pld__event *e;
    double from;
};
struct pld__summary {
    double end;   /* s: the run's end (the last event, or the backend's end) */
    double *busy; /* s per rank, [P] = the host */
    double *wait; /* s per rank blocked in waits */
    struct pld__summary_route *routes;
    size_t nroutes;
    int has_path; /* the trace had events */
    double start; /* s: where the critical path starts */
    int hops, nevents;
    double by_kind[5];             /* s of the path per kind, as pld__kind_names */
    struct pld__summary_seg *path; /* last event first */
    size_t npath, cappath;
};
/* The names of enum pld__kind, as the summary prints them. */
extern const char *const pld__kind_names[5];
/* Fills S (0) or returns -1 when out of memory; free with pld__summary_free. */
int pld__summary_compute(struct pld__summary *S, const struct pld__run *R,
                         const struct pld__trace *t);
void pld__summary_free(struct pld__summary *S);
/* Writes the summary as JSON (docs/summary.schema.json) to `out`; 0 or -1. */
int pld__write_summary_json(FILE *out, const struct pld__run *R, const struct pld__trace *t);

/* The file name without its directories. */
const char *pld__base_name(const char *path);

#endif
