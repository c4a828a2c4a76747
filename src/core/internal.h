/* internal.h: state and helpers shared by the API front end and the backends.
 * Private to libpld: everything here is prefixed pld__. */
#ifndef PLD_INTERNAL_H
#define PLD_INTERNAL_H

#include <pld/pld.h>
#include "contract.h"
#include "ops.h"
#include <stdarg.h>
#include <stdio.h>

/* The cube unit's pipes (model/pipes.c, which prices them), part of a
 * core's kernel state.  MTE2 loads GM into L1, MTE1 moves L1 into L0A and
 * L0B, M multiplies, FIX drains L0C.  Each pipe runs its ops in issue
 * order. */
enum pld__pipe { PLD__PIPE_MTE2, PLD__PIPE_MTE1, PLD__PIPE_M, PLD__PIPE_FIX, PLD__NPIPES };

/* One core's pipes: when each is free next, in model seconds (absolute,
 * as pld__now), and whether any is past the core's own clock. */
struct pld__pipes {
    double free[PLD__NPIPES];
    int ahead;
};

/* Window slots are rounded up to this many bytes (upstream
 * kCommBufferAlignmentBytes). */
#define PLD__SLOT_ALIGN 32
/* UB tile rows and FP16 remote spans must be multiples of this. */
#define PLD__ROW_ALIGN 32

/* A communication group (pld_group): its members in increasing world-rank
 * order, and the window its buffers share. */
struct pld__group {
    int n;
    int *members;        /* n world ranks, increasing: group rank i is members[i] */
    int *index;          /* P entries: each world rank's group rank, or -1 */
    int64_t window_size; /* bytes of the group's window allocated so far */
    char desc[80];       /* "devices 1, 2" (world ranks), for messages */
    int seen, fresh;     /* this run has buffers in it; one that no kept window held */
    struct pld__group *next;
};

/* A window buffer: the same slot in every rank's window (of its group). */
struct pld__wbuf {
    int id;
    char name[48];
    int64_t bytes;                  /* as requested */
    int64_t slot;                   /* rounded up to PLD__SLOT_ALIGN */
    int64_t win_offset;             /* where the slot starts in each rank's window (of its group) */
    const struct pld__group *group; /* its comm group; NULL for the whole world */
    unsigned char *mem;             /* P copies back to back, `slot` bytes each */
    pl_dtype dtype;                 /* as allocated; 0 for the byte form */
    int sparse;                     /* mem is a sparse.c range, reached through pld__cell */
    int faulted_in;                 /* its pages were made with it (wbuf.c) */
    const char *file;               /* allocation site */
    int line;
    void *be_data; /* the backend's handle (a distributed backend's window) */
    struct pld__wbuf *next;
};

/* The device model: what one device costs and holds.  One list of keys
 * (X(key, unit)) makes the struct, the parser of model files, specs and
 * <prop>s (device.c), and the platform writer (sim/topology.c); the unit
 * names a pld__parse_* function of units.c.  docs/models.md explains each. */
