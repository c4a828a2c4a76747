/* deadlock.c: the report printed when every live rank is blocked in a wait
 * (or, with --wait-timeout, when one wait has blocked too long): one line
 * per blocked rank with its cell, and the wait-for graph that says whether
 * the ranks wait on each other in a cycle or on a rank that has finished. */
#include "internal.h"
#include "mem.h"
#include "detect.h"
#include "backend.h"
#include "ptrmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The run's: made by the first notify of a dense cell. */
struct pld__deadlock_state {
    /* cell -> the last rank that notified it, for the wait-for graph; a
     * sparse window keeps it beside its lines (pld__sparse_note) */
    struct pld__ptrmap notes;
};
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER; /* ranks may be threads */

void pld__deadlock_note(const struct pld__wbuf *b, const void *cell, int rank)
{
    if (b->sparse) { /* the simulator's: one actor at a time */
        *pld__sparse_note(cell) = (uint16_t)(rank + 1);
        return;
    }
    pthread_mutex_lock(&note_lock);
    struct pld__deadlock_state *d = pld__R->deadlock;
    if (!d)
        d = pld__R->deadlock = calloc(1, sizeof *d);
    /* out of memory: the report says less, the run goes on */
    uint64_t *v = d ? pld__ptrmap_put(&d->notes, (uintptr_t)cell, NULL) : NULL;
    if (v)
        *v = (uint64_t)rank;
    pthread_mutex_unlock(&note_lock);
}

/* The rank that last notified `cell` of `b`, or -1. */
static int last_notifier(const struct pld__run *R, const struct pld__wbuf *b, const void *cell)
{
    if (b->sparse)
        return (int)*pld__sparse_note(cell) - 1;
    const uint64_t *v = R->deadlock ? pld__ptrmap_find(&R->deadlock->notes, (uintptr_t)cell) : NULL;
    return v ? (int)*v : -1;
}

void pld__deadlock_free(struct pld__run *R)
{
    if (!R->deadlock)
        return;
    pld__ptrmap_free(&R->deadlock->notes);
    free(R->deadlock);
    R->deadlock = NULL;
}

int pld__deadlock_wait_line(const struct pld__run *R, int rank, const char *what,
                            const struct pld__wait_info *w)
{
    char off[64];
    int n = last_notifier(R, w->buf, w->cellp);
    fprintf(stderr, "%s:%d: rank %d: %s %s%s %s %lld; the cell holds %d", w->file, w->line, rank,
            what, w->buf->name, pld__shape_str(w->offsets, off, sizeof off),
            w->cmp == PLD_WAIT_EQ ? "==" : ">=", (long long)w->expected,
            /* on threads a notifier may be writing it now */
            __atomic_load_n(w->cellp, __ATOMIC_RELAXED));
    if (w->collective)
        fprintf(stderr, " (inside %s)", pld__op_shown(w->collective));
    if (n < 0 && !R->notifiers_unknown)
        fprintf(stderr, "; no rank has notified it yet");
    else if (n >= 0)
        fprintf(stderr, "; last notified by rank %d, which %s", n,
                __atomic_load_n(&R->ranks[n].wait.active, __ATOMIC_ACQUIRE) || R->graph_stuck(R, n)
                    ? "is blocked too"
                    : "has finished or is idle");
    fputc('\n', stderr);
    return n;
}

