/* interrupt.c: what Ctrl-C (SIGINT) and SIGTERM do during a run.
 *
 * Why a handler of our own: SimGrid installs one for SIGINT as its engine
 * starts, which prints nothing under pldsim's log settings and exits with
 * status 1, the status docs/errors.md gives a golden mismatch; and when a
 * kernel runs on a thread context, its exit() from that thread ends in a
 * SimGrid abort.  So during a run the process says in one line that it was
 * interrupted and then dies of the signal itself, as a shell expects of an
 * interrupted program (status 128 + the signal: 130 for Ctrl-C).  Outside a
 * run the program's own handlers are back in place. */
#include "internal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static const int caught[] = {SIGINT, SIGTERM};
enum { NCAUGHT = sizeof caught / sizeof caught[0] };
static struct sigaction saved[NCAUGHT];
static int armed;

static void on_interrupt(int sig)
{
    /* write(2) and raise(2) only: async-signal-safe */
    static const char intr[] = "pldsim: interrupted (SIGINT); the run has no result\n";
    static const char term[] = "pldsim: terminated (SIGTERM); the run has no result\n";
    const char *msg = sig == SIGINT ? intr : term;
    ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

void pld__interrupt_arm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NCAUGHT; i++) {
        struct sigaction old;
        sigaction(caught[i], NULL, &old);
        if (!armed)
            saved[i] = old; /* a second arm (SimGrid replaced ours) keeps the program's */
        /* a signal the program ignores stays ignored: nohup, or a shell's
         * background job, asked for that */
        if (saved[i].sa_handler == SIG_IGN)
            signal(caught[i], SIG_IGN);
        else
            sigaction(caught[i], &sa, NULL);
    }
    armed = 1;
}

void pld__interrupt_disarm(void)
{
    if (!armed)
        return;
    for (int i = 0; i < NCAUGHT; i++)
        sigaction(caught[i], &saved[i], NULL);
    armed = 0;
}
