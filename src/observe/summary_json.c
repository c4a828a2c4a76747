/* summary_json.c: the run summary as JSON (--summary=json, --summary-json
 * FILE), schema "pldsim-summary/1" in docs/summary.schema.json.  The same
 * numbers as the text summary (summary.c computes them once), written with
 * jansson so that every string (platform path, window names, file names)
 * is escaped by a library rather than by hand.  Times are in microseconds
 * (keys end in _us), bytes in bytes, bandwidths in GB/s. */
#include "internal.h"
#include "backend.h"
#include "escape.h"
#include "trace.h"
#include "units.h"
#include "observe.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *str(const char *s)
{
    json_t *j = s ? pld__json_string(s) : NULL;
    return j ? j : json_null();
}

/* The names of the links of the route from -> to, in order; an empty
 * array when the backend named none. */
static json_t *route_links(const struct pld__trace *t, int from, int to)
{
    json_t *names = json_array();
    uint64_t *v = pld__ptrmap_find(&t->route_of, ((uintptr_t)from << 32 | (uintptr_t)to) + 1);
    if (v && *v) {
        const struct pld__trace_route *r = &t->routes[*v - 1];
        for (int k = 0; k < r->nlinks; k++)
            json_array_append_new(names, str(t->links[r->ids[k]].name));
    }
    return names;
}

/* The links that carried bytes: bytes, busy time, and the fractions of
 * the run they were busy and of their capacity they used. */
static json_t *links_json(const struct pld__summary *S)
{
    json_t *links = json_array();
    for (size_t id = 0; id < S->nlinks; id++) {
        const struct pld__summary_link *l = &S->links[id];
        if (l->bytes <= 0)
            continue;
        int timed = S->end > 0;
        json_array_append_new(
            links,
            json_pack("{s:o, s:o, s:f, s:f, s:o, s:o}", "name", str(l->name), "bandwidth_GBps",
                      l->bw > 0 ? json_real(l->bw / 1e9) : json_null(), "bytes", l->bytes,
                      "busy_us", l->busy * 1e6, "busy_fraction",
                      timed ? json_real(l->busy / S->end) : json_null(), "utilisation",
                      timed && l->bw > 0 ? json_real(l->bytes / (l->bw * S->end)) : json_null()));
    }
    return links;
}

/* How far the run's time can be trusted (trust.c): the ops' time by the
 * model's label of their kind; null where times are the machine's. */
static json_t *trust_json(const struct pld__run *R)
{
    if (!R->be || !(R->be->caps & PLD_CAP_TIMED))
        return json_null();
    double by_label[PLD__NTRUST], priced = pld__trust_shares(R, by_label);
    json_t *labels = json_object(), *kinds = json_array();
    for (int l = PLD__NTRUST; l-- > 0;)
        json_object_set_new(labels, pld__trust_names[l], json_real(by_label[l] * 1e6));
    for (int k = 0; k < PLD__TRUST_KINDS; k++) {
        if (R->trust_label[k] < 0)
            continue;
        int waits = k == PLD__TRUST_WAIT; /* their time is what they wait for */
        json_array_append_new(
            kinds,
            json_pack("{s:s, s:s, s:f, s:o}", "kind", pld__trust_kind_names[k], "label",
                      pld__trust_names[(int)R->trust_label[k]], "op_time_us",
                      R->trust_op_s[k] * 1e6, "share",
                      waits || !(priced > 0) ? json_null() : json_real(R->trust_op_s[k] / priced)));
    }
    double guess = priced > 0 ? by_label[PLD__GUESS] / priced : 0;
    return json_pack("{s:f, s:o, s:f, s:b, s:o}", "op_time_us", priced * 1e6, "by_label_us", labels,
                     "guess_share", guess, "mostly_guesses", guess > 0.5, "kinds", kinds);
}