void pld__report_deadlock(struct pld__run *R)
{
    int blocked = 0, in_graphs = 0, P = R->P;
    if (R->deadlocked)
        return;
    R->deadlocked = 1;
    /* A rank running a task graph is blocked when its graph cannot finish:
     * its cores idle with deferred conditions that do not hold, or held by
     * waits.  Which core's wait the rank holds is the backend's choice, so
     * such a rank is reported from its graph, which keeps every task's. */
    int *stuck = calloc((size_t)P, sizeof *stuck);
    for (int r = 0; r < P; r++) {
        int g = R->graph_stuck(R, r);
        /* read once: on threads another rank may enter or leave a wait now */
        int a = __atomic_load_n(&R->ranks[r].wait.active, __ATOMIC_ACQUIRE);
        if (stuck)
            stuck[r] = g ? 2 : a ? 1 : 0;
        blocked += g || a;
        in_graphs += g;
    }
    char where[128];
    snprintf(where, sizeof where, "in %s%s", pld__op_shown("pld_system_wait"),
             in_graphs ? " or in a task graph that cannot finish" : "");
    fflush(stdout);
    if (R->timed_out)
        fprintf(stderr,
                "pldsim: wait timeout at t=%.3f us: a wait blocked longer than --wait-timeout "
                "%.3f us; %d rank%s blocked %s\n",
                pld__now() * 1e6, (R->cfg->wait_timeout > 0 ? R->cfg->wait_timeout : 60.0) * 1e6,
                blocked, blocked == 1 ? "" : "s", where);
    else
        fprintf(stderr,
                "pldsim: deadlock at t=%.3f us: %d rank%s blocked %s with no notify that could "
                "release %s\n",
                pld__now() * 1e6, blocked, blocked == 1 ? "" : "s", where,
                blocked == 1 ? "it" : "them");
    int *next = malloc((size_t)P * sizeof *next);
    for (int r = 0; r < P; r++) {
        int n = -1;
        if (stuck && stuck[r] == 2)
            n = R->graph_report(R, r);
        else if (__atomic_load_n(&R->ranks[r].wait.active, __ATOMIC_ACQUIRE)) {
            n = pld__deadlock_wait_line(R, r, "waits for", &R->ranks[r].wait);
            (void)R->graph_report(R, r);
        }
        if (next)
            next[r] = n;
    }
    /* the wait-for graph: follow each blocked rank's edge to the rank that
     * last notified its cell, and name what the chain ends in */
    for (int r = 0; next && stuck && r < P; r++) {
        if (stuck[r] == 0 || stuck[r] == 3 || next[r] < 0)
            continue; /* not blocked, already in a reported cycle, or no known notifier */
        int slow = r, steps = 0;
        char chain[512];
        int len = snprintf(chain, sizeof chain, "rank %d", r);
        while (steps < P && next[slow] >= 0 && stuck[next[slow]]) {
            slow = next[slow];
            steps++;
            if (len < (int)sizeof chain - 32)
                len += snprintf(chain + len, sizeof chain - (size_t)len, " -> rank %d", slow);
            if (slow == r)
                break;
        }
        if (slow == r && steps > 0) {
            fprintf(stderr, "pldsim: wait-for cycle: %s (each waits on the next)\n", chain);
            /* report each cycle once: mark its members */
            for (int k = next[r]; k >= 0 && k != r; k = next[k])
                stuck[k] = 3;
            stuck[r] = 3;
        } else if (next[slow] >= 0 && !stuck[next[slow]] && steps < P) {
            fprintf(stderr, "pldsim: %s waits on rank %d, which has already finished\n", chain,
                    next[slow]);
        }
    }
    free(next);
    free(stuck);
    /* a rank that is neither blocked nor done may be computing, or looping
     * in the program's own code: calling it "finished or idle" sent the
     * reader to the wrong rank */
    int running = 0;
    char names[160] = "";
    for (int r = 0; r < P; r++)
        if (!__atomic_load_n(&R->ranks[r].wait.active, __ATOMIC_ACQUIRE) && !R->graph_stuck(R, r) &&
            __atomic_load_n(&R->ranks[r].in_task, __ATOMIC_RELAXED)) {
            size_t len = strlen(names);
            if (running < 8)
                snprintf(names + len, sizeof names - len, "%s%d", running ? ", " : "", r);
            else if (running == 8)
                snprintf(names + len, sizeof names - len, ", ...");
            running++;
        }
    if (running)
        fprintf(stderr, "pldsim: %d other rank%s still running (rank%s %s)\n", running,
                running == 1 ? " is" : "s are", running == 1 ? "" : "s", names);
    int finished = P - blocked - running;
    if (finished > 0)
        fprintf(stderr, "pldsim: %d other rank%s finished or idle\n", finished,
                finished == 1 ? " has" : "s have");
    fflush(stderr);
}

void pld__wait_export(int rank, struct pld__wait_msg *m)
{
    const struct pld__wait_info *w = &pld__R->ranks[rank].wait;
    *m = (struct pld__wait_msg){.active = w->active};
    if (!w->active)
        return;
    m->line = w->line;
    m->cmp = w->cmp;
    m->buf_id = w->buf->id;
    m->value = *w->cellp;
    m->expected = w->expected;
    m->offsets = w->offsets;
    snprintf(m->file, sizeof m->file, "%s", w->file);
    snprintf(m->collective, sizeof m->collective, "%s", w->collective ? w->collective : "");
}

void pld__wait_import(int rank, const struct pld__wait_msg *m)
{
    struct pld__wait_info *wi = &pld__R->ranks[rank].wait;
    const struct pld__wbuf *b = pld__R->wbufs;
    while (b && b->id != m->buf_id)
        b = b->next;
    *wi = (struct pld__wait_info){.active = m->active && b};
    if (!wi->active)
        return;
    wi->buf = b;
    wi->offsets = m->offsets;
    wi->expected = m->expected;
    wi->cmp = m->cmp;
    wi->cellp = &m->value;
    wi->file = m->file;
    wi->line = m->line;
    wi->collective = m->collective[0] ? m->collective : NULL;
}