#define PLD__DEVICE_KEYS(X)                                                                        \
    X(ub_bytes, size)         /* UB capacity, bytes */                                             \
    X(ub_usable_bytes, size)  /* what kernels may allocate, bytes */                               \
    X(hbm_bw, bandwidth)      /* GM <-> UB bandwidth, B/s */                                       \
    X(hbm_lat, time)          /* fixed cost of one GM access, s */                                 \
    X(vector_rate, rate)      /* vector-unit throughput, elements/s */                             \
    X(launch_lat, time)       /* kernel launch (pl_incore), s */                                   \
    X(submit_lat, time)       /* the orchestrator's serial cost per task-graph task (pld_at), s */ \
    X(dispatch_lat, time)     /* host dispatch of one task (pld_dispatch), s */                    \
    X(signal_bytes, size)     /* bytes a notify carries over the link */                           \
    X(signal_lat, time)       /* the notifier's cost of one signal write, s */                     \
    X(poll_lat, time)         /* a wait notices its cell this long after it holds, s */            \
    X(speed_factor, factor)   /* compute slowdown of this device (a straggler > 1) */              \
    X(aiv_cores, count)       /* vector cores (AIV): the most a collective's core_num may use */   \
    X(sdma_engines, count)    /* DMA engines: put_async transfers beyond this many queue */        \
    X(sdma_issue, time)       /* the core's cost of issuing one put_async, s */                    \
    X(sdma_lat, time)         /* an engine's cost per block before the block's bytes move, s */    \
    X(sdma_bw, bandwidth)     /* one engine's throughput, B/s; 0: as fast as the route */          \
    X(pull_lat, time)         /* a core's fixed cost per pull (remote_load, get chunk), s */       \
    X(pull_bw, bandwidth)     /* one core's pulling throughput, B/s; 0: as fast as the route */    \
    X(push_lat, time)         /* a core's fixed cost per push (remote_store, put chunk), s */      \
    X(push_bw, bandwidth)     /* one core's pushing throughput, B/s; 0: as fast as the route */    \
    X(aic_cores, count)       /* cube cores (AIC) per device: task-graph cube tasks at once */     \
    X(cube_rate, rate)        /* one AIC's FP16/BF16 matmul throughput, FLOP/s; 0: no cube */      \
    X(cube_int8_rate, rate)   /* one AIC's INT8 matmul throughput, OP/s */                         \
    X(cube_fp32_rate, rate)   /* one AIC's FP32 matmul throughput, FLOP/s */                       \
    X(cube_lat, time)         /* fixed cost of one matmul instruction, s */                        \
    X(l1_bw, bandwidth)       /* GM -> L1 (an AIC's MTE2), B/s; 0: hbm_bw */                       \
    X(l0a_bw, bandwidth)      /* L1 -> L0A (a matmul's left operand), B/s */                       \
    X(l0b_bw, bandwidth)      /* L1 -> L0B (its right operand), B/s */                             \
    X(l0c_bw, bandwidth)      /* L0C -> GM (draining a result), B/s */                             \
    X(l0c_lat, time)          /* fixed cost of one drain of L0C, s */                              \
    X(gm_read_bw, bandwidth)  /* GM reads all its cores share, B/s; 0: not shared */               \
    X(gm_write_bw, bandwidth) /* GM writes all its cores share, B/s; 0: not shared */              \
    X(l2_bytes, size)         /* L2 capacity: reads of a larger tensor come from HBM, bytes */     \
    X(hbm_chip_bw, bandwidth) /* HBM reads all its cores share, B/s; 0: no HBM level */            \
    /* how far each kind of op's cost can be trusted (enum pld__trust; unset: guess) */            \
    X(trust_gm, trust)       /* GM loads, stores, reads, writes: hbm_lat, hbm_bw */                \
    X(trust_vector, trust)   /* vector ops: vector_rate */                                         \
    X(trust_launch, trust)   /* kernel launches: launch_lat */                                     \
    X(trust_cube, trust)     /* matmuls and cube moves: cube_*, l1_bw, l0*_bw, l0c_lat */          \
    X(trust_pull, trust)     /* remote_load, get: pull_lat, pull_bw */                             \
    X(trust_push, trust)     /* remote_store, put: push_lat, push_bw */                            \
    X(trust_sdma, trust)     /* put_async: sdma_issue, sdma_lat, sdma_bw */                        \
    X(trust_signal, trust)   /* notifies: signal_lat */                                            \
    X(trust_wait, trust)     /* waits, after their cell holds: poll_lat */                         \
    X(trust_dispatch, trust) /* host dispatches: dispatch_lat */

/* The kinds of op whose costs trust_* label, in the keys' order (trust.c). */
#define PLD__TRUST_KINDS 10

struct pld__device {
#define PLD__DEVICE_FIELD(key, unit) double key;
    PLD__DEVICE_KEYS(PLD__DEVICE_FIELD)
#undef PLD__DEVICE_FIELD
};

/* Names of the device keys in list order, NULL-terminated (device.c). */
extern const char *const pld__device_keys[];

/* The value of key number `k` (an index into pld__device_keys) of `d`. */
double pld__device_get(const struct pld__device *d, int k);

/* Parses one device key (`key` = `value`, units as its unit names) into
 * `d`.  Returns 1 if the key is a device key, 0 if not, -1 if the value is
 * malformed. */
int pld__device_set(struct pld__device *d, const char *key, const char *value);

/* What a value of device key `key` looks like ("a time such as 500ns"),
 * for messages; NULL if it is not a device key. */
const char *pld__device_key_form(const char *key);

/* The a2a3 model's device numbers (model.c): the defaults for hosts of a
 * platform file without <prop>s, and the device of backends without one. */
void pld__device_defaults(struct pld__device *d);

