/* route.c: the SimGrid backend's routes, memoised per rank: the latency
 * and bandwidth from one device to another, which transfers (transfer.c)
 * and signals (waits.c) both price.  A file of its own, below both. */
#include "engine.h"

/* The route from -> to, looked up once per pair and rank.  SimGrid aborts
 * the process on a transfer between hosts with no route, so that is found
 * here first.  Returns 0, or PLD_EPLATFORM. */
int pld__sim_route(struct sim_rank *rk, int from, int to, double *lat, double *bw)
{
    struct route_memo *m = &rk->memo[((unsigned)from * 31u + (unsigned)to) & 3u];
    if (m->links == 0 || m->from != from || m->to != to) {
        m->from = from;
        m->to = to;
        m->links = pld__sgx_route(pld__sim->hosts[from], pld__sim->hosts[to], &m->lat, &m->bw);
    }
    *lat = m->lat;
    *bw = m->bw;
    return m->links > 0 ? 0 : PLD_EPLATFORM;
}
