/* progress.c: a line on stderr every few seconds of a long simulation, so a
 * what-if run at a thousand devices does not sit silent for minutes.
 *
 * On by default only when stderr is a terminal (every 10 s), so logs and
 * goldens never see it; PLD_PROGRESS=SECONDS sets the interval anywhere
 * (0 turns it off).  The clock is read once per 1024 transfers, which keeps
 * the cost out of the profile. */
#include "sim.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double interval, started, last;
static uint64_t ticks;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pld__progress_start(void)
{
    const char *e = getenv("PLD_PROGRESS");
    char *end;
    interval = isatty(STDERR_FILENO) ? 10 : 0;
    if (e && *e) {
        double v = strtod(e, &end);
        if (end != e && *end == '\0' && v >= 0)
            interval = v;
        else
            fprintf(stderr, "pldsim: PLD_PROGRESS=%s: expected seconds (0 = off); ignored\n", e);
    }
    started = last = wall();
    ticks = 0;
}

void pld__progress_tick(const struct pld__run *R)
{
    if (interval <= 0 || (++ticks & 1023) != 0)
        return;
    double now = wall();
    if (now - last < interval)
        return;
    last = now;
    uint64_t n = __atomic_load_n(&R->transfers, __ATOMIC_RELAXED);
    fprintf(stderr, "[pldsim] %.1f s wall: simulated %.3f us, %llu transfers (%.0f/s)\n",
            now - started, simgrid_get_clock() * 1e6, (unsigned long long)n,
            (double)n / (now - started));
}
