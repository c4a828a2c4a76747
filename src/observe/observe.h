/* observe.h: what the layers above tell the observe layer (src/observe/)
 * about each op: its events (the trace and the summary), the regions and
 * cells it touched (the race detector, the deadlock report), and the one
 * call that records them all (pld__observe). */
#ifndef PLD_OBSERVE_H
#define PLD_OBSERVE_H

#include "internal.h"
#include "detect.h"

/* Events (events.c) behind the trace and the summary. */
struct pld__event {
    double t0, t1;
    int rank;
    enum pld__op id;
    const char *op;     /* pld__ops[id].trace */
    int peer;           /* -1 when none */
    const char *where;  /* window or "gm:<tensor>", NULL when none */
    int64_t offset;     /* byte offset in the window, or -1 */
    int64_t bytes;      /* -1 when none */
    int64_t value;      /* signals: the value; else PLD__MISSING */
    const char *detail; /* static text or NULL */
    const char *file;
    int line;
    uint64_t seq;  /* recording order, the last tie-break when sorting */
    int64_t cause; /* a wait: the event (seq) of the notify that released it, or -1 */
};
int pld__trace_open(struct pld__run *R, const char *path);
/* Appends a primitive to the executing rank's recording (record.c). */
void pld__record_op(struct pld__rank *rk, const struct pld__event *e, const pl_tensor *t,
                    int64_t elem_off);
void pld__trace_add(const struct pld__event *e);
int pld__trace_close(struct pld__run *R);
/* A transfer of `bytes` from rank `from` to `to` over [t0, t1], moved by
 * the executing rank; `is_async`: by one of its DMA engines (put_async). */
void pld__trace_xfer(double t0, double t1, int from, int to, double bytes, int is_signal,
                     int is_async);
/* Remembers that event `seq` (a notify) last updated `cell`; and marks
 * event `seq` (a wait on `cell`) as released by that notify. */
void pld__trace_note_cell(const void *cell, int64_t seq);
void pld__trace_set_cause(int64_t seq, const void *cell);
/* Records one primitive that started at t0 and ends at t1 (0: now), on the
 * executing rank; `t` (may be NULL) names the memory touched, `elem_off`
 * its byte offset inside that tensor. */
int64_t pld__trace_op(enum pld__op op, double t0, double t1, int peer, const pl_tensor *t,
                      int64_t elem_off, int64_t bytes, int64_t value, const char *file, int line);

/* A region an op read or wrote, for the race detector: offsets+shape of
 * `t` in rank `copy`'s copy (a host tensor: copy is ignored). */
struct pld__touch {
    pl_tensor t; /* dtype 0: no region */
    int copy;
    pl_shape offsets, shape;
    int write, atomic;
};
/* What a signal op did to its INT32 cell, for the race detector, the
 * deadlock report and the trace's notify-to-wait links (observe.c). */
enum pld__cell_use {
    PLD__CELL_NONE,
    PLD__CELL_NOTIFY, /* written atomically, released; `how` a pld_notify_op */
    PLD__CELL_WAIT,   /* acquired, then read atomically; `how` a pld_wait_cmp */
    PLD__CELL_READ,   /* read atomically: a deferred wait only registers */
};
struct pld__observed_cell {
    enum pld__cell_use use;
    const struct pld__wbuf *win;
    int copy;   /* whose copy of the window holds it */
    int64_t at; /* its byte offset in the window */
    int32_t *p; /* the cell in this process, or NULL (another process's) */
    int how;
    int32_t value; /* what a notify wrote or a wait expected */
};
/* What one op did, once the backend has carried it out (observe.c). */
struct pld__observed {
    enum pld__op op;
    const char *api; /* the op as the caller named it, for the race report */
    const char *file;
    int line;
    double t0, t1; /* when the op started, and ended if not now (a cube pipe's op) */
    /* the transfer, for ops of kind DATA and SIGNAL that the op table
     * prices: from, to, what the backend returned and what it cost
     * (pld__op_done) */
    int from, to, rc;
    const struct pld__cost *cost;
    /* a put_async: issued by this op (a missing route fails now, its
     * accesses go in flight) or landed at it (wait_async: its transfer is
     * recorded, its flight ends and its regions are seen at its own
     * file:line); either takes the place of the transfer above */
    struct pld__async_put *issued;
    const struct pld__async_put *landed;
    /* what the race detector sees, in order: a pointer, so that the ops
     * that touch no region (notify, wait: most ops of a collective) do not
     * zero two pl_tensors in every record */
    const struct pld__touch *touch;
    int ntouch;
    struct pld__observed_cell cell;
    /* a wait's poll, charged once the race detector has timed its read */
    int poll;
    /* the trace event: the peer (-1: none), the memory named, its byte
     * offset, bytes and value (PLD__MISSING: none) */
    int peer;
    const pl_tensor *t;
    int64_t elem_off, bytes, value;
};
/* The touches of an op, as the two fields of struct pld__observed, the
 * count taken from the list: .PLD__TOUCHES({t, copy, offsets, shape, write,
 * atomic}, ...) inside the record's initialiser. */
