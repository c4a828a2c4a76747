/* trace_json.c: the Chrome/Perfetto trace (ts and dur in microseconds).
 *  - pid r is device r ("dev r"); the host is pid P; routes are pid P+1.
 *  - Each device has one track (tid) per engine: 1 kernel work, 2 data
 *    movement (RMA, put/get), 3 signals, 4 incoming data; ops of one
 *    engine never overlap, so slices nest cleanly on every track.
 *  - Each transfer is also a slice on its route's track (one track per
 *    direction and initiator), with a counter of the route's throughput.
 *  - pid P+2, "links": a counter per link of the platform that carried
 *    bytes, its throughput in GB/s while the transfers' bytes flow on it
 *    (summary_links.c), on the simulator.
 *  - Flow arrows: from each notify to the wait it released, and from the
 *    start of each data transfer to where its data lands.
 * Names are short and args are left out so that an event stays well under
 * 100 bytes.
 *
 * Why fprintf and not jansson here (issue 19, item 7): the events' text is
 * fixed (op names, numbers); the one string a user controls, the platform,
 * goes through jansson's encoder (pld__escape_json).  A trace can hold
 * millions of events: pldsim-perf all_reduce_perf -g 16 -b 1M -e 1M -n 20
 * writes 9.6 M events (756 MB); wall time, median of 3, 12.98 s without a
 * trace and 19.42 s with it, so ~6.4 s here.  Building each event as a
 * json_pack object and json_dumpf-ing it costs ~5.5x this writer's time
 * (2 M events to /dev/null: 1.4 s fprintf, 7.0-8.1 s jansson), and
 * jansson's "%.17g"-style reals would change every golden trace's "%.3f"
 * numbers byte for byte. */
#include "escape.h"
#include "trace.h"
#include "observe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rate_step {
    double t, delta;
};

static int cmp_step(const void *pa, const void *pb)
{
    const struct rate_step *a = pa, *b = pb;
    return a->t < b->t ? -1 : a->t > b->t;
}

static const struct pld__xfer *order_xf; /* for cmp_route (qsort has no context) */