/* Is `d` usable: hbm_bw, vector_rate and speed_factor > 0 and
 * ub_usable_bytes <= ub_bytes?  1 or 0. */
int pld__device_usable(const struct pld__device *d);

/* What a rank is blocked on, for the deadlock report. */
struct pld__wait_info {
    int active; /* atomic: a threads report reads other ranks' (release/acquire) */
    const struct pld__wbuf *buf;
    int64_t cell;     /* element index of the cell in the view's buffer */
    pl_shape offsets; /* as the user wrote them */
    int64_t expected;
    pld_wait_cmp cmp;
    const int32_t *cellp;
    const char *file;
    int line;
    const char *collective; /* set while inside a builtin collective */
};

/* One tile of the running kernel and the stamps of its first and last use:
 * its live range, as a compiler's UB planner would see it. */
struct pld__ub_block {
    void *data;
    size_t bytes;
    size_t alloc; /* bytes behind data (1 for a --no-data tile) */
    uint64_t first, last;
    const char *file;
    int line;
    int tiles;  /* 1, or how many folded tiles were live at the group's peak */
    int folded; /* made by pld__ub_fold: no tile's, so its `last` is final */
};

/* One dispatch as the device ran it: from the start of the dispatched function
 * to its return, in model seconds (wall seconds on a real backend). */
struct pld__dispatch_span {
    double t0, t1;
    const char *fn; /* the dispatched function's name */
};

struct pld__rank {
    int device_id;
    struct pld__device dev;
    int in_task; /* running a dispatched function; atomic, as `active` */
    /* The kernel state, from `kernel` to `task`: what one vector core of
     * the rank has of the running kernel.  A backend running several cores
     * of a rank at once (core_num) keeps a copy per core and swaps it in
     * while that core runs (cores.c, sim/engine.c); keep these together. */
    const char *kernel; /* running kernel, or NULL */
    const char *kernel_file;
    int kernel_line;
    struct pld__ub_block *ub_blocks; /* tiles of the running kernel, freed at its exit */
    int ub_nblocks, ub_cap;
    uint64_t ub_clock; /* stamps each tile use, in program order */
    /* freed tile buffers kept for reuse: a builtin frees and makes pieces of
     * one size thousands of times, and malloc would return the pages to the
     * kernel and fault them back in each time */
    void *spare[8];
    size_t spare_bytes[8];
    int nspare;
    uint64_t epoch; /* bumps at every kernel entry and exit */
    struct pld__wait_info wait;
    const char *collective; /* name of the builtin being executed, or NULL */
    /* the running kernel is a builtin collective's (host or per-device
     * call): upstream's template kernel, which moves 256-element tiles */
    int builtin;
    struct pld__async *async; /* the running kernel's put_async sessions and events (async.c) */
    struct pld__pipes pipes;  /* an AIC's pipes (pipes.c) */
    /* innermost armed guard (pld_embed.h), or NULL: per core, because each
     * core of a task graph runs front-end code of its own */
    struct pld_guard *guard;
    int task; /* 1 + the index of the task-graph task this core runs (taskgraph.c), or 0 */
    /* 1 + the race detector's thread of this core (its program order), or
     * 0: the rank's own, which its first core and all it runs alone share */
    int race_thread;
    /* end of the kernel state */
    uint64_t bytes_sent, bytes_received;
    /* The device span of each dispatch the rank ran, in order (levels.c):
     * what upstream's runtime stamps as a dispatch's device wall. */
    struct pld__dispatch_span *spans;
    int nspans, capspans;
    struct pld__graph *graph; /* the open manual scope (taskgraph.c), or NULL */
    int recording;            /* pld_record_begin() is active */
    char *rec;                /* the recorded lines */
    size_t rec_len, rec_cap;
    /* when the orchestrator's last task submission ends (taskgraph.c): a
     * task starts no earlier, so submit_lat bounds a graph's task rate */
    double submitted;
};

/* `rk`'s device wall (state.c): its longest dispatch span, s; 0: none. */
double pld__device_wall(const struct pld__rank *rk);

/* A rank's kernel state as bytes (cores.c): its size, and copies out of and
 * into the rank.  A fork is a new core of the running kernel: the same
 * kernel, an empty UB and no put_async events.  Release frees what the
 * state swapped into `rk` holds (its UB, its events). */
