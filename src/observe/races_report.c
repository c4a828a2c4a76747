/* races_report.c: how the data-race detector (races.c) reports a racing
 * pair: once per pair of source lines, on one line that names both
 * accesses, the bytes and why nothing orders them.  A file of its own so
 * that races.c keeps the rules and stays within the layers' 600 lines. */
#include "races.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

static int reported(struct pld__racer *RC, const char *f1, int l1, const char *f2, int l2)
{
    for (int i = 0; i < RC->nseen; i++)
        if (((RC->seen[i].f1 == f1 && RC->seen[i].l1 == l1 && RC->seen[i].f2 == f2 &&
              RC->seen[i].l2 == l2) ||
             (RC->seen[i].f1 == f2 && RC->seen[i].l1 == l2 && RC->seen[i].f2 == f1 &&
              RC->seen[i].l2 == l1)))
            return 1;
    if (RC->nseen == RC->capseen) {
        int cap = RC->capseen ? 2 * RC->capseen : 16;
        void *n = realloc(RC->seen, (size_t)cap * sizeof *RC->seen);
        if (!n)
            return 1;
        RC->seen = n;
        RC->capseen = cap;
    }
    RC->seen[RC->nseen].f1 = f1;
    RC->seen[RC->nseen].l1 = l1;
    RC->seen[RC->nseen].f2 = f2;
    RC->seen[RC->nseen++].l2 = l2;
    return 0;
}

/* An atomic write as a race report names it: "a Set to 3". */
static void update_shown(const struct rec *x, char *buf, size_t n)
{
    if (x->set)
        snprintf(buf, n, "a Set to %d", (int)x->value);
    else if (x->notify)
        snprintf(buf, n, "an AtomicAdd of %d", (int)x->value);
    else
        snprintf(buf, n, "an atomic add");
}

void pld__races_report(struct pld__racer *RC, const struct rec *old, const struct rec *now,
                       struct where w, int64_t lo, int64_t hi)
{
    /* Ranks run ahead of each other on their own clocks (sim/engine.c), so
     * the access found second may be the earlier one: the report names the
     * later one first, as it reads in model time. */
    if (now->t < old->t) {
        const struct rec *a = old;
        old = now;
        now = a;
    }
    if (reported(RC, old->file, old->line, now->file, now->line))
        return;
    RC->races++;
    /* both atomic: two updates of one cell whose order changes its value */
    int clash = old->atomic && now->atomic;
    if (RC->on_race) {
        RC->on_race(RC->on_race_ctx, old->file, old->line, now->file, now->line);
        return;
    }
    char what[160];
    int flying = old->inflight || now->inflight;
    const pl_tensor *h = w.b ? NULL : pld__host_tensor_at((const void *)(uintptr_t)lo);
    if (w.b)
        snprintf(what, sizeof what, "window '%s' bytes [%lld, %lld) of rank %d's copy", w.b->name,
                 (long long)lo, (long long)hi, w.copy);
    else
        snprintf(what, sizeof what, "host tensor '%s' bytes [%lld, %lld)", h ? h->name : "?",
                 (long long)(h ? lo - (int64_t)(uintptr_t)h->data : lo),
                 (long long)(h ? hi - (int64_t)(uintptr_t)h->data : hi));
    /* two updates of one cell say what each wrote: "(a Set to 1)" */
    char nowop[96], oldkind[48] = "";
    if (clash)
        update_shown(old, oldkind, sizeof oldkind);
    snprintf(nowop, sizeof nowop, "%s", pld__op_shown(now->op));
    if (clash) {
        char u[48];
        update_shown(now, u, sizeof u);
        snprintf(nowop, sizeof nowop, "%s (%s)", pld__op_shown(now->op), u);
    }
    /* two cores of one rank: which cores (each has a program order) */
    char nowcore[24] = "", oldcore[24] = "";
    if (old->rank == now->rank && old->tid != now->tid && !flying) {
        snprintf(nowcore, sizeof nowcore, " core %d", RC->core_of[now->tid]);
        snprintf(oldcore, sizeof oldcore, " core %d", RC->core_of[old->tid]);
    }
    fflush(stdout);
    fprintf(stderr,
            "%s:%d: rank %d%s: race: %s %s %s%s at t=%.3f us, unordered with rank %d%s's %s (%s%s) "
            "at %s:%d at t=%.3f us: %s%s\n",
            now->file, now->line, now->rank, nowcore, nowop,
            now->inflight ? (now->write ? "writes" : "reads")
            : now->write  ? "wrote"
                          : "read",
            what, now->inflight ? " (in flight from here)" : "", now->t * 1e6, old->rank, oldcore,
            pld__op_shown(old->op),
            clash        ? oldkind
            : old->write ? "a write"
                         : "a read",
            old->inflight ? " in flight" : "", old->file, old->line, old->t * 1e6,
            flying ? "a put_async reads its source and writes its destination until its event is "
                     "waited"
                   : "no notify->wait orders them",
            clash ? ", and the value the cell is left with depends on which lands last" : "");
}
