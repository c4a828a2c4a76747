/* trace.h: the run's event log and its writers (text, Perfetto JSON, SVG
 * timeline) and the run summary.  Private to libpld. */
#ifndef PLD_TRACE_H
#define PLD_TRACE_H

#include "internal.h"
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

/* Prints the run summary (per rank, per link, critical path) to `out`. */
void pld__print_summary(FILE *out, const struct pld__run *R, const struct pld__trace *t);

/* The file name without its directories. */
const char *pld__base_name(const char *path);

#endif