size_t pld__kstate_size(void);
void pld__kstate_save(const struct pld__rank *rk, void *to);
void pld__kstate_load(struct pld__rank *rk, const void *from);
void pld__kstate_fork(const struct pld__rank *rk, void *to);
void pld__kstate_release(struct pld__rank *rk);

/* Runs a dispatched task on `rank` (levels.c), for the backends. */
struct pld__task;
void pld__run_task(int rank, struct pld__task *t);

/* Runs fn(arg, core) for core = 0..n-1 on n cores of the executing rank
 * (cores.c): at once on a backend that models cores, else in turn. */
void pld__run_cores(int n, void (*fn)(void *arg, int core), void *arg);

/* Signal operands (signal.c): fails unless `*t` is a dense INT32 window
 * view whose cell at `offsets` exists (`what` names the operand), and
 * makes the window's storage; and the byte offset of that cell in the
 * view. */
void pld__check_signal(const char *file, int line, const char *op, const char *what,
                       const pl_tensor *t, pl_shape offsets);
int64_t pld__cell_offset(const pl_tensor *t, const pl_shape *offsets);

/* Task graphs (taskgraph.c): run.c's teardown of scopes left open. */
struct pld__run;
void pld__graphs_free(struct pld__run *R);
/* For the deadlock report: a line per wait a task of `rank`'s open manual
 * scope is blocked in and per deferred condition that does not hold, then
 * one on the tasks that never started, and why, if any did not.  Returns
 * the rank that last notified the first of those cells, or -1. */
int pld__graph_report(const struct pld__run *R, int rank);
/* Whether `rank`'s manual scope is running and has tasks not complete:
 * its cores are idle or blocked (for the deadlock report). */
int pld__graph_stuck(const struct pld__run *R, int rank);
/* Records, in the task `rk` runs (if it is a task of a scope), the wait
 * it enters or leaves (rk->wait): the report reads it there, whichever
 * core's state the rank holds at the time.  signal.c. */
void pld__graph_note_wait(const struct pld__rank *rk);
/* Fails, at the scope's file:line, if per-device function `fn_name` of
 * `rank` returned with its manual scope open (levels.c, after it returns). */
void pld__graph_check_closed(int rank, const char *fn_name);

struct pld__trace;
struct pld_backend;

/* Each module's share of the run, private to its file. */
struct pld__racer;          /* races.c */
struct pld__deadlock_state; /* deadlock.c */
struct pld__host_writes;    /* host_writes.c */
struct pld__sparse;         /* sparse.c */
struct pld__async;          /* async.c */
struct pld__graph;          /* taskgraph.c */
struct pld__gm_share;       /* gm_share.c */

/* The state of the (single) run in progress.  pld_run zeroes it at the
 * start and frees what every module hung off it in one place at the end,
 * so nothing of one run leaks into the next. */
struct pld__run {
    const pld_config *cfg;
    const struct pld_backend *be;
    const int *self_at; /* be->self_at, for pld__self below */
    int P;
    struct pld__rank *ranks;
    struct pld__device host_dev; /* dispatch cost lives on the host */
    struct pld__wbuf *wbufs, *wbufs_tail;
    struct pld__group *groups;      /* the groups made by pld_group_* (group.c) */
    int world_seen, world_fresh;    /* as a group's seen and fresh, for the world's window */
    int domains, domains_allocated; /* pld_run_stats' (persist.c) */
    uint64_t window_bytes;          /* pld_run_stats': dense window copies made (wbuf.c) */
    int nwbufs;
    int64_t window_size;
    int error; /* first error code, 0 if none */
    int deadlocked;
    uint64_t bytes_moved;
    uint64_t transfers; /* inter-rank transfers, signals included */
    /* the ops' time by trust kind (trust.c), on a timed backend: seconds
     * summed over ranks, and the weakest label seen (-1: no such op) */
    double trust_op_s[PLD__TRUST_KINDS];
    signed char trust_label[PLD__TRUST_KINDS];
    double end_time;
    struct pld__trace *trace;
    /* has any rank called pld_record_begin in this run?  Set once, never
     * cleared: it lets every op of a run that records nothing skip asking
     * which rank it is (events.c) */
    int any_recording;
    char platform_desc[PLD__PLATFORM_DESC]; /* for the summary line */
    int races_mode;                         /* enum pld_races, resolved */
    int timed_out;                          /* a wait passed --wait-timeout (not a full deadlock) */
    int notifiers_unknown;                  /* the deadlock report cannot say who notified a cell */
    struct pld_guard *host_guard;           /* the host orchestrator's innermost armed guard */
    struct pld__racer *racer; /* the race detector's clocks and records; NULL when off */
    struct pld__deadlock_state *deadlock; /* who last notified each dense cell, or NULL */
    struct pld__host_writes *host_writes; /* what this process's rank stored in host tensors */
    struct pld__sparse *sparse;           /* the sparse windows, NULL when none */
    struct pld__gm_share *gm;             /* each device's shared GM, NULL until shared */
    /* The task graphs' part of a deadlock report: pld__graph_stuck and
     * pld__graph_report (taskgraph.c), set by pld_run.  Hooks, so that the
     * deadlock report, below the API, never names the API file. */
    int (*graph_stuck)(const struct pld__run *R, int rank);
    int (*graph_report)(const struct pld__run *R, int rank);
};

