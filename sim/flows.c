/* flows.c: the SimGrid backend's flows, each either solo or a SimGrid comm.
 *
 * Why: a SimGrid comm is most of what a transfer costs the simulator.  Each
 * one is two objects, a variable of the max-min system, a place in the
 * network model's heap, and a place in the list of detached comms that
 * every comm's end walks whole (docs/performance.md).  With the ring
 * allreduce at P = 512, SimGrid alone took 4.7 s making its comms and
 * 1.5 s waking each rank at the time its comm ends instead.
 *
 * What stays exact: a flow that has its route to itself, alone on every
 * link of it, ends when CM02 would end it: after the route's latency, its
 * bytes at the share that SimGrid's max-min solver gives a lone flow (the
 * bottleneck bandwidth, computed as the solver computes it, rounding
 * included).  Such a flow is "solo": no SimGrid activity, a timer at its
 * end that wakes its actor.  A flow that starts on a link where another
 * flow is live is a SimGrid comm ("real"), and so are the solo flows it
 * would share bandwidth with: each goes on as a comm from where it is, with
 * the bytes and the latency it has left (a latency-factor callback gives
 * the comm that latency; shim.cpp).  From then on SimGrid shares the links
 * as it would have, so the times agree with an all-comm run to rounding
 * and half a byte.  Decisions are made in maestro, at the flow's start (a
 * timer), so they see every flow that starts before.
 *
 * Only under CM02 as pldsim sets it up, on a generated platform: another
 * network model, a factor, cross-traffic or the TCP window, and link
 * profiles of a platform file change what a lone flow takes, so there
 * every flow is a comm.  PLD_SOLO_FLOWS=off makes every flow a comm too. */
#include "engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLOW_PENDING, FLOW_SOLO, FLOW_REAL, FLOW_DONE };

/* What each link carries: its live flows (solo or real), and the solo one
 * among them, which the next flow on it may have to turn into a comm. */
struct sim_link {
    int live;
    struct sim_flow *solo;
};

static void grow_links(int n)
{
    if (n <= pld__sim->nlinks)
        return;
    int cap = pld__sim->nlinks ? pld__sim->nlinks : 64;
    while (cap < n)
        cap *= 2;
    struct sim_link *l = realloc(pld__sim->links, (size_t)cap * sizeof *l);
    if (!l)
        pld__fail(PLD_ENOMEM, "pldsim", 0, "transfer", "out of memory for the links' flows");
    memset(l + pld__sim->nlinks, 0, (size_t)(cap - pld__sim->nlinks) * sizeof *l);
    pld__sim->links = l;
    pld__sim->nlinks = cap;
}

/* The rate SimGrid's max-min solver gives a lone CM02 flow on a route of
 * bottleneck `bw` and latency `lat`: the constraint's capacity over the
 * flow's usage (1 / its sharing penalty, the latency), over the penalty
 * again (kernel/lmm/maxmin.cpp), in that order so that it rounds alike. */
static double lone_share(double bw, double lat)
{
    double penalty = lat > 0 ? lat : 1.0;
    return bw / (1.0 / penalty) / penalty;
}

static void start_comm(struct sim_flow *f, double bytes, double lat_factor)
{
    pld__sim->flow_counts.comms++;
    f->comm =
        pld__sgx_comm_start(pld__sim->hosts[f->from], pld__sim->hosts[f->to], bytes, lat_factor);
    f->state = FLOW_REAL;
    sg_sem_release(f->wake);
}

static void solo_end(void *arg)
{
    struct sim_flow *f = arg;
    for (int i = 0; i < f->nlinks; i++) {
        struct sim_link *l = &pld__sim->links[f->links[i]];
        l->live--;
        l->solo = NULL;
    }
    f->timer = NULL;
    f->state = FLOW_DONE;
    sg_sem_release(f->wake);
}

/* Solo flow s meets a flow of route latency `lat` starting now.  If their
 * bytes would overlap, s goes on as a comm from where it is: the bytes it
 * has left (SimGrid's own sum, rounded to a byte) and the latency it has
 * left, none when it is past it.  None is a latency too short to move
 * SimGrid's clock, since at 0 CM02 would weigh its share by 1 instead of
 * by its route's latency (its sharing penalty). */
static void join(struct sim_flow *s, double lat)
{
    double now = simgrid_get_clock(), lat_end = s->start + s->lat;
    if (s->end <= now + lat)
        return; /* done before the newcomer moves a byte: no overlap */
    double left = s->bytes, factor = -1;
    if (now < lat_end)
        factor = (lat_end - now) / s->lat;
    else {
        left = s->bytes - s->share * (now - lat_end);
        if (s->lat > 0)
            factor = 1e-300 / s->lat;
    }
    if (left < 0.5)
        return; /* its last half byte: it ends as it is */
    pld__sgx_timer_cancel(s->timer);
    s->timer = NULL;
    pld__sim->flow_counts.joined++;
    for (int i = 0; i < s->nlinks; i++)
        pld__sim->links[s->links[i]].solo = NULL;
    start_comm(s, left, factor);
}