#define PLD__TOUCHES(...)                                                                          \
    touch = (const struct pld__touch[]){__VA_ARGS__},                                              \
    .ntouch = (int)(sizeof((const struct pld__touch[]){__VA_ARGS__}) / sizeof(struct pld__touch))
/* The record phase of an op, in one place rather than inline in every
 * primitive: the transfer (trace and counters; a missing route fails
 * here), the race detector, then the op's trace event, whose sequence
 * number it returns. */
int64_t pld__observe(const struct pld__observed *o);

/* How far the run's time can be trusted (trust.c): the kinds of op the
 * model's trust_* keys label, in their order. */
enum {
    PLD__TRUST_GM,
    PLD__TRUST_VECTOR,
    PLD__TRUST_LAUNCH,
    PLD__TRUST_CUBE,
    PLD__TRUST_PULL,
    PLD__TRUST_PUSH,
    PLD__TRUST_SDMA,
    PLD__TRUST_SIGNAL,
    PLD__TRUST_WAIT,
    PLD__TRUST_DISPATCH
};
extern const char *const pld__trust_kind_names[PLD__TRUST_KINDS];
/* The trust kind of an op, or -1 for one that costs nothing. */
int pld__trust_kind(enum pld__op op);
/* Adds an op's time, [t0, t1] s, to its kind, with the executing rank's
 * (or the host's) label for it; only on a timed backend. */
void pld__trust_account(enum pld__op op, double t0, double t1);
/* No op time yet, no label seen. */
void pld__trust_reset(struct pld__run *R);
/* The ops' time by label (s, into by_label), waits left out; returns
 * their sum. */
double pld__trust_shares(const struct pld__run *R, double by_label[]);
/* When more than half the ops' time is priced by guesses: 1, with the
 * line that says so (which kinds, what share) in buf; else 0. */
int pld__trust_mostly_guessed(const struct pld__run *R, char *buf, size_t len);
/* The run's op time by label, each with its kinds, for the run's last
 * line ("checked 99.7 % (dispatch, signal), guess 0.3 % (launch)") into
 * buf; 1, or 0 when no op took time (or buf is too short). */
int pld__trust_line(const struct pld__run *R, char *buf, size_t len);
/* A notify's update has landed after the notify returned (fe->landed):
 * its race-detector arrival and its trace cell, as pld__observe left them
 * in `l`. */
struct pld__landing;
void pld__observe_landed(struct pld__landing *l, int notifier, const int32_t *cell,
                         pld_notify_op op, int32_t value);
/* The event of an op that names no memory and moves nothing between ranks
 * (vector, cube, launch, dispatch) from t0 to t1 (0: now); peer: a dispatch's rank, else -1. */
void pld__observe_work(enum pld__op op, double t0, double t1, int peer, int64_t bytes,
                       const char *file, int line);

#endif /* PLD_OBSERVE_H */