int pld__write_summary_json(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    struct pld__summary S;
    if (pld__summary_compute(&S, R, t))
        return -1;
    const pld_config *cfg = R->cfg;
    int P = R->P;
    json_t *ranks = json_array(), *routes = json_array(), *path = json_null();
    double tot_busy = 0, tot_wait = 0, wall = 0;
    int ndispatch = 0;
    for (int r = 0; r < P; r++) {
        const struct pld__rank *rk = &R->ranks[r];
        double idle = S.end - S.busy[r] - S.wait[r];
        tot_busy += S.busy[r], tot_wait += S.wait[r];
        json_t *spans = json_array();
        for (int i = 0; i < rk->nspans; i++)
            json_array_append_new(
                spans, json_pack("{s:o, s:f, s:f, s:f}", "function", str(rk->spans[i].fn),
                                 "start_us", rk->spans[i].t0 * 1e6, "end_us", rk->spans[i].t1 * 1e6,
                                 "device_wall_us", (rk->spans[i].t1 - rk->spans[i].t0) * 1e6));
        double w = pld__device_wall(rk);
        if (w > wall)
            wall = w;
        ndispatch += rk->nspans;
        json_array_append_new(ranks, json_pack("{s:i, s:f, s:f, s:f, s:I, s:I, s:f, s:o}", "rank",
                                               r, "busy_us", S.busy[r] * 1e6, "wait_us",
                                               S.wait[r] * 1e6, "idle_us", idle * 1e6, "sent_bytes",
                                               (json_int_t)rk->bytes_sent, "received_bytes",
                                               (json_int_t)rk->bytes_received, "device_wall_us",
                                               w * 1e6, "dispatches", spans));
    }
    double tot_bytes = 0;
    for (size_t k = 0; k < S.nroutes; k++) {
        const struct pld__summary_route *rt = &S.routes[k];
        tot_bytes += rt->bytes;
        json_array_append_new(
            routes, json_pack("{s:i, s:i, s:f, s:f, s:o, s:o, s:o}", "from", rt->from, "to", rt->to,
                              "bytes", rt->bytes, "peak_GBps", rt->peak / 1e9, "bandwidth_GBps",
                              rt->bw > 0 ? json_real(rt->bw / 1e9) : json_null(), "peak_util",
                              rt->bw > 0 ? json_real(rt->peak / rt->bw) : json_null(), "links",
                              route_links(t, rt->from, rt->to)));
    }
    if (S.has_path) {
        json_t *by_kind = json_object(), *segs = json_array();
        for (int k = 0; k < 5; k++)
            json_object_set_new(by_kind, pld__kind_names[k], json_real(S.by_kind[k] * 1e6));
        /* earliest first, as a reader follows it */
        for (size_t i = S.npath; i-- > 0;) {
            const struct pld__event *e = S.path[i].e;
            json_t *seg = json_pack("{s:i, s:o, s:s, s:f, s:f, s:f, s:o, s:o}", "rank", e->rank,
                                    "peer", e->peer >= 0 ? json_integer(e->peer) : json_null(),
                                    "kind", pld__kind_names[pld__ops[e->id].kind], "start_us",
                                    e->t0 * 1e6, "end_us", e->t1 * 1e6, "on_path_from_us",
                                    S.path[i].from * 1e6, "file", str(e->file), "line",
                                    e->file && e->line > 0 ? json_integer(e->line) : json_null());
            json_object_set_new(seg, "op", str(e->op));
            json_array_append_new(segs, seg);
        }
        path = json_pack("{s:f, s:f, s:f, s:i, s:i, s:o, s:o}", "start_us", S.start * 1e6, "end_us",
                         S.end * 1e6, "length_us", (S.end - S.start) * 1e6, "events", S.nevents,
                         "hops", S.hops, "by_kind_us", by_kind, "segments", segs);
    }
    json_t *doc = json_pack(
        "{s:s, s:{s:s, s:o, s:i, s:o, s:o, s:o, s:f, s:f}, s:o, s:{s:f, s:f, s:i}, s:o, s:o, "
        "s:{s:f, "
        "s:f, s:f, s:f, s:I, s:I}, s:o}",
        "schema", "pldsim-summary/1", "run", "pldsim_version", pld_version(), "backend",
        str(R->be ? R->be->name : NULL), "P", P, "platform", str(R->platform_desc),
        "platform_option", str(cfg->platform), "topology", str(cfg->topology), "end_time_us",
        S.end * 1e6, "device_wall_us", wall * 1e6, "ranks", ranks, "host", "busy_us",
        S.busy[P] * 1e6, "idle_us", (S.end - S.busy[P]) * 1e6, "dispatches", ndispatch, "routes",
        routes, "links", links_json(&S), "totals", "busy_us", tot_busy * 1e6, "wait_us",
        tot_wait * 1e6, "idle_us", (P * S.end - tot_busy - tot_wait) * 1e6, "route_bytes",
        tot_bytes, "bytes_moved", (json_int_t)R->bytes_moved, "transfers", (json_int_t)R->transfers,
        "critical_path", path);
    pld__summary_free(&S);
    if (!doc)
        return -1;
    json_object_set_new(doc, "trust", trust_json(R));
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    return rc ? -1 : 0;
}