/* The run in progress, or NULL outside pld_run(). */
extern struct pld__run *pld__R;

/* Who is executing: a rank >= 0, PLD__HOST for the host orchestrator, or
 * PLD__NOBODY outside a run. */
#define PLD__HOST   (-1)
#define PLD__NOBODY (-2)
int pld__self_ask(void);
/* Inline, and a read where the backend keeps its answer (self_at):
 * pld__self() is asked some 50 times per rank and round of a ring
 * allreduce. */
inline int pld__self(void)
{
    const struct pld__run *R = pld__R;
    return R && R->self_at ? *R->self_at : pld__self_ask();
}
/* The executing rank's clock, in seconds since the run started (model
 * seconds on sim); 0 outside a run.  state.c. */
double pld__now(void);

/* ---- dtypes (dtype.c): elements, conversions, rows ---- */

/* Element get/set as double (integers converted exactly up to 2^53). */
double pld__elem_get(pl_dtype dt, const void *p);
void pld__elem_set(pl_dtype dt, void *p, double v);
/* Scalar conversions for 16-bit floats. */
float pld__half_to_float(uint16_t h);
uint16_t pld__float_to_half(float f);
float pld__bf16_to_float(uint16_t h);
uint16_t pld__float_to_bf16(float f);
/* FP8 codes to float and back: E4M3FN rounds to nearest even and saturates
 * at +-448; E8M0 drops the sign and rounds half up (torch's conversions). */
float pld__fp8e4m3fn_to_float(uint8_t c);
uint8_t pld__float_to_fp8e4m3fn(float f);
float pld__fp8e8m0_to_float(uint8_t c);
uint8_t pld__float_to_fp8e8m0(float f);
/* Whether an atomic Add may target `dt`: not INT64 (no 64-bit atomic add
 * on the vector unit) and not FP8 (no FP8 arithmetic). */
int pld__dtype_can_add(pl_dtype dt);

/* One row of a region copy in plain memory: `bytes` bytes from src to dst
 * (op ADD adds element by element, atomically).  a sparse window's
 * rows reach it through pld__sparse_row, which resolves their lines. */
void pld__row_apply(pl_dtype dt, unsigned char *dst, const unsigned char *src, size_t bytes,
                    pl_atomic op);

/* Set in every process but the first of a distributed run: the host runs
 * everywhere, so its messages are printed once, by process 0. */
extern int pld__mute_host;

/* Reports an API error at the user's file:line for `op` and ends the run
 * (never returns).  The message is formatted like
 *   file:line: rank 1: pld_tile_remote_load: peer 5 out of range [0, 2)
 * Outside a run it exits the process with pld_exit_code(code). */
