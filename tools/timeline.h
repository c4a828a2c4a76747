/* timeline.h: pldsim-timeline's readers and its report. */
#ifndef PLDSIM_TOOLS_TIMELINE_H
#define PLDSIM_TOOLS_TIMELINE_H

#include "../src/observe/trace.h"

#include <stdio.h>

/* Whether `in` holds a JSON trace (its first byte is '{', as pldsim
 * writes it); the stream is left at its start. */
int timeline_is_json(FILE *in);

/* Reads the Perfetto JSON trace pldsim writes (--trace FILE.json) from
 * `in`: the ranks' and the host's ops into t (their op names in
 * pld__ops, no call sites), P and the platform into R, and the links'
 * throughput into *links, the most loaded (bytes / bandwidth) first (*nlinks of them; none on a
 * backend without links).  Reads one event a line, as pldsim writes them,
 * so that a trace of millions of events is never held as one document.
 * 0, or 2 after one line on stderr naming path:line and what was
 * expected. */
int timeline_read_json(FILE *in, const char *path, struct pld__trace *t, struct pld__run *R,
                       struct pld__link_series **links, size_t *nlinks);

/* Frees what timeline_read_json allocated for the links. */
void timeline_free_links(struct pld__link_series *links, size_t nlinks);

/* Orders the links by their load within [from, to] s, bytes over
 * bandwidth, the most loaded first (ties by name).  Returns how many
 * carried bytes in the window (they come first), or -1 when out of
 * memory. */
long timeline_rank_links(struct pld__link_series *links, size_t nlinks, double from, double to);

/* Prints the links view's report on `out` for the window [from, to] s of
 * a run that ends at `end` s (the whole run: the header's exact totals; a
 * window: the counters' part in it): the `nlinks` first links (their
 * bandwidth, bytes, busy time, time at full rate and utilisation) out of
 * the `total_links` that carried bytes (in the window), and, when `gaps`, each rank's idle gaps in
 * the window (how many, how long in all, the longest and what ended it).  0, or -1 when out of
 * memory. */
int timeline_report(FILE *out, const struct pld__run *R, const struct pld__trace *t, double end,
                    double from, double to, const struct pld__link_series *links, size_t nlinks,
                    size_t total_links, int gaps);

#endif
