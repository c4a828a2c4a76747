/* perf_jobs.h: independent simulations at once, one child process each.
 *
 * SimGrid runs one simulation per process (its engine is a singleton), so
 * pldsim-perf's sizes, which are independent simulations, run in forked
 * children, at most `jobs` at a time.  A child writes its results into a
 * temporary file of its own, which the parent reads once the child has
 * exited: no pipe to fill, so no child waits on the parent.  So is its
 * stderr, passed on a line at a time, each distinct line once. */
#ifndef PLDSIM_PERF_JOBS_H
#define PLDSIM_PERF_JOBS_H

#include <stdio.h>

/* The program's name, the prefix of its messages: "pldsim-perf", or the
 * hccl_test program's name in pldsim-hccl-test. */
extern const char *perf_prog;

/* Runs job(k, out) in a child process for every k in order[0 .. n-1], at
 * most `jobs` at once, and collect(k, in) in this process once job k has
 * exited with status 0, in the order the jobs end; progress(done, n), if
 * not NULL, after each.  job returns the child's exit status; it must not
 * write to stdout (flush stdout before calling this).  On the first job
 * that fails (a non-zero status, a signal, or a collect that returns
 * non-zero), the other children are stopped and its status is returned
 * (128 + the signal for a signal, after a message naming `what(k)`);
 * otherwise 0.  A fork or a temporary file that cannot be made is an error
 * with a message, status 1. */
int perf_jobs_run(int n, const int *order, int jobs, int (*job)(int k, FILE *out),
                  int (*collect)(int k, FILE *in), const char *(*what)(int k),
                  void (*progress)(int done, int n));

/* From now on, SIGINT, SIGTERM and SIGHUP print one line, stop the
 * children perf_jobs_run has running (SIGKILL), and end this process with
 * the signal (130 for Ctrl-C); the children get the dispositions back.  A
 * signal the process ignores (nohup) stays ignored. */
void perf_jobs_catch_interrupts(void);

/* The cores this process may run on (at least 1): -j's default. */
int perf_jobs_cores(void);

#endif
