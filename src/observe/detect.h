/* detect.h: what the run watches for (src/observe/): the data-race
 * detector's hooks and the deadlock report. */
#ifndef PLD_DETECT_H
#define PLD_DETECT_H

#include "internal.h"

/* The data-race detector (races.c; docs/races.md). */
struct pld__async_put;
void pld__races_begin(struct pld__run *R);
int pld__races_found(const struct pld__run *R); /* the races reported so far */
void pld__races_free(struct pld__run *R);       /* run.c's teardown */
/* After a notify has updated `cell` (the value it now holds is read). */
void pld__races_release(int me, const void *cell, pld_notify_op op, int32_t value);
/* The same in two halves, for an update that lands after the notify
 * returns: begin at the notify (the notifier's clock as it was, NULL
 * without a detector), land once the update is in the cell (frees it). */
void *pld__races_release_begin(int me);
void pld__races_release_land(int me, const void *cell, pld_notify_op op, int32_t value,
                             void *clock);
/* After a wait on the caller's own `cell` saw its condition hold: it
 * acquires only the notifies that condition needed. */
void pld__races_acquire(int me, const void *cell, pld_wait_cmp cmp, int32_t expected);

/* Program order is per core (docs/races.md).  pld__races_thread: the
 * thread of rank `me`'s executing core, or -1 without a detector.  A
 * launch of n cores by thread `launcher` (pld__run_cores): cores_begin
 * before any runs (each starts after what the launcher did), core_enter
 * as core `core` starts (its thread becomes the executing one), and
 * cores_done once all have ended (the launcher goes on after all they
 * did, and is the executing thread again). */
int pld__races_thread(int me);
void pld__races_cores_begin(int me, int n, int launcher);
void pld__races_core_enter(int me, int core, int launcher);
void pld__races_cores_done(int me, int n, int launcher);
/* A task's clock, for what depends on it (taskgraph_run.c): a snapshot of
 * the executing thread's clock into handle h (h < 0: a new one); returns
 * the handle, or -1 (no detector, out of memory: nothing is ordered by
 * it).  snapshot_join: the executing thread learns it; snapshot_acquire:
 * it acquires what a deferred condition (the rank's cell >= expected)
 * needed, as a wait would; snapshot_free lets the handle go. */
int pld__races_snapshot(int me, int h);
void pld__races_snapshot_join(int me, int h);
void pld__races_snapshot_acquire(int h, const void *cell, int32_t expected);
void pld__races_snapshot_free(int h);
void pld__races_access(int me, const struct pld__wbuf *b, int copy, int64_t lo, int64_t hi,
                       int write, int atomic, const char *op, const char *file, int line);
/* A notify's update of its cell, at byte `at` of `copy` of b: an atomic
 * write, which races with a peer's unordered update of the cell when their
 * order changes its value (docs/races.md). */
void pld__races_notify(int me, const struct pld__wbuf *b, int copy, int64_t at, pld_notify_op how,
                       int32_t value, const char *op, const char *file, int line);
/* Records a region of `t` in `copy`: a window view's, or host memory for a
 * host tensor (copy is then ignored). */
void pld__races_region(int me, pl_tensor t, int copy, pl_shape offsets, pl_shape shape, int write,
                       int atomic, const char *op, const char *file, int line);
/* A put_async's accesses while it is in flight (pld__racer_access_in_flight):
 * its source read on the caller's copy and its destination write on the
 * peer's, from the issue until pld__races_landed at its wait. */
struct pld__flight {
    const struct pld__wbuf *b[2];
    int copy[2];
    int64_t h[2];
};
void pld__races_put_async_issued(int me, const struct pld__async_put *p, const char *op,
                                 struct pld__flight *f);
void pld__races_landed(const struct pld__flight *f);

/* The detector without a run, which the hooks above drive and
 * tests/unit/check_races_prop.c drives directly.  A row set: n rows of len bytes,
 * lo + i * stride. */
struct pld__rows {
    int64_t lo, len, stride, n;
};
struct pld__racer *pld__racer_new(int P); /* NULL when out of memory */
void pld__racer_free(struct pld__racer *RC);
/* Reports each new pair of racing source lines to fn instead of stderr. */
void pld__racer_on_race(struct pld__racer *RC,
                        void (*fn)(void *ctx, const char *f1, int l1, const char *f2, int l2),
                        void *ctx);
