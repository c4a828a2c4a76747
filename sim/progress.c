/* progress.c: a line on stderr every few seconds of a long simulation, so a
 * what-if run at a thousand devices does not sit silent for minutes.
 *
 * On by default only when stderr is a terminal (every 10 s), so logs and
 * goldens never see it; PLD_PROGRESS=SECONDS sets the interval anywhere
 * (0 turns it off).  The clock is read once per 1024 transfers, which keeps
 * the cost out of the profile. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pld__progress_start(struct pld__progress *p)
{
    const char *e = getenv("PLD_PROGRESS");
    char *end;
    double interval = isatty(STDERR_FILENO) ? 10 : 0;
    if (e && *e) {
        double v = strtod(e, &end);
        if (end == e || *end != '\0' || !isfinite(v) || v < 0)
            return pld__config_error(
                PLD_EUSAGE,
                "PLD_PROGRESS '%s': expected seconds between progress lines (0: none), e.g. 10", e);
        interval = v;
    }
    double now = wall();
    *p = (struct pld__progress){.interval = interval, .started = now, .last = now};
    return 0;
}

void pld__progress_tick(struct pld__progress *p, const uint64_t *transfers)
{
    if (p->interval <= 0 || (++p->ticks & 1023) != 0)
        return;
    double now = wall();
    if (now - p->last < p->interval)
        return;
    p->last = now;
    uint64_t n = __atomic_load_n(transfers, __ATOMIC_RELAXED);
    fprintf(stderr, "[pldsim] %.1f s wall: simulated %.3f us, %llu transfers (%.0f/s)\n",
            now - p->started, simgrid_get_clock() * 1e6, (unsigned long long)n,
            (double)n / (now - p->started));
}
