/* cost.c: the device cost model.  Every op's simulated time is charged here
 * (or, for transfers, by the backend's interconnect), from the numbers of the
 * device model (see docs/models.md for each formula and its units). */
#include "backend.h"

#include <string.h>

static struct pld__device *self_dev(void)
{
    int self = pld__self();
    return self >= 0 ? &pld__R->ranks[self].dev : &pld__R->host_dev;
}

/* One GM access: a fixed latency plus the bytes at HBM bandwidth.  A
 * straggler (speed_factor > 1) takes proportionally longer for all compute. */
void pld__charge_gm(size_t bytes)
{
    struct pld__device *d = self_dev();
    pld__R->be->elapse((d->hbm_lat + (double)bytes / d->hbm_bw) * d->speed_factor);
}

void pld__charge_vector(int64_t elems)
{
    struct pld__device *d = self_dev();
    pld__R->be->elapse((double)elems / d->vector_rate * d->speed_factor);
}

void pld__charge_launch(void)
{
    struct pld__device *d = self_dev();
    pld__R->be->elapse(d->launch_lat * d->speed_factor);
}

void pld__charge_signal(void)
{
    pld__R->be->elapse(self_dev()->signal_lat);
}

void pld__charge_poll(void)
{
    pld__R->be->elapse(self_dev()->poll_lat);
}

void pld__charge_dispatch(void)
{
    pld__R->be->elapse(pld__R->host_dev.dispatch_lat);
}

void pld__move(const char *file, int line, const char *op, int from, int to, size_t bytes)
{
    struct pld__run *R = pld__R;
    if (from == to) {
        /* A copy within one device's GM: read and write at HBM speed. */
        pld__charge_gm(2 * bytes);
        return;
    }
    double t0 = pld__now();
    if (R->be->transfer(from, to, (double)bytes) != 0)
        pld__fail(PLD_EPLATFORM, file, line, op,
                  "platform %s has no route from dev%d (rank %d) to dev%d (rank %d)",
                  R->platform_desc, R->ranks[from].device_id, from, R->ranks[to].device_id, to);
    pld__trace_xfer(t0, from, to, (double)bytes, strcmp(op, "pld_system_notify") == 0);
    /* ranks may be threads (threads backend): count atomically */
    __atomic_fetch_add(&R->bytes_moved, (uint64_t)bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->transfers, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[from].bytes_sent, (uint64_t)bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[to].bytes_received, (uint64_t)bytes, __ATOMIC_RELAXED);
}
