/* contract.h: the contract between the API front end and a backend.
 *
 * The front end checks every argument once, owns the host tensors and UB
 * arenas, prices every operation (cost.c) and records what happened (trace,
 * races, counters: record.c).  A backend provides execution (who runs
 * where), time, and the operations themselves: each read, write, notify and
 * wait is one call that moves its bytes, takes its time and blocks as the
 * operation does.  Backends never re-check arguments and never read the
 * front end's per-rank state.  Collectives sit above this table, so every
 * backend runs the same lowering.
 *
 * The contract has three parts: what a backend reads of the run (struct
 * pld__run_env) and returns from it (struct pld__run_result); the calls it
 * makes back into the front end (struct pld__frontend); and its own table
 * (struct pld_backend).  This header includes only the public API: the
 * front end's state (internal.h) is not part of it. */
#ifndef PLD_CONTRACT_H
#define PLD_CONTRACT_H

#include <pld/pld.h>

#include <stddef.h>
#include <stdint.h>

/* The front end's own types, which a backend holds only by pointer. */
struct pld__wbuf;     /* a window buffer: its slot size and, per process, memory */
struct pld__device;   /* a device's numbers (internal.h, PLD__DEVICE_KEYS) */
struct pld__wait_msg; /* a rank's wait as one process tells another (below) */

/* Bytes of a platform's name for the summary line, its NUL included. */
#define PLD__PLATFORM_DESC 128

/* Capability bits. */
#define PLD_CAP_TIMED 0x1u /* time is simulated: now() is model time */
/* Each rank runs in its own process: another rank's window slot is not in
 * this process's memory, the host orchestrator runs in every process, and
 * pld_dispatch(r, ...) runs only in rank r's process. */
#define PLD_CAP_DISTRIBUTED 0x2u

/* A region of a window view as the operations see it: `shape`
 * elements at `offsets` inside the row-major view of shape `full`, whose
 * first element is `base` bytes into the buffer's slot. */
struct pld__region {
    pl_dtype dtype;
    pl_shape full, offsets, shape;
    int64_t base;
};

/* The caller's side of a copy: the region's first element at `ptr`, in a
 * row-major array of shape `full` (the region's own shape when packed). */
struct pld__span {
    unsigned char *ptr;
    pl_shape full;
};

/* A signal cell: `off` bytes into a rank's slot of `b`, and its address
 * when that slot is in this process's memory (NULL otherwise). */
struct pld__cell_ref {
    const struct pld__wbuf *b;
    int64_t off;
    int32_t *addr;
};

/* What one operation costs its caller (cost.c fills the inputs). */
struct pld__cost {
    double before;         /* s of device work before the bytes leave */
    int64_t extra_lats;    /* route latencies beyond the first: a staged copy's later chunks */
    double bytes;          /* over the route; 0 for a rank's own window */
    double after;          /* s of device work once they have arrived */
    double engine;         /* async writes: s of DMA-engine work before the bytes leave */
    double rate;           /* the mover's own throughput, B/s (a core pulling or pushing, an
                              async write's engine): the bytes take at least a route latency
                              plus bytes / rate; 0: as fast as the route */
    double t_start, t_end; /* out: when the bytes left and arrived */
    /* out, notify only: non-NULL when the update lands after the notify
     * returns (a timed backend's notify to another rank lands at t_end,
     * with no actor waiting for it); the front end fills it in before the
     * caller's next backend call, and gets it back in fe->landed */
    struct pld__landing *landing;
};

/* What the front end keeps of a notify whose update lands later, until it
 * lands (fe->landed): the notify's trace event and the race detector's
 * view of the notifier at the notify. */
struct pld__landing {
    int64_t seq;   /* the notify's trace event, or -1 */
    void *release; /* the race detector's clock of the notifier, or NULL */
};

/* A dispatched task: what to run, with its own copy of the arguments, and
 * where pld_dispatch was called (for error lines). */
struct pld__task {
    pld__task_fn fn;
    const char *fn_name;
    void *args; /* owned copy */
    const char *file;
    int line;
    double not_before; /* a timed backend's: the model time it was dispatched at */
    struct pld__task *next;
};