_Noreturn void pld__fail(int code, const char *file, int line, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Fails with "WHAT is not a tensor (uninitialised?)" at file:line for
 * `op` when `t` was never made (its dtype is 0): the check every call that
 * takes a tensor makes first. */
void pld__check_tensor(const char *file, int line, const char *op, const char *what, pl_tensor t);
/* pld__fail with a va_list, and a `preface` (or NULL) printed before the
 * line: a front end's traceback (pld_embed_fail). */
_Noreturn void pld__vfail(int code, const char *file, int line, const char *op, const char *preface,
                          const char *fmt, va_list ap);

/* The front end's names for ops in error lines, or NULL (pld_embed.h). */
extern const char *(*pld__op_rename)(const char *op);
/* `op` as the user writes it: the front end's name if it has one (error.c);
 * every message that names an op (errors, races, deadlocks) shows this. */
const char *pld__op_shown(const char *op);

/* Called by a backend just before it leaves the calling rank (or the host)
 * because the run is ending: if the caller armed a pld_guard
 * (pld_embed.h), disarms it and siglongjmps there instead; otherwise
 * returns, and the backend leaves as it does for C programs. */
void pld__guard_escape(void);

/* Set by the fuzz targets: configuration errors are returned, not printed. */
/* interrupt.c: during a run, SIGINT and SIGTERM print one line and end the
 * process with the signal (130 for Ctrl-C); arm again after SimGrid starts
 * (it installs its own); disarm puts the program's handlers back. */
void pld__interrupt_arm(void);
void pld__interrupt_disarm(void);
extern int pld__config_error_silent;

/* Prints a configuration-time error ("pldsim: ...") and returns `code`. */
int pld__config_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Check one --cfg=KEY:VALUE or --log=SPEC before it may reach SimGrid
 * (simgrid_settings.c): 0, or PLD_EUSAGE after one message naming `from`. */
int pld__check_simgrid_cfg(const char *key_value, const char *from);
int pld__check_simgrid_log(const char *spec, const char *from);
/* pld_config_set_devices, naming `from` (the flag or PLD_DEVICE) in its
 * one message (run.c). */
int pld__config_set_devices(pld_config *cfg, const char *list, const char *from);
/* 1 if fopen(path, "w") would succeed, checked without creating the file;
 * else 0 with what stands in the way in `why` ("it is a directory",
 * "directory /x does not exist"), for the flags that name an output file
 * (error.c). */
int pld__can_write(const char *path, char *why, size_t len);

/* Checks that the caller runs where `op` is allowed; fails otherwise. */
enum pld__level { PLD__LVL_HOST = 1, PLD__LVL_DEVICE = 2, PLD__LVL_KERNEL = 4 };
void pld__require_level(const char *file, int line, const char *op, unsigned allowed);

/* The executing rank's state; fails unless inside a kernel.  It leaves
 * the cube's pipes as they are: an op prices itself through
 * pld__op_rank (cost.h), which settles them. */
struct pld__rank *pld__kernel_rank(const char *file, int line, const char *op);

/* Formats a shape as "[1, 64]" into buf (returns buf). */
const char *pld__shape_str(pl_shape s, char *buf, size_t len);

/* Whether a region, `shape` at `offsets`, lies inside `full`: the one
 * bounds test of every accessor and transfer, in arithmetic that cannot
 * overflow (offsets near INT64_MAX once wrapped past the end and passed).
 * Returns PLD__REGION_INSIDE, or why not with *dim the first dimension at
 * fault (-1 for a rank mismatch).  Pure: tests/fuzz/fuzz_region.c checks it
 * against 128-bit arithmetic.  shape.c. */
enum pld__region_fit {
    PLD__REGION_INSIDE,
    PLD__REGION_OFFSETS_RANK, /* offsets.ndim != full.ndim */
    PLD__REGION_SHAPE_RANK,   /* shape.ndim != full.ndim */
    PLD__REGION_EMPTY,        /* a shape dim <= 0 */
    PLD__REGION_NEGATIVE,     /* an offset < 0 */
    PLD__REGION_PAST_END,     /* offset + extent > the dim */
};
enum pld__region_fit pld__region_fit(pl_shape full, pl_shape offsets, pl_shape shape, int *dim);

/* Checks offsets+shape against a tensor's shape (pld__region_fit); fails
 * with a message that names `what` (e.g. "target") and the first offending
 * dimension. */
void pld__check_region(const char *file, int line, const char *op, const char *what, pl_tensor t,
                       pl_shape offsets, pl_shape shape);

/* Bytes of `shape` elements of `es` bytes each, or INT64_MAX when that does
 * not fit in 64 bits, so that every "does it fit" test against a buffer or
 * the UB refuses it instead of passing a wrapped size.  shape.c. */
int64_t pld__shape_bytes(pl_shape shape, size_t es);

/* The part of a `shape` tile that a load at `offsets` of `t` reads: all of
 * it when `valid` has no dims, else `valid` (same rank, each dim 1..shape),
 * cut to the source's edge when `clamp`.  Fails, naming `op`, on a bad valid
 * shape or (through pld__check_region, naming `t` as `what`) a read out
 * of bounds.  tile.c. */
pl_shape pld__load_extent(const char *file, int line, const char *op, const char *what, pl_tensor t,
                          pl_shape offsets, pl_shape shape, pl_shape valid, int clamp);

/* pl_load, naming `op` in its messages (a call that loads on the user's
 * behalf, as pld_tensor_remote_store does).  tile.c. */
pl_tile pld__load_as(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                     pl_shape shape, struct pl_load_kw kw);

/* pl_load into `dst` (`shape` elements of t's dtype, zeroed past the
 * valid part, which *valid gets) instead of a UB tile: a tile of another
 * buffer that the front end keeps (the cube unit's L1).  Same checks but
 * the UB row rule, same cost, race record and trace line.  Returns 0 when
 * there are no values to copy (--no-data and a window), else 1.  tile.c. */
int pld__load_into(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                   pl_shape shape, struct pl_load_kw kw, void *dst, pl_shape *valid);

/* pl_store of values the front end keeps outside UB (the cube unit's L0C):
 * `data` (NULL: none, --no-data) holds `shape` elements of `dtype`, whose
 * leading `valid` part is written.  Same checks, race record and trace
 * line as pl_store; the cost is a GM store, or with `drain` a drain of
 * L0C.  tile.c. */
void pld__store_from(const char *file, int line, const char *op, pl_dtype dtype, const void *data,
                     pl_shape shape, pl_shape valid, pl_shape offsets, pl_tensor t,
                     struct pl_store_kw kw, int drain);

/* pl_store and pld_tile_remote_store naming `op` in their messages (the
 * front end's tensor-level ops that lower to them).  tile.c, rma.c. */
pl_tensor pld__store_as(const char *file, int line, const char *op, pl_tile tile, pl_shape offsets,
                        pl_tensor t, struct pl_store_kw kw);
void pld__remote_store_as(const char *file, int line, const char *op, pl_tile tile,
                          pld_dtensor target, struct pld_remote_store_kw kw);
/* pl_tile_get naming `op` (the front end's pl.read of a tile).  tile.c. */
double pld__tile_get_as(const char *file, int line, const char *op, pl_tile t, int64_t flat);

/* Zeroes a tile's elements outside its valid part, so they read as zeros
 * (hardware leaves them as they were; a simulation should not).  tile.c. */
void pld__tile_zero_tail(pl_tile *t);

/* Are two shapes the same (rank and every dim)?  1 or 0.  shape.c. */
int pld__shape_eq(pl_shape a, pl_shape b);

/* Fails, at the put_async's file:line, if the running kernel of `rk` has
 * a put_async that was never waited (async.c; called at the kernel's end). */
void pld__async_kernel_exit(struct pld__rank *rk);
/* Frees every rank's put_async tables (run.c's teardown), or one rank's. */
void pld__async_free(struct pld__run *R);
void pld__async_release(struct pld__rank *rk);
/* Communication groups (group.c).  Ranks inside the API are world ranks;
 * a peer argument is a rank of the window's group, translated here. */
/* The world rank of group rank `peer` of window view `t`'s group: fails,
 * naming `op`, if .peer is missing or outside [0, group size). */
int pld__peer_rank(const char *file, int line, const char *op, const pl_tensor *t, int64_t peer);
/* Fails unless the executing rank belongs to window view `t`'s group
 * (host tensors always pass); `what` names the argument. */
void pld__check_member(const char *file, int line, const char *op, const char *what,
                       const pl_tensor *t);
/* The group rank of world rank `world` in `b`'s group (-1 if not a member). */
int pld__group_rank_of(const struct pld__wbuf *b, int world);
/* The size of `b`'s group (P for the world). */
int pld__group_n(const struct pld__wbuf *b);
/* Frees the run's groups (run.c's teardown). */
void pld__groups_free(struct pld__run *R);

/* Kept windows (persist.c).  A new buffer: counts its comm domain, and
 * restores its bytes from cfg->keep_windows (unless reset); at the end of
 * the run (run.c's teardown), every buffer's bytes go to the store. */
void pld__kept_restore(const char *file, int line, const char *op, struct pld__wbuf *b);
void pld__kept_save(struct pld__run *R);

/* Dynamic dims (shape.c).  Their names outlive runs (pl_dynamic may be
 * called before pld_run); this unbinds them for a new run. */
void pld__dynamic_reset(void);

/* Builtin models (models_builtin.c, generated from models/\*.model). */
struct pld__builtin_model {
    const char *name;
    const char *text;
};
extern const struct pld__builtin_model pld__builtin_models[];

#endif /* PLD_INTERNAL_H */