/* At the flow's start, in maestro. */
static void flow_start(void *arg)
{
    struct sim_flow *f = arg;
    int alone = pld__sim->solo_flows && !f->odd;
    f->timer = NULL;
    for (int i = 0; i < f->nlinks && alone; i++)
        alone = pld__sim->links[f->links[i]].live == 0;
    for (int i = 0; i < f->nlinks; i++) {
        struct sim_link *l = &pld__sim->links[f->links[i]];
        if (l->solo && !alone)
            join(l->solo, f->lat);
        l->live++;
        if (alone)
            l->solo = f;
    }
    if (!alone) {
        start_comm(f, f->bytes, -1);
        return;
    }
    f->state = FLOW_SOLO;
    pld__sim->flow_counts.solo++;
    f->end = f->start + f->lat + f->bytes / f->share;
    f->timer = pld__sgx_timer_set_arg(f->end, solo_end, f);
}

void pld__sim_flow(struct sim_flow *f, sg_sem_t *wake, int from, int to, double bytes, double start,
                   const struct route_memo *m)
{
    if (!*wake)
        *wake = sg_sem_init(0);
    f->from = from;
    f->to = to;
    /* a comm carries whole bytes: the same count either way */
    f->bytes = (double)(uint64_t)bytes;
    f->start = start;
    f->lat = m->lat;
    f->share = lone_share(m->bw, m->lat);
    f->odd = m->odd || m->shared > m->cap;
    f->nlinks = f->odd ? 0 : m->shared;
    if (f->nlinks) {
        f->links = f->nlinks <= (int)(sizeof f->few / sizeof f->few[0])
                       ? f->few
                       : malloc((size_t)f->nlinks * sizeof *f->links);
        if (!f->links)
            pld__fail(PLD_ENOMEM, "pldsim", 0, "transfer", "out of memory for a flow's route");
        memcpy(f->links, m->ids, (size_t)f->nlinks * sizeof *f->links);
        grow_links(m->max_id + 1);
    }
    f->wake = *wake;
    f->comm = NULL;
    f->state = FLOW_PENDING;
    /* decided at its start, in maestro, when every flow that starts
     * before it has started */
    f->timer = pld__sgx_timer_set_arg(start, flow_start, f);
    while (f->state != FLOW_DONE) {
        if (f->state == FLOW_REAL && f->comm) {
            void *c = f->comm;
            f->comm = NULL;
            pld__sgx_comm_wait(c);
            for (int i = 0; i < f->nlinks; i++)
                pld__sim->links[f->links[i]].live--;
            f->state = FLOW_DONE;
            break;
        }
        sg_sem_acquire(*wake);
    }
    if (f->links != f->few)
        free(f->links);
}

int pld__sim_solo_flows_mode(const struct pld__run_env *env)
{
    static const char *const changes[] = {"network/", "maxmin/", "surf/",
                                          "bmf/",     "host/",   "tracing"};
    const char *e = getenv("PLD_SOLO_FLOWS");
    int mode = SOLO_ON;
    if (e && !strcmp(e, "off"))
        return SOLO_OFF;
    if (e && !strcmp(e, "report"))
        mode = SOLO_REPORT;
    else if (e && *e && strcmp(e, "on"))
        return pld__config_error(PLD_EUSAGE, "PLD_SOLO_FLOWS=%s: expected on, off or report", e);
    if (env->cfg->network_model && strcmp(env->cfg->network_model, "CM02"))
        return SOLO_OFF;
    /* a setting of the network, its solver or its precision changes what a
     * lone flow takes; SimGrid's own trace would miss the solo flows */
    for (int i = 0; i < env->cfg->nsimgrid_cfg; i++)
        for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++)
            if (!strncmp(env->cfg->simgrid_cfg[i], changes[k], strlen(changes[k])))
                return mode == SOLO_REPORT ? SOLO_OFF_REPORT : SOLO_OFF;
    if (!pld__sim_lone_flows_exact(env->cfg))
        return mode == SOLO_REPORT ? SOLO_OFF_REPORT : SOLO_OFF;
    return mode;
}

void pld__sim_flows_report(void)
{
    const struct sim_flow_counts *n = &pld__sim->flow_counts;
    fprintf(stderr,
            "pldsim: %llu flows: %llu solo, %llu SimGrid comms (%llu of them solo flows that "
            "another joined)%s\n",
            (unsigned long long)(n->solo + n->comms - n->joined),
            (unsigned long long)(n->solo - n->joined), (unsigned long long)n->comms,
            (unsigned long long)n->joined,
            pld__sim->solo_flows ? "" : "; solo flows are off for this run");
}
