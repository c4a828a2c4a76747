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
    int route;       /* its route in pld__trace.routes; -1 if the backend has no links */
};

/* A route that transfers took, with its links (the backend's numbers). */
struct pld__trace_route {
    int from, to, nlinks;
    int *ids;
    double lat; /* s: the route's latency, before its bytes flow */
};

/* A link that a route crossed: the platform's name and its bandwidth. */
struct pld__trace_link {
    char *name; /* NULL: no route crossed this number */
    double bw;  /* B/s */
};

struct pld__trace {
    char *path; /* NULL: events kept for the summary only */
    struct pld__event *ev;
    size_t n, cap;
    struct pld__xfer *xf;
    size_t nx, capx;
    /* cell address -> seq of the last notify that updated it */
    struct pld__ptrmap cells;
    /* the routes transfers took ((from, to) -> index + 1 in route_of) and
     * the links they crossed, by the backend's number */
    struct pld__trace_route *routes;
    size_t nroutes, caproutes;
    struct pld__ptrmap route_of;
    struct pld__trace_link *links;
    size_t nlinks;
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
    /* pldsim-timeline's links view (0 and NULL: the picture --trace
     * FILE.svg draws): `nlinks` lanes of link throughput under the ranks'
     * (svg_links.c), and each rank's idle gaps marked when `gaps` */
    const struct pld__link_series *links;
    size_t nlinks;
    int gaps;
};
/* One link's throughput over a run, as a JSON trace's counters hold it:
 * from t[i] on, v[i] B/s (n steps, by time); bw, bytes and busy are the
 * run's (summary_links.c). */
struct pld__link_series {
    char *name;
    double bw, bytes, busy; /* B/s, B, s */
    size_t n;
    double *t, *v;
};
/* A stretch of a rank's timeline where none of its ops but waits run:
 * [t0, t1] s, `waiting` when a wait covered part of it, `next` the index
 * in the trace of the op that ended it (-1: the run's end). */
struct pld__idle_gap {
    int rank;
    double t0, t1;
    int waiting;
    long next;
};
/* Every rank's idle gaps over [0, end] s, rank by rank and in time order
 * (idle_gaps.c): the holes between the spans of its ops other than waits,
 * before its first and after its last; holes of 1 ns or less are not gaps
 * (the JSON trace's rounding).  0, or -1 when out of memory; free
 * *gaps. */
int pld__idle_gaps(const struct pld__trace *t, int P, double end, struct pld__idle_gap **gaps,
                   size_t *n);
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
/* One link's counters over the run. */
struct pld__summary_link {
    const char *name; /* the trace's (pld__trace_link) */
    double bw;        /* B/s */
    double bytes;     /* routed over it */
    double busy;      /* s: the time at least one transfer's bytes were flowing on it */
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
    struct pld__summary_link *links; /* by the backend's link number; bytes 0: not crossed */
    size_t nlinks;
    int has_path; /* the trace had events */
    double start; /* s: where the critical path starts */
    int hops, nevents;
    double by_kind[5];             /* s of the path per kind, as pld__kind_names */
    struct pld__summary_seg *path; /* last event first */
    size_t npath, cappath;
};
/* The names of enum pld__kind, as the summary prints them. */
extern const char *const pld__kind_names[5];
/* One transfer's bytes on one link: when they flowed, and how many. */
struct pld__link_flow {
    double t0, t1, bytes;
};
/* Every link's flows, link by link: flow[first[id] .. first[id + 1]). */
struct pld__link_flows {
    size_t nlinks, *first;
    struct pld__link_flow *flow;
};
/* Fills f from the trace's transfers (summary_links.c): 0, or -1 when out
 * of memory; free with pld__link_flows_free. */
int pld__link_flows(const struct pld__trace *t, struct pld__link_flows *f);
void pld__link_flows_free(struct pld__link_flows *f);
/* The per-link counters of S from the trace's transfers (summary_links.c):
 * 0, or -1 when out of memory. */
int pld__summary_links(struct pld__summary *S, const struct pld__trace *t);
/* Fills S (0) or returns -1 when out of memory; free with pld__summary_free. */
int pld__summary_compute(struct pld__summary *S, const struct pld__run *R,
                         const struct pld__trace *t);
void pld__summary_free(struct pld__summary *S);
/* Writes the summary as JSON (docs/summary.schema.json) to `out`; 0 or -1. */
int pld__write_summary_json(FILE *out, const struct pld__run *R, const struct pld__trace *t);

/* The file name without its directories. */
const char *pld__base_name(const char *path);

#endif
