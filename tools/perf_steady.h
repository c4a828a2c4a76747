/* perf_steady.h: pldsim-perf's exact shortcut through repeated calls.
 *
 * The simulator has no noise: call i+1 can differ from call i only through
 * the state the simulation carries, which at the end of a call is the rank
 * clocks' offsets (and what is in flight, itself a function of them).  Once
 * every rank's duration of a call repeats that of the call one period
 * before (period 1 or 2: out-of-place broadcasts take turns between two
 * windows), and every rank advanced by the same time over the period, the
 * offsets repeat too and so does every later call.  The ranks then stop
 * together, and the calls not run are added at the repeating durations.
 *
 * "Repeat" is to 1 part in 1e9: the clocks are doubles, and the ranks'
 * durations differ and drift by up to 2e-12 (the rounding of different
 * sums), so bit for bit they never repeat; the derived calls are then
 * within about 1e-8 of a full run's, far below the 6 digits printed.
 *
 * A loop of calls is shared by all ranks of one simulation: the ranks are
 * actors of one process, and SimGrid runs one at a time, so this state
 * needs no lock.  It is only for the simulator (on threads or mpi the
 * iterations are real, and every one runs). */
#ifndef PLDSIM_PERF_STEADY_H
#define PLDSIM_PERF_STEADY_H

#include <stdint.h>

/* Makes the shared state for P ranks; 0, or -1 when out of memory.
 * perf_steady_free lets it go (and takes an unset state). */
int perf_steady_init(int P);
void perf_steady_free(void);

/* Turns the shortcut on or off for every later loop (off: every call runs,
 * and the functions below only count). */
void perf_steady_enable(int on);

/* Rank `me` enters a loop of `iters` calls at simulated time t0 (s).  Every
 * rank must enter the same loops in the same order, and a barrier must lie
 * between one loop's perf_steady_end and the next loop's begin. */
void perf_steady_begin(int me, int iters, double t0);

/* Whether rank `me` makes call `it` (0-based), before making it: 0 once
 * the ranks have agreed to stop. */
int perf_steady_go(int me, int it);

/* Rank `me` finished call `it` at simulated time `now` (s), with
 * `excluded` s of the loop so far not timed (-z 3's barriers). */
void perf_steady_done(int me, int it, double now, double excluded);

/* After the loop: the simulated time (s) rank `me`'s calls would have
 * taken had all `iters` run, less the excluded time (the time that the
 * loop measured, for the calls it made, plus the calls it did not make at
 * their repeating durations), and how many calls it made. */
double perf_steady_end(int me, double now, double excluded, int *made);

#endif
