/* async.c: the sessions and events of put_async (upstream's SDMA
 * asynchronous put), and the wait that drains an event.  The issue itself
 * is in rma.c with the other one-sided copies.
 *
 * For the race detector a put_async reads its source and writes its
 * destination for the whole flight: from the issue (rma.c) until its event
 * is waited here, nothing is ordered with those accesses, not even the
 * issuing rank's own (a store into the source, a second put_async into the
 * same region).  At the wait they land, and are recorded as the rank's
 * accesses at the wait: an access by the peer is ordered after the write
 * only through a notify that comes after the wait, as upstream requires. */
#include "internal.h"
#include "cost.h"
#include "observe.h"
#include "detect.h"
#include "backend.h"
#include "async.h"

#include <stdlib.h>

/* One issued put_async of the running kernel. */
struct pending {
    struct pld__async_put put;
    int session;
    int waited;
};

/* A rank's sessions and events, for the kernel with epoch `epoch`. */
struct pld__async {
    uint64_t epoch;
    int nsessions;
    struct pending *ev;
    int64_t nev, cap;
};

/* The running kernel's table: emptied when a new kernel first uses it. */
static struct pld__async *table(const char *file, int line, const char *op, struct pld__rank *rk)
{
    if (!rk->async && !(rk->async = calloc(1, sizeof *rk->async)))
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    struct pld__async *a = rk->async;
    if (a->epoch != rk->epoch) {
        a->epoch = rk->epoch;
        a->nsessions = 0;
        a->nev = 0;
    }
    return a;
}

pld_async_session pld__async_session(const char *file, int line, struct pld_async_session_kw kw)
{
    static const char op[] = "pld_system_async_session";
    struct pld__rank *rk = pld__op_rank(file, line, op);
    if (kw.sync_id < 0 || kw.sync_id > 7)
        pld__fail(PLD_EINVAL, file, line, op, ".sync_id is %lld; expected 0..7",
                  (long long)kw.sync_id);
    if (kw.block_bytes < 0)
        pld__fail(PLD_EINVAL, file, line, op, ".block_bytes is %lld; expected > 0, or 0 for 1 MiB",
                  (long long)kw.block_bytes);
    struct pld__async *a = table(file, line, op, rk);
    return (pld_async_session){.id = ++a->nsessions,
                               .rank = pld__self(),
                               .epoch = rk->epoch,
                               .sync_id = (int)kw.sync_id,
                               .block_bytes = kw.block_bytes ? kw.block_bytes : 1 << 20};
}

static void check_session(const char *file, int line, const char *op, struct pld__rank *rk,
                          const struct pld__async *a, pld_async_session s)
{
    if (s.id <= 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the session is not one (make it with pld_system_async_session)");
    if (s.rank != pld__self() || s.epoch != rk->epoch || s.id > a->nsessions)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the session was made in another kernel or on another rank; a session is "
                  "valid only in the kernel that made it");
}

void pld__async_check_session(const char *file, int line, const char *op, pld_async_session s)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    check_session(file, line, op, rk, table(file, line, op, rk), s);
}

pld_async_event pld__async_add(const char *file, int line, const char *op, pld_async_session s,
                               const struct pld__async_put *put)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    struct pld__async *a = table(file, line, op, rk);
    if (a->nev == a->cap) {
        int64_t cap = a->cap ? 2 * a->cap : 8;
        struct pending *ev = realloc(a->ev, (size_t)cap * sizeof *ev);
        if (!ev)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        a->ev = ev;
        a->cap = cap;
    }
    a->ev[a->nev++] = (struct pending){.put = *put, .session = s.id};
    return (pld_async_event){.id = a->nev, .session = s.id, .rank = pld__self()};
}

int pld__wait_async_event(const char *file, int line, pld_async_event e, pld_async_session s)
{
    static const char op[] = "pld_system_wait_async_event";
    struct pld__rank *rk = pld__op_rank(file, line, op);
    int me = pld__self();
    struct pld__async *a = table(file, line, op, rk);
    check_session(file, line, op, rk, a, s);
    if (e.id <= 0 || e.rank != me || e.id > a->nev)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the event is not one of this kernel's put_async events");
    struct pending *ev = &a->ev[e.id - 1];
    struct pld__async_put *p = &ev->put;
    if (ev->session != s.id || e.session != s.id)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the event belongs to session %d, not to session %d it is waited in", ev->session,
                  s.id);
    if (ev->waited)
        pld__fail(PLD_EINVAL, file, line, op,
                  "the event of the put_async at %s:%d was already waited", p->file, p->line);
    double t0 = pld__now();
    if (p->handle)
        pld__R->be->wait_write(p->handle, &p->c);
    p->handle = NULL;
    ev->waited = 1;
    pld__charge_poll();
    /* landed: its transfer counts, and its accesses end here, ordered as
     * this rank's at the wait */
    pld__observe(&(struct pld__observed){.op = PLD__OP_WAIT_ASYNC,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .landed = p,
                                         .peer = p->peer,
                                         .t = &p->dst,
                                         .elem_off = -1,
                                         .bytes = p->bytes,
                                         .value = PLD__MISSING});
    return 1;
}

void pld__async_kernel_exit(struct pld__rank *rk)
{
    struct pld__async *a = rk->async;
    if (!a || a->epoch != rk->epoch)
        return;
    for (int64_t i = 0; i < a->nev; i++)
        if (!a->ev[i].waited)
            pld__fail(PLD_EINVAL, a->ev[i].put.file, a->ev[i].put.line, "pld_tensor_put_async",
                      "kernel %s ends with this put_async in flight: wait for its event "
                      "(wait_async_event) before the kernel ends",
                      rk->kernel);
}

void pld__async_release(struct pld__rank *rk)
{
    if (rk->async) {
        free(rk->async->ev);
        free(rk->async);
        rk->async = NULL;
    }
}

void pld__async_free(struct pld__run *R)
{
    for (int r = 0; r < R->P; r++)
        pld__async_release(&R->ranks[r]);
}