/* A FIFO of dispatched tasks (tasks.c); zeroed is empty. */
struct pld__task_queue {
    struct pld__task *head, *tail;
};

/* What a backend reads of the run: set before its run hook starts, never
 * written by it. */
struct pld__run_env {
    int P;                 /* ranks */
    const pld_config *cfg; /* the run's configuration */
    /* the front end's count of transfers between ranks (signals included),
     * as it grows: progress lines read it */
    const uint64_t *transfers;
};

/* What a backend's run hook returns besides its code, for the front end to
 * copy into the run: the backend never writes the run itself. */
struct pld__run_result {
    double end_time;      /* s, model time (PLD_CAP_TIMED) or wall time, at the end */
    int error;            /* the code every process agreed on (distributed), or 0 */
    int job_bytes_moved;  /* 1: bytes_moved is the whole job's (distributed) */
    uint64_t bytes_moved; /* then: every process's bytes, summed */
};

/* What a backend tells the front end about a wait that will not complete
 * (pld__frontend.note), before it asks for the report. */
#define PLD__NOTE_TIMED_OUT         0x1u /* a wait passed --wait-timeout */
#define PLD__NOTE_NOTIFIERS_UNKNOWN 0x2u /* the report cannot say who notified a cell */

/* The front end's side of the contract: the calls a backend makes back
 * into it, handed to the run hook rather than named, so that no backend
 * links against a front-end symbol (a backend calls down into the front
 * end's services, never up into its state). */
struct pld__frontend {
    /* Runs a dispatched task on `rank`: the backends' one way in. */
    void (*run_task)(int rank, struct pld__task *t);
    /* A rank's kernel state as kstate_size() bytes, for a backend that runs
     * several vector cores of one rank and swaps them in and out of it:
     * save copies the rank's state out to `to`, load copies `from` in; fork
     * writes a new core of the running kernel to `to` (the same kernel, an
     * empty UB, no put_async events); release frees what the state in the
     * rank holds (its UB, its events); discard frees what the saved state
     * `from` holds, leaving the rank as it is. */
    size_t (*kstate_size)(void);
    void (*kstate_save)(int rank, void *to);
    void (*kstate_load)(int rank, const void *from);
    void (*kstate_fork)(int rank, void *to);
    void (*kstate_release)(int rank);
    void (*kstate_discard)(int rank, const void *from);
    /* Prints the deadlock report of the run, once the backend has found
     * that no rank can move again (or a wait passed --wait-timeout). */
    void (*report_deadlock)(void);
    /* Before a backend ends a rank's or the host's thread of control: lets
     * an embedded interpreter unwind its own frames first (pld_embed.h). */
    void (*guard_escape)(void);
    /* The run's first error code, 0 while there is none; and records
     * `code` as that error unless there is one already (first error wins). */
    int (*error)(void);
    void (*fail_first)(int code);
    /* Records PLD__NOTE_* facts about the run for the deadlock report. */
    void (*note)(unsigned what);
    /* Hands over the device numbers of `rank` (PLD__HOST: the host's) as
     * the backend's platform gives them, before anything runs there; and
     * the platform's name for the summary line. */
    void (*set_device)(int rank, const struct pld__device *dev);
    void (*set_platform_desc)(const char *desc);
    /* Silences (1) or restores (0) the host's messages and run summary in
     * this process: a distributed backend runs the host in every process,
     * and only the first should speak. */
    void (*mute_host)(int mute);
    /* The bytes this process has moved so far (a distributed backend sums
     * them over the job into its result). */
    uint64_t (*bytes_moved)(void);
    /* A rank's wait as one process tells another, for the deadlock report
     * of a distributed backend: wait_export fills `m` with `rank`'s wait as
     * this process knows it; wait_import makes `m` the wait of `rank` for
     * the next report, and `m` must outlive that report. */
    void (*wait_export)(int rank, struct pld__wait_msg *m);
    void (*wait_import)(int rank, const struct pld__wait_msg *m);
    /* A notify's update has been applied to `cell`, which `notifier`
     * issued with c->landing = l: records what the front end left for the
     * landing (the race detector's arrival, the trace's cell) and frees
     * what l holds.  Called by maestro (no rank runs), before the owner's
     * wait is woken. */
    void (*landed)(struct pld__landing *l, int notifier, const int32_t *cell, pld_notify_op op,
                   int32_t value);
};