int pld__racer_races(const struct pld__racer *RC); /* pairs reported so far */
/* Threads: 0 .. P-1 are the ranks'; pld__racer_thread gives core `core`
 * of `rank` one of its own (core 0: the rank's), made on first use (-1:
 * out of memory).  The calls below that take `me` take a thread. */
int pld__racer_thread(struct pld__racer *RC, int rank, int core);
/* Thread `to` learns all that `from` knows; what `from` does next is not
 * ordered by this. */
void pld__racer_join(struct pld__racer *RC, int to, int from);
/* A copy of thread t's clock in snapshot h (h < 0: a new one), t going on
 * unordered by it; the handle, or -1 when out of memory.  Thread t learns
 * snapshot h; snapshot h acquires a wait on `cell`; h is freed. */
int pld__racer_snapshot(struct pld__racer *RC, int h, int t);
void pld__racer_snapshot_join(struct pld__racer *RC, int t, int h);
void pld__racer_snapshot_acquire(struct pld__racer *RC, int h, const int32_t *cell,
                                 pld_wait_cmp cmp, int32_t expected);
void pld__racer_snapshot_free(struct pld__racer *RC, int h);
void pld__racer_release(struct pld__racer *RC, int me, const int32_t *cell, pld_notify_op op,
                        int32_t value);
void pld__racer_acquire(struct pld__racer *RC, int me, const int32_t *cell, pld_wait_cmp cmp,
                        int32_t expected);
/* An access of `rows` of `copy` of b (b NULL: host memory, by address) at
 * model time t (t < 0: pld__now(), asked only if the access is kept or
 * races, since most accesses of a loop join a record). */
void pld__racer_access(struct pld__racer *RC, int me, const struct pld__wbuf *b, int copy,
                       struct pld__rows rows, int write, int atomic, const char *op,
                       const char *file, int line, double t);
/* A notify's update of the 4-byte cell at `at` of `copy` of b (Set or
 * AtomicAdd of value), as pld__races_notify records it. */
void pld__racer_notify(struct pld__racer *RC, int me, const struct pld__wbuf *b, int copy,
                       int64_t at, pld_notify_op how, int32_t value, const char *op,
                       const char *file, int line, double t);
/* An access that lasts from now until pld__racer_landed: a put_async's read
 * of its source and write of its destination, in flight from the issue to
 * the wait.  No access of any rank, its own included, is ordered with it
 * while it lasts (only the wait ends it), so one that overlaps it races
 * unless both read; it is checked against earlier accesses as an access of
 * `me` at the issue.  The accesses of one flight (`flight`, from
 * pld__racer_flight) do not race with each other.  Returns a handle for
 * pld__racer_landed (an index; -1 when nothing was kept). */
int pld__racer_flight(struct pld__racer *RC);
int64_t pld__racer_access_in_flight(struct pld__racer *RC, int me, const struct pld__wbuf *b,
                                    int copy, struct pld__rows rows, int write, int flight,
                                    const char *op, const char *file, int line, double t);
void pld__racer_landed(struct pld__racer *RC, const struct pld__wbuf *b, int copy, int64_t h);

/* Deadlock report (deadlock.c): a header, one line per blocked rank, and
 * the wait-for graph.  pld__deadlock_note records who notified a cell. */
void pld__report_deadlock(struct pld__run *R);
void pld__deadlock_note(const struct pld__wbuf *b, const void *cell, int rank);
/* One line of the report: `w`'s file:line, `rank`, `what` ("waits for",
 * "task T defers until"), the cell, what it holds and who notified it
 * last.  Returns that notifier, or -1.  deadlock.c. */
int pld__deadlock_wait_line(const struct pld__run *R, int rank, const char *what,
                            const struct pld__wait_info *w);
void pld__deadlock_free(struct pld__run *R); /* run.c's teardown */

/* A rank's wait for another process's deadlock report (deadlock.c; the
 * backends reach them as fe->wait_export and fe->wait_import). */
void pld__wait_export(int rank, struct pld__wait_msg *m);
void pld__wait_import(int rank, const struct pld__wait_msg *m);

/* One put_async as issued (rma.c), kept until it is waited (async.c). */
struct pld__async_put {
    int peer;
    const char *file;
    int line;
    pl_tensor dst, src;
    pl_shape dst_off, src_off, shape;
    int64_t bytes;
    void *handle; /* the backend's; NULL when the bytes were written at the issue */
    struct pld__cost c;
    struct pld__flight flight; /* its accesses in flight, for the race detector */
};

#endif /* PLD_DETECT_H */