static int cmp_route(const void *pa, const void *pb)
{
    const struct pld__xfer *a = &order_xf[*(const size_t *)pa], *b = &order_xf[*(const size_t *)pb];
    if (a->from != b->from)
        return a->from - b->from;
    if (a->to != b->to)
        return a->to - b->to;
    return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* Microseconds rounded to the nanosecond.  A slice's duration is the
 * difference of its rounded ends, so that slices that touch still touch
 * (rounding them separately could make them overlap by 1 ns). */
static double us(double s)
{
    return floor(s * 1e9 + 0.5) / 1e3;
}

static void comma(FILE *out, int *first)
{
    if (!*first)
        fputs(",\n", out);
    *first = 0;
}

/* One throughput counter (GB/s) per link that carried bytes, under pid
 * `pid`; `steps` holds 2 * t->nx + 1 of them. */
static void write_link_counters(FILE *out, const struct pld__trace *t, int pid,
                                struct rate_step *steps, int *first)
{
    struct pld__link_flows f;
    if (!steps || t->nlinks == 0 || pld__link_flows(t, &f) != 0)
        return;
    comma(out, first);
    fprintf(out,
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"links\"}}",
            pid);
    for (size_t id = 0; id < f.nlinks; id++) {
        size_t ns = 0;
        for (size_t j = f.first[id]; j < f.first[id + 1]; j++) {
            const struct pld__link_flow *v = &f.flow[j];
            if (v->t1 <= v->t0)
                continue;
            double rate = v->bytes / (v->t1 - v->t0) / 1e9;
            steps[ns++] = (struct rate_step){v->t0, rate};
            steps[ns++] = (struct rate_step){v->t1, -rate};
        }
        if (ns == 0)
            continue;
        qsort(steps, ns, sizeof *steps, cmp_step);
        char *name = pld__escape_json(t->links[id].name);
        double cur = 0;
        for (size_t i = 0; i < ns; i++) {
            cur += steps[i].delta;
            if (i + 1 < ns && steps[i + 1].t == steps[i].t)
                continue;
            comma(out, first);
            fprintf(
                out,
                "{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"%s GB/s\",\"args\":{\"v\":%.3f}}",
                pid, us(steps[i].t), name ? name : "?", cur < 1e-9 ? 0.0 : cur);
        }
        free(name);
    }
    pld__link_flows_free(&f);
}

/* The links' totals, in the header's otherData (Perfetto keeps them as
 * metadata): a counter track holds a link's throughput but not its
 * bandwidth, which pldsim-timeline's links view needs. */
static void write_link_totals(FILE *out, const struct pld__trace *t)
{
    struct pld__summary S;
    memset(&S, 0, sizeof S);
    if (t->nlinks == 0 || pld__summary_links(&S, t) != 0)
        return;
    fputs(",\"links\":[", out);
    int first = 1;
    for (size_t id = 0; id < S.nlinks; id++) {
        const struct pld__summary_link *l = &S.links[id];
        if (l->bytes <= 0 || !l->name)
            continue;
        char *name = pld__escape_json(l->name);
        fprintf(out,
                "%s{\"name\":\"%s\",\"bandwidth_GBps\":%.17g,\"bytes\":%.17g,\"busy_us\":%.17g}",
                first ? "" : ",", name ? name : "?", l->bw / 1e9, l->bytes, l->busy * 1e6);
        free(name);
        first = 0;
    }
    fputs("]", out);
    free(S.links);
}

int pld__write_json(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    int P = R->P, first = 1, host = P, routes = P + 1;
    long flow = 0;
    char *platform = pld__escape_json(R->platform_desc);
    fprintf(out,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"pldsim\",\"platform\":"
            "\"%s\",\"P\":%d",
            platform ? platform : "", P);
    free(platform);
    write_link_totals(out, t);
    fputs("},\n\"traceEvents\":[\n", out);
    static const char *const engines[] = {"", "kernel", "dma", "signals", "incoming"};
    for (int r = 0; r < P; r++) {
        comma(out, &first);
        fprintf(
            out,
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"dev %d\"}}", r,
            r);
        for (int k = 1; k <= 4; k++) {
            comma(out, &first);
            fprintf(out,
                    "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{"
                    "\"name\":\"%s\"}}",
                    r, k, engines[k]);
        }
    }
    comma(out, &first);
    fprintf(out, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"host\"}}",
            host);
    comma(out, &first);
    fprintf(out,
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"routes\"}}",
            routes);

    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *e = &t->ev[i];
        int eng = pld__kind_engine(pld__ops[e->id].kind), pid = e->rank >= 0 ? e->rank : host;
        int tid = eng == 3 ? 0 : eng + 1;
        char peer[16] = "";
        if (e->peer >= 0)
            snprintf(peer, sizeof peer, " r%d", e->peer);
        comma(out, &first);
        fprintf(out,
                "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s%s\"}",
                pid, tid, us(e->t0), us(e->t1) - us(e->t0), e->op, peer);
        if (e->cause >= 0) { /* notify -> the wait it released */
            const struct pld__event *n = &t->ev[e->cause];
            /* from the update's landing to the same moment in the wait, or
             * the wait's start when it began later: never before the notify */
            double from = n->t1, to = e->t0 > from ? e->t0 : from;
            if (to > e->t1)
                to = e->t1;
            flow++;
            comma(out, &first);
            fprintf(out,
                    "{\"ph\":\"s\",\"id\":%ld,\"pid\":%d,\"tid\":3,\"ts\":%.3f,\"name\":\"signal\","
                    "\"cat\":\"flow\"}",
                    flow, n->rank, us(from));
            comma(out, &first);
            fprintf(out,
                    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%ld,\"pid\":%d,\"tid\":3,\"ts\":%.3f,"
                    "\"name\":\"signal\",\"cat\":\"flow\"}",
                    flow, e->rank, us(to));
        }
    }

    /* transfers: the route tracks, where data lands, and the arrows */
    struct rate_step *steps = malloc((2 * t->nx + 1) * sizeof *steps);
    for (size_t i = 0; i < t->nx; i++) {
        const struct pld__xfer *x = &t->xf[i];
        int tid = (x->from * P + x->to) * 2 + (x->initiator == x->from ? 0 : 1);
        comma(out, &first);
        fprintf(out,
                "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s\"}",
                routes, tid, us(x->t0), us(x->t1) - us(x->t0), x->is_signal ? "signal" : "data");
        if (x->is_signal)
            continue;
        flow++;
        comma(out, &first);
        fprintf(out,
                "{\"ph\":\"s\",\"id\":%ld,\"pid\":%d,\"tid\":2,\"ts\":%.3f,\"name\":\"data\","
                "\"cat\":\"flow\"}",
                flow, x->initiator, us(x->t0));
        comma(out, &first);
        fprintf(out,
                "{\"ph\":\"X\",\"pid\":%d,\"tid\":4,\"ts\":%.3f,\"dur\":0,\"name\":\"lands r%d\"}",
                x->to, us(x->t1), x->from);
        comma(out, &first);
        fprintf(out,
                "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%ld,\"pid\":%d,\"tid\":4,\"ts\":%.3f,\"name\":"
                "\"data\",\"cat\":\"flow\"}",
                flow, x->to, us(x->t1));
    }
    /* one throughput counter per directed route (GB/s): group the
     * transfers by route, then sweep each route's starts and ends */
    size_t *idx = malloc((t->nx + 1) * sizeof *idx);
    for (size_t i = 0; idx && i < t->nx; i++)
        idx[i] = i;
    order_xf = t->xf;
    if (idx)
        qsort(idx, t->nx, sizeof *idx, cmp_route);
    for (size_t g = 0; steps && idx && g < t->nx;) {
        int a = t->xf[idx[g]].from, b = t->xf[idx[g]].to;
        size_t ns = 0, h = g;
        for (; h < t->nx && t->xf[idx[h]].from == a && t->xf[idx[h]].to == b; h++) {
            const struct pld__xfer *x = &t->xf[idx[h]];
            if (x->t1 <= x->t0)
                continue;
            double rate = x->bytes / (x->t1 - x->t0) / 1e9;
            steps[ns++] = (struct rate_step){x->t0, rate};
            steps[ns++] = (struct rate_step){x->t1, -rate};
        }
        g = h;
        qsort(steps, ns, sizeof *steps, cmp_step);
        double cur = 0;
        for (size_t i = 0; i < ns; i++) {
            cur += steps[i].delta;
            if (i + 1 < ns && steps[i + 1].t == steps[i].t)
                continue;
            comma(out, &first);
            fprintf(out,
                    "{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"r%d->r%d "
                    "GB/s\",\"args\":{\"v\":%.3f}}",
                    routes, us(steps[i].t), a, b, cur < 1e-9 ? 0.0 : cur);
        }
    }
    free(idx);
    write_link_counters(out, t, P + 2, steps, &first);
    free(steps);
    fputs("\n]}\n", out);
    return ferror(out) ? -1 : 0;
}