/* A backend's table.  Every hook under "mandatory" is set (the stubs in
 * stubs.c serve a backend with nothing to do there); every hook under
 * "optional" is NULL when the backend lacks what it provides, and the front
 * end checks for NULL where it calls it and then falls back as the hook's
 * comment says.  pld__backend_check holds a table to this when the backend
 * is chosen. */
struct pld_backend {
    const char *name;
    size_t size; /* sizeof(struct pld_backend) when built: lets the table grow */
    unsigned caps;

    /* ---- execution (mandatory) ---- */

    /* Sets up the ranks (handing their devices and the platform's name to
     * fe->set_device and fe->set_platform_desc), runs host(args) as the host
     * orchestrator and every dispatched task, and returns when all are
     * done, with what it found in *out.  Returns 0 or a negative PLD_E* code
     * (it prints the message itself for platform/device errors).  It reads
     * the run only through `env` and calls back only through `fe`; both
     * outlive the run, and its own state is made here and freed before it
     * returns. */
    int (*run)(const struct pld__run_env *env, pld__host_fn host, const void *args,
               const struct pld__frontend *fe, struct pld__run_result *out);

    /* The executing rank, PLD__HOST, or PLD__NOBODY. */
    int (*self)(void);

    /* Queues a task on `rank`; called from the host.  Takes ownership. */
    void (*dispatch)(int rank, struct pld__task *task);

    /* Ends the run after an error: stops every rank.  Called from a rank or
     * the host; does not return. */
    void (*abort_run)(void) __attribute__((noreturn));

    /* ---- clock (mandatory) ---- */

    /* Seconds since the run started. */
    double (*now)(void);

    /* Lets `seconds` of modelled device work pass on the caller's clock.
     * Cheap: the simulator accumulates it and sleeps only when the rank
     * next interacts with another (docs/models.md, "Local clocks"). */
    void (*charge)(double seconds);

    /* Brings the caller's clock up to its model time before it does what is
     * seen outside the model (an error report), so that errors come out in
     * the order of model time. */
    void (*settle)(void);

    /* ---- data and signals (mandatory) ----
     *
     * The operations.  Each one is a single call that moves its bytes and
     * takes its time: c->before seconds of device work, c->extra_lats
     * route latencies, c->bytes over the route, then c->after seconds.  The
     * backend fills c->t_start and c->t_end (when the bytes left and when
     * they arrived) for the trace.  A span's ptr is NULL under --no-data:
     * nothing is copied, the time is still taken.  read, write and notify
     * return 0, or PLD_EPLATFORM at once when the platform has no route
     * between the two ranks (printing nothing: the caller reports it). */

    /* Copies region `rg` of `peer`'s slot of `b` into `dst` (peer may be
     * the caller). */
    int (*read)(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                struct pld__span dst, struct pld__cost *c);
    /* Writes `src` into region `rg` of `peer`'s slot of `b`, overwriting or
     * (PL_ATOMIC_ADD) adding element-wise and atomically; complete at the
     * target when it returns. */
    int (*write)(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                 struct pld__span src, pl_atomic op, struct pld__cost *c);
    /* Applies `op` with `value` to `owner`'s INT32 cell (the owner may be
     * the caller), releasing what the caller wrote before, and wakes the
     * owner's waiter; returns once the update is visible to the owner, or
     * (timed backends, another owner) sets c->landing and applies it at
     * c->t_end, then calls fe->landed. */
    int (*notify)(int owner, const struct pld__cell_ref *cell, pld_notify_op op, int32_t value,
                  struct pld__cost *c);
    /* Blocks the caller until its own cell satisfies cmp(expected);
     * acquires what the notifier released. */
    void (*wait)(const struct pld__cell_ref *cell, pld_wait_cmp cmp, int32_t expected);

    /* ---- optional: NULL when the backend lacks it ---- */

