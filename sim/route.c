/* route.c: the SimGrid backend's routes, memoised per rank: the latency
 * and bandwidth from one device to another, which transfers (transfer.c)
 * and signals (waits.c) both price.  A file of its own, below both. */
#include "engine.h"

#include <stdlib.h>

/* The route from -> to, and its links, looked up once per pair and rank
 * while the rank keeps using it.  The memo is searched whole and refilled in turn: a
 * ring's three routes (to each neighbour, and from the left one) used to
 * share slots of a direct-mapped memo, and two of them then missed every
 * round (9 % of a ring allreduce at P = 256).  SimGrid aborts the process
 * on a transfer between hosts with no route, so that is found here first.
 * Returns 0, or PLD_EPLATFORM. */
const struct route_memo *pld__sim_route_links(struct sim_rank *rk, int from, int to)
{
    enum { N = sizeof rk->memo / sizeof rk->memo[0] };
    for (int i = 0; i < N; i++)
        if (rk->memo[i].links && rk->memo[i].from == from && rk->memo[i].to == to)
            return &rk->memo[i];
    struct route_memo *m = &rk->memo[rk->memo_next];
    rk->memo_next = (rk->memo_next + 1) % N;
    m->from = from;
    m->to = to;
    for (;;) {
        m->links = pld__sgx_route(pld__sim->hosts[from], pld__sim->hosts[to], &m->lat, &m->bw,
                                  m->ids, m->cap, &m->odd, &m->shared);
        if (m->shared <= m->cap)
            break;
        int *ids = realloc(m->ids, (size_t)m->shared * sizeof *ids);
        if (!ids)
            pld__fail(PLD_ENOMEM, "pldsim", 0, "transfer", "out of memory for a route");
        m->ids = ids;
        m->cap = m->shared;
    }
    m->max_id = -1;
    for (int i = 0; i < m->shared; i++)
        if (m->ids[i] > m->max_id)
            m->max_id = m->ids[i];
    return m;
}

int pld__sim_route(struct sim_rank *rk, int from, int to, double *lat, double *bw)
{
    const struct route_memo *m = pld__sim_route_links(rk, from, to);
    *lat = m->lat;
    *bw = m->bw;
    return m->links > 0 ? 0 : PLD_EPLATFORM;
}
