/* deadlock.c: the report printed when every live rank is blocked in a wait. */
#include "internal.h"

void pld__report_deadlock(struct pld__run *R)
{
    int blocked = 0, finished = 0;
    char off[64];
    if (R->deadlocked)
        return;
    R->deadlocked = 1;
    for (int r = 0; r < R->P; r++)
        blocked += R->ranks[r].wait.active;
    fflush(stdout);
    fprintf(stderr,
            "pldsim: deadlock at t=%.3f us: %d rank%s blocked in pld_system_wait with no "
            "notify that could release %s\n",
            pld__now() * 1e6, blocked, blocked == 1 ? "" : "s", blocked == 1 ? "it" : "them");
    for (int r = 0; r < R->P; r++) {
        const struct pld__wait_info *w = &R->ranks[r].wait;
        if (!w->active) {
            finished++;
            continue;
        }
        fprintf(stderr, "%s:%d: rank %d: waits for %s%s %s %lld; the cell holds %d", w->file,
                w->line, r, w->buf->name, pld__shape_str(w->offsets, off, sizeof off),
                w->cmp == PLD_WAIT_EQ ? "==" : ">=", (long long)w->expected, *w->cellp);
        if (w->collective)
            fprintf(stderr, " (inside %s)", w->collective);
        fputc('\n', stderr);
    }
    if (finished)
        fprintf(stderr, "pldsim: %d other rank%s finished or idle\n", finished,
                finished == 1 ? " has" : "s have");
    fflush(stderr);
}