    /* Bottleneck bandwidth of the route from -> to, B/s (summaries).  NULL:
     * the backend has no such notion, and summaries say 0. */
    double (*route_bw)(int from, int to);
    /* The links of the route from -> to, as numbers (at most `cap` in
     * ids[]), and the route's latency in `lat` (s); returns their count,
     * 0 if unknown.  With link_name, what the summary's per-link counters
     * are made of; NULL: the backend has no links, and there are none. */
    int (*route_links)(int from, int to, int *ids, int cap, double *lat);
    /* Link number `id`'s name, with its bandwidth (B/s) in *bw; NULL if
     * unknown. */
    const char *(*link_name)(int id, double *bw);

    /* Memory: set exactly when the backend is PLD_CAP_DISTRIBUTED (each
     * process then holds only its own rank's slot); NULL: the front end
     * allocates every slot in this process's memory. */

    /* Collective (every process's host calls it in the same order): gives
     * `b` this process's slot, b->slot zeroed bytes at b->mem.  Returns 0 or
     * a negative PLD_E* code after printing why. */
    int (*window_alloc)(struct pld__wbuf *b);
    /* Releases what window_alloc made (collective, at the end of the run). */
    void (*window_free)(struct pld__wbuf *b);

    /* Asynchronous writes (put_async), both or neither; NULL when the
     * backend has none: the front end then writes synchronously at the issue.  A backend with
     * them models the device's DMA engines (docs/models.md). */

    /* Pays c->before on the caller's clock, then queues the write of `src`
     * into region `rg` of `peer`'s slot of `b` for one of the caller's
     * dev.sdma_engines engines and returns at once with its handle in *h.
     * The engine that takes it pays c->engine s and c->extra_lats route
     * latencies, then moves c->bytes over the route, taking at least the
     * route latency plus c->bytes / c->rate (0: no such floor), and then the
     * bytes land.  `rg` is copied; `src` must
     * stay valid until wait_write.  Returns 0, or PLD_EPLATFORM at once
     * when there is no route (printing nothing). */
    int (*write_async)(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                       struct pld__span src, const struct pld__cost *c, void **h);
    /* Blocks the caller until write `h` has landed, sets c->t_start and
     * c->t_end (when its bytes left and arrived), and frees `h`. */
    void (*wait_write)(void *h, struct pld__cost *c);

    /* Cores. */

    /* Runs fn(arg, core) for core = 0..n-1 on n vector cores of the
     * calling rank at once, core 0 on the caller: each starts at the
     * caller's model time with a fork of its kernel state (cores.c) and
     * returns at the latest core's end.  NULL: the front end runs them one
     * after another on the caller. */
    void (*run_cores)(int n, void (*fn)(void *arg, int core), void *arg);

    /* Task graphs (taskgraph.c), both or neither; NULL when the backend has none: the front
     * end then polls.  idle blocks the calling core until ready(arg) holds,
     * asking again whenever a notify lands on the caller's rank and after
     * every kick from one of its cores; it ends the run with a deadlock
     * report when nothing can ever make it hold.  kick brings the caller's
     * clock up to its model time and has its rank's idle cores ask again. */
    void (*idle)(int (*ready)(void *arg), void *arg);
    void (*kick)(void);

    /* Optional (timed backends): settle, then lets every other actor due
     * at the same model time run up to its next interaction before the
     * caller goes on: the streams of the shared GM that start at once are
     * booked before any is priced (gm_share.c).  Read only when `size`
     * says the table has it. */
    void (*yield)(void);

    /* Optional (backends whose ranks are processes): 1 in exactly one
     * process of the job, the first to ask, 0 in every other.  The run's
     * first error is reported by the rank that meets it; where every
     * process meets the same one (a refusal of the backend itself), each
     * process would print it, and their lines interleave.  NULL: the
     * in-process first (one address space) is the job's. */
    int (*claim_report)(void);

    /* Optional: where the backend keeps what self() returns, for
     * pld__self() to read without calling it (it is asked dozens of times
     * per op); NULL: self() is called. */
    const int *self_at;
};

/* A rank's wait as one process tells another, for the deadlock report of
 * a distributed backend (deadlock.c): plain bytes, no pointers. */
struct pld__wait_msg {
    int active, line, cmp, buf_id;
    int32_t value;
    int64_t expected;
    pl_shape offsets;
    char file[160], collective[48];
};

#endif /* PLD_CONTRACT_H */
