/* pld.h: the distributed vocabulary (upstream pypto.language.distributed).
 *
 * N devices ("ranks") each own a symmetric window.  Kernels move data with
 * one-sided remote_load/remote_store and put/get, and synchronise with
 * notify/wait on INT32 signal cells.  Calls take keyword arguments as C
 * designated initialisers, e.g.
 *
 *     pld_system_wait(sig, .offsets = PL_IDX(src, 0), .expected = 1,
 *                     .cmp = PLD_WAIT_GE);
 *
 * A keyword that upstream requires (peer, offsets, value, op, expected, cmp,
 * shape, src) is an error when left out, never a silent zero.
 *
 * Levels mirror upstream: the host orchestrator (given to pld_run) allocates
 * windows and calls pld_dispatch(r, fn, args) for each rank; the per-device
 * orchestrator `fn` calls kernels with pl_incore(kernel, ...); kernels use
 * tiles and every call below.  Errors end the run as described in pl.h.
 */
#ifndef PLD_PLD_H
#define PLD_PLD_H

#include <pld/pl.h>
#include <pld/pld_run.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A per-rank view of a window buffer (upstream DistributedTensor).  It is a
 * pl_tensor whose `win` is set; cross-rank calls reject plain host tensors. */
typedef pl_tensor pld_dtensor;

/* A window buffer (upstream's Ptr token): a slot of every rank's window. */
typedef struct pld_buffer {
    struct pld__wbuf *buf;
} pld_buffer;

/* The communication context of a window domain (upstream CommCtx). */
typedef struct pld_comm_ctx {
    int rank;   /* the executing rank, or -1 when taken on the host */
    int nranks; /* ranks in the domain */
} pld_comm_ctx;

/* ------------------------------------------------------------------ */
/* System                                                              */

/* Number of ranks of the run.  Host orchestrator only (an error in a
 * kernel or per-device function, as upstream's parser rejects it). */
#define pld_world_size() pld__world_size(PLD__SRC)
int64_t pld__world_size(const char *file, int line);

/* The communication context of the domain (comm group) that window view
 * `dt` belongs to: on a device, its rank in the group and the group's size;
 * on the host, rank -1.  Errors: a plain host tensor; a device that is not
 * in the view's group. */
#define pld_get_comm_ctx(dt) pld__get_comm_ctx(PLD__SRC, (dt))
pld_comm_ctx pld__get_comm_ctx(const char *file, int line, pld_dtensor dt);

/* The executing rank, in [0, nranks).  Kernel only, like upstream. */
#define pld_rank(ctx) pld__rank(PLD__SRC, (ctx))
int pld__rank(const char *file, int line, pld_comm_ctx ctx);

/* The number of ranks in the context's domain.  Kernel only. */
#define pld_nranks(ctx) pld__nranks(PLD__SRC, (ctx))
int pld__nranks(const char *file, int line, pld_comm_ctx ctx);

/* ------------------------------------------------------------------ */
/* Communication groups                                                */

/* A communication group (upstream's comm domain): the ranks that share the
 * windows of the buffers allocated in it.  Upstream's compiler puts a
 * buffer in the group of the devices its views are dispatched to (all of
 * them for `pl.range(pld.world_size())`, devices N..M-1 for
 * `pl.range(N, M)`); in C the host says so with .group at allocation.  In a
 * group of n ranks, a window view's comm context has nranks n and rank i on
 * its i-th member (members in increasing world-rank order), and the peers of
 * notify, remote_load/store, put/get and the collectives are group ranks
 * in [0, n).  The zero value {0} is the whole world.  Buffers of one group
 * share that group's window (their slots are laid out one after the other
 * from offset 0); another group's window is another address space, also on
 * a rank that belongs to both. */
typedef struct pld_group {
    struct pld__group *g; /* NULL: the whole world */
} pld_group;

/* pld_group_range(first, end): the group of world ranks first .. end-1
 * (upstream: dispatching with device=r over pl.range(first, end)).  Host
 * only.  The same ranks always give the same group.  Errors: an empty
 * range, or one that does not fit in the world ("larger than the world of
 * P ranks"). */
#define pld_group_range(first, end) pld__group_range(PLD__SRC, (int64_t)(first), (int64_t)(end))
pld_group pld__group_range(const char *file, int line, int64_t first, int64_t end);

/* pld_group_of(n, ranks): the group of the n world ranks ranks[0..n-1], in
 * any order (a rank's group rank is its place in increasing order).  Host
 * only.  Errors: n < 1, a rank outside [0, P), a rank listed twice. */
#define pld_group_of(n, ranks) pld__group_of(PLD__SRC, (int)(n), (ranks))
pld_group pld__group_of(const char *file, int line, int n, const int *ranks);

/* The number of ranks in `g` (P for the world).  Any level. */
#define pld_group_size(g) pld__group_size(PLD__SRC, (g))
int pld__group_size(const char *file, int line, pld_group g);

/* The world rank of rank i of `g` (i itself for the world).  Any level.
 * Errors: i outside [0, pld_group_size(g)). */
#define pld_group_member(g, i) pld__group_member(PLD__SRC, (g), (int64_t)(i))
int pld__group_member(const char *file, int line, pld_group g, int64_t i);

/* The comm group of window view `dt` ({0}: the world).  Any level.
 * Errors: `dt` is a host tensor or not a tensor. */
#define pld_window_group(dt) pld__window_group(PLD__SRC, (dt))
pld_group pld__window_group(const char *file, int line, pld_dtensor dt);

/* ------------------------------------------------------------------ */
/* Windows                                                             */

struct pld_alloc_kw {
    pl_dtype dtype;   /* shape form: element type (required there) */
    const char *name; /* for messages and traces; default "buf<k>" */
    pld_group group;  /* the comm group whose window holds it; default the world */
};

/* pld_alloc_window_buffer(bytes[, .name = "sig"][, .group = g]) or
 * pld_alloc_window_buffer(PL_SHAPE(...), PL_FP32[, .name = "data"]):
 * reserves a slot of that many bytes (shape form: numel * dtype size) in the
 * window of every rank of .group (default: every rank), zero-filled, rounded
 * up to 32 bytes.  Host only.  Errors: a
 * size <= 0, a shape form without dtype, a byte form with one.  Note the byte
 * form takes BYTES: pld_alloc_window_buffer(nr) is nr bytes, not nr ints. */
#define pld_alloc_window_buffer(first, ...)                                                        \
    pld__alloc_window_buffer(PLD__SRC,                                                             \
                             _Generic((first), pl_shape                                            \
                                      : pld__alloc_shape_arg, default                              \
                                      : pld__alloc_bytes_arg)(first),                              \
                             PLD__KW(struct pld_alloc_kw, __VA_ARGS__))
typedef struct pld__alloc_arg {
    int is_shape;
    pl_shape shape;
    int64_t bytes;
} pld__alloc_arg;
pld__alloc_arg pld__alloc_shape_arg(pl_shape s);
pld__alloc_arg pld__alloc_bytes_arg(int64_t bytes);
pld_buffer pld__alloc_window_buffer(const char *file, int line, pld__alloc_arg what,
                                    struct pld_alloc_kw kw);

/* A typed per-rank view of `buf` (upstream pld.window).  The view must fit
 * in the buffer (an error otherwise, which upstream does not check). */
#define pld_window(buf, shape, dtype) pld__window(PLD__SRC, (buf), (shape), (dtype))
pld_dtensor pld__window(const char *file, int line, pld_buffer buf, pl_shape shape, pl_dtype dtype);

/* ------------------------------------------------------------------ */
/* Signals                                                             */

/* How a notify changes the peer's cell.  0 is "not given" (an error). */
typedef enum pld_notify_op {
    PLD_NOTIFY_ATOMIC_ADD = 1, /* cell += value (upstream AtomicAdd) */
    PLD_NOTIFY_SET = 2,        /* cell = value (upstream Set) */
} pld_notify_op;

/* How a wait compares the local cell.  0 is "not given" (an error). */
typedef enum pld_wait_cmp {
    PLD_WAIT_EQ = 1, /* cell == expected */
    PLD_WAIT_GE = 2, /* cell >= expected */
} pld_wait_cmp;

struct pld_notify_kw {
    int64_t peer;
    pl_shape offsets;
    int64_t value;
    pld_notify_op op;
};
/* pld_system_notify(target, .peer, .offsets, .value, .op): updates INT32 cell
 * `offsets` of the PEER's copy of window view `target`.  Everything this rank
 * wrote before is visible to the peer once a wait that sees this update
 * returns (release/acquire).  Kernel only.  Errors: missing keyword, peer out
 * of range, target not INT32, offsets out of bounds, value outside INT32. */
#define pld_system_notify(target, ...)                                                             \
    pld__notify(                                                                                   \
        PLD__SRC, (target),                                                                        \
        PLD__KW(struct pld_notify_kw, .peer = PLD__MISSING, .value = PLD__MISSING, __VA_ARGS__))
void pld__notify(const char *file, int line, pld_dtensor target, struct pld_notify_kw kw);

struct pld_wait_kw {
    pl_shape offsets;
    int64_t expected;
    pld_wait_cmp cmp;
};
/* pld_system_wait(signal, .offsets, .expected, .cmp): blocks until the LOCAL
 * INT32 cell satisfies the comparison.  Kernel only.  A wait that can never
 * be satisfied ends the run with a deadlock report.  Errors: missing
 * keyword, signal not INT32, offsets out of bounds. */
#define pld_system_wait(signal, ...)                                                               \
    pld__wait(PLD__SRC, (signal),                                                                  \
              PLD__KW(struct pld_wait_kw, .expected = PLD__MISSING, __VA_ARGS__))
void pld__wait(const char *file, int line, pld_dtensor signal, struct pld_wait_kw kw);

/* ------------------------------------------------------------------ */
/* Tile-level RMA                                                      */

struct pld_remote_load_kw {
    int64_t peer;
    pl_shape offsets;
    pl_shape shape;
    pl_shape valid_shape; /* pull only this leading part of `shape` (a ragged tail) */
};
/* pld_tile_remote_load(target, .peer, .offsets, .shape[, .valid_shape]):
 * pulls a region of the peer's copy of `target` into a new local tile;
 * completes before the kernel continues and carries no signal.  With
 * .valid_shape only that part moves, as pl_load's.  Errors: missing keyword,
 * peer out of range, region (offsets + valid part) out of bounds, a bad
 * valid_shape, a row not a multiple of 32 bytes, UB full. */
#define pld_tile_remote_load(target, ...)                                                          \
    pld__remote_load(PLD__SRC, (target),                                                           \
                     PLD__KW(struct pld_remote_load_kw, .peer = PLD__MISSING, __VA_ARGS__))
pl_tile pld__remote_load(const char *file, int line, pld_dtensor target,
                         struct pld_remote_load_kw kw);

struct pld_remote_store_kw {
    int64_t peer;
    pl_shape offsets;
    pl_atomic atomic;
};
/* pld_tile_remote_store(tile, target, .peer, .offsets[, .atomic]): pushes a
 * local tile into the peer's copy of `target` at `offsets` (atomic Add:
 * peer += tile).  Completes before the kernel continues; no signal.  Errors:
 * as remote_load, plus dtype mismatch and Add on INT64. */
#define pld_tile_remote_store(tile, target, ...)                                                   \
    pld__remote_store(PLD__SRC, (tile), (target),                                                  \
                      PLD__KW(struct pld_remote_store_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__remote_store(const char *file, int line, pl_tile tile, pld_dtensor target,
                       struct pld_remote_store_kw kw);

/* pld_tensor_remote_store(src, target, .peer, .offsets[, .atomic]): the
 * tensor-level remote_store (upstream's pld.tensor.remote_store): pushes the
 * whole of `src`, a local tensor-level value (a host tensor, or a slice of
 * one), into the peer's copy of window view `target` at `offsets` (atomic
 * Add: peer += src).  As upstream lowers it: a load of `src` into a UB tile
 * (GM->UB time at HBM bandwidth; the tile lives until the push ends) and one
 * pld_tile_remote_store of that tile, traced as those two ops.  Completes
 * before the kernel continues; no signal.  Errors: missing keyword, peer out
 * of range, `target` not a window view, `src` a window view (a
 * window-to-window push is pld_tensor_put's), dtype mismatch, the region
 * (offsets + src's shape) outside `target`, Add on INT64, a row of `src`
 * not a multiple of 32 bytes, UB full. */
#define pld_tensor_remote_store(src, target, ...)                                                  \
    pld__tensor_remote_store(                                                                      \
        PLD__SRC, (src), (target),                                                                 \
        PLD__KW(struct pld_remote_store_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__tensor_remote_store(const char *file, int line, pl_tensor src, pld_dtensor target,
                              struct pld_remote_store_kw kw);

/* ------------------------------------------------------------------ */
/* Tensor-level point-to-point                                         */

struct pld_p2p_kw {
    int64_t peer;
    pl_tensor src;        /* put: local source (window view or host tensor); get: the window view
                             to pull from the peer */
    pl_shape dst_offsets; /* region form: all three of these, or none */
    pl_shape src_offsets;
    pl_shape shape;
    pl_atomic atomic;   /* put only */
    int64_t chunk_rows; /* staging tile rows, 0 = whole region */
    int64_t chunk_cols; /* staging tile columns, 0 = whole region */
    int pipeline;       /* double-buffer the staging tile; needs both chunks */
};
/* pld_tensor_put(dst, .peer, .src[, .dst_offsets, .src_offsets, .shape]
 *                [, .atomic, .chunk_rows, .chunk_cols, .pipeline]):
 * synchronous push of the local `src` into the peer's copy of window view
 * `dst`, bounced through a UB staging tile.  With no region the whole tensors
 * are copied and their shapes must match.  Put to self is legal.  Errors:
 * missing peer or src, a partial region, out of bounds, dtype mismatch,
 * pipeline without both chunks. */
#define pld_tensor_put(dst, ...)                                                                   \
    pld__put(PLD__SRC, (dst), PLD__KW(struct pld_p2p_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__put(const char *file, int line, pld_dtensor dst, struct pld_p2p_kw kw);

/* pld_tensor_get(dst, .peer, .src[, region and chunk keywords]): synchronous
 * pull from the peer's copy of window view `src` into the local `dst` (a
 * window view or a host tensor).  The same rules as put; no atomic. */
#define pld_tensor_get(dst, ...)                                                                   \
    pld__get(PLD__SRC, (dst), PLD__KW(struct pld_p2p_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__get(const char *file, int line, pl_tensor dst, struct pld_p2p_kw kw);

struct pld_tile_p2p_kw {
    int64_t peer;
    pl_tensor src;
    pl_tile stage;        /* the staging tile: each chunk is its shape */
    pl_tile stage2;       /* optional: a second stage of the same shape, double-buffered */
    pl_shape dst_offsets; /* region form: all three of these, or none */
    pl_shape src_offsets;
    pl_shape shape;
    pl_atomic atomic; /* put only */
};
/* pld_tile_put(dst, .peer, .src, .stage[, .stage2][, .dst_offsets,
 *              .src_offsets, .shape][, .atomic]): the tile-level put,
 * staged through the caller's own UB tiles (upstream's pld.tile.put, what
 * the compiler makes of pld.tensor.put): chunks of .stage's shape (rows:
 * its leading dims, columns: its last), double-buffered with .stage2.  The
 * stages' contents afterwards are unspecified.  Costs and errors as
 * pld_tensor_put's, plus a stage of another dtype and mismatched stages. */
#define pld_tile_put(dst, ...)                                                                     \
    pld__tile_put(PLD__SRC, (dst),                                                                 \
                  PLD__KW(struct pld_tile_p2p_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__tile_put(const char *file, int line, pld_dtensor dst, struct pld_tile_p2p_kw kw);

/* pld_tile_get(dst, .peer, .src, .stage[, .stage2][, region]): the
 * tile-level get, staged like pld_tile_put; no atomic. */
#define pld_tile_get(dst, ...)                                                                     \
    pld__tile_get(PLD__SRC, (dst),                                                                 \
                  PLD__KW(struct pld_tile_p2p_kw, .peer = PLD__MISSING, __VA_ARGS__))
void pld__tile_get(const char *file, int line, pl_tensor dst, struct pld_tile_p2p_kw kw);

/* ------------------------------------------------------------------ */
/* Asynchronous puts (SDMA)                                            */

/* A kernel's SDMA session: what put_async issues to and
 * wait_async_event drains.  Valid in the kernel that made it. */
typedef struct pld_async_session {
    int id;              /* 1.. within the rank's kernel; 0: not a session */
    int rank;            /* the rank that made it */
    uint64_t epoch;      /* the kernel it belongs to */
    int sync_id;         /* 0..7 */
    int64_t block_bytes; /* the engine's transfer block, bytes */
} pld_async_session;

/* The completion handle of one put_async. */
typedef struct pld_async_event {
    int64_t id; /* 1.. within the rank's kernel; 0: not an event */
    int session;
    int rank;
} pld_async_event;

struct pld_async_session_kw {
    int64_t sync_id;     /* 0..7, default 0 */
    int64_t block_bytes; /* > 0, or 0 for the default of 1 MiB */
};
/* pld_system_async_session([.sync_id][, .block_bytes]): opens an SDMA
 * session in the running kernel (upstream's pld.system.async_session).
 * Free in time.  Errors: outside a kernel, sync_id outside 0..7, a
 * negative block_bytes. */
#define pld_system_async_session(...)                                                              \
    pld__async_session(PLD__SRC, PLD__KW(struct pld_async_session_kw, .sync_id = 0, __VA_ARGS__))
pld_async_session pld__async_session(const char *file, int line, struct pld_async_session_kw kw);

struct pld_put_async_kw {
    int64_t peer;
    pl_tensor src;             /* local source: a window view or a host tensor */
    pld_async_session session; /* from pld_system_async_session in this kernel */
    pl_shape dst_offsets;      /* region form: all three of these, or none */
    pl_shape src_offsets;
    pl_shape shape;
};
/* pld_tensor_put_async(dst, .peer, .src, .session[, .dst_offsets,
 * .src_offsets, .shape]): starts copying `src` into the peer's copy of
 * window view `dst` on one of the device's DMA engines and returns at once
 * (upstream's pld.tensor.put_async): the kernel computes while the bytes
 * move.  The core pays sdma_issue; an engine then pays sdma_lat per block of
 * .session's block_bytes and moves the bytes over the route (at most at
 * sdma_bw); transfers beyond sdma_engines queue for an engine
 * (docs/models.md).  No staging tile, no atomic.  The bytes are in `dst`
 * once pld_system_wait_async_event returns for the event, and the event
 * must be waited before the kernel ends; a notify that publishes the bytes
 * must come after that wait (the race detector holds the write until
 * then).  Errors: those of pld_tensor_put, a region that is not logically
 * 1-D (every dimension but the last 1), a session not of this kernel. */
#define pld_tensor_put_async(dst, ...)                                                             \
    pld__put_async(PLD__SRC, (dst),                                                                \
                   PLD__KW(struct pld_put_async_kw, .peer = PLD__MISSING, __VA_ARGS__))
pld_async_event pld__put_async(const char *file, int line, pld_dtensor dst,
                               struct pld_put_async_kw kw);

/* pld_system_wait_async_event(event, session): blocks the kernel until the
 * event's transfer has landed at the peer, then returns 1 (upstream's done
 * flag); costs one poll (poll_lat) after that.  Errors: outside a kernel, an
 * event or session not of this kernel, an event of another session, an
 * event waited twice. */
#define pld_system_wait_async_event(event, session)                                                \
    pld__wait_async_event(PLD__SRC, (event), (session))
int pld__wait_async_event(const char *file, int line, pld_async_event event,
                          pld_async_session session);

/* ------------------------------------------------------------------ */
/* Collectives                                                         */

/* pld_tensor_barrier(signal): every rank must call it with the same INT32
 * signal of shape [P] or [P,1].  Lowers to notify/wait only: the k-th barrier
 * of a call adds 1 to each peer's cell [me], waits Ge k on every [src], and an
 * epilogue subtracts the total, so the signal returns to zero and can be
 * reused.  Returns `signal`.  Errors: wrong shape or dtype. */
#define pld_tensor_barrier(signal) pld__tensor_barrier(PLD__SRC, (signal))
pld_dtensor pld__tensor_barrier(const char *file, int line, pld_dtensor signal);

/* How collectives combine values (upstream ReduceOp).  0 means Sum. */
typedef enum pld_reduce_op {
    PLD_REDUCE_SUM = 1,
    PLD_REDUCE_MAX = 2,
    PLD_REDUCE_MIN = 3,
    PLD_REDUCE_PROD = 4,
} pld_reduce_op;

/* Which allreduce lowering (upstream mode="mesh"|"ring").  0 means mesh. */
typedef enum pld_allreduce_mode {
    PLD_ALLREDUCE_MESH = 1, /* signal [P] or [P,1]; chunks of at most 16 KiB */
    PLD_ALLREDUCE_RING = 2, /* signal [2(P-1), P]; 2(P-1) neighbour rounds */
} pld_allreduce_mode;

struct pld_allreduce_kw {
    pld_reduce_op op;
    pld_allreduce_mode mode;
    int64_t core_num; /* host orchestrator, mesh: vector cores per rank that split the
                         payload (default 1); the signal is then [P, >= core_num] */
};
/* pld_tensor_allreduce(target, signal[, .op][, .mode]): every rank's
 * `target` (FP32 or FP16, any shape) becomes the element-wise reduction of
 * all ranks' targets.  Every rank must make the same call.  Mesh: a ready
 * barrier, then per chunk of at most 16 KiB a remote_load from every rank
 * (accumulated in rank order, so every rank gets the same bits), a read-done
 * barrier, and the store.  Ring: reduce-scatter then allgather around the
 * ring, each round with a ready and a read-complete handshake.  Returns
 * `target`.  Errors: a signal shape that does not match the mode (the message
 * gives the expected one), another dtype, a bad op or mode. */
#define pld_tensor_allreduce(target, signal, ...)                                                  \
    pld__tensor_allreduce(PLD__SRC, (target), (signal),                                            \
                          PLD__KW(struct pld_allreduce_kw, __VA_ARGS__))
pld_dtensor pld__tensor_allreduce(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_allreduce_kw kw);

struct pld_broadcast_kw {
    int64_t root;
};
/* pld_tensor_broadcast(target, signal, .root): after a barrier every rank
 * pulls root's `target` into its own (root stores its data before the call;
 * the others' contents are overwritten).  Signal [P] or [P,1].  Returns
 * `target`.  Errors: .root missing or outside [0, P). */
#define pld_tensor_broadcast(target, signal, ...)                                                  \
    pld__tensor_broadcast(PLD__SRC, (target), (signal),                                            \
                          PLD__KW(struct pld_broadcast_kw, .root = PLD__MISSING, __VA_ARGS__))
pld_dtensor pld__tensor_broadcast(const char *file, int line, pld_dtensor target,
                                  pld_dtensor signal, struct pld_broadcast_kw kw);

/* pld_tensor_allgather(local, target, signal): puts `local` ([1,S] or [S],
 * a host tensor or a window view) into row `me` of every rank's `target`
 * ([P,S] window view), then a barrier: target[src] is rank src's data.
 * Returns `target`.  Errors: shapes that do not match, `local` aliasing
 * `target`. */
#define pld_tensor_allgather(local, target, signal)                                                \
    pld__tensor_allgather(PLD__SRC, (local), (target), (signal))
pld_dtensor pld__tensor_allgather(const char *file, int line, pl_tensor local, pld_dtensor target,
                                  pld_dtensor signal);

struct pld_reduce_scatter_kw {
    pld_reduce_op op;
};
/* pld_tensor_reduce_scatter(target, signal[, .op]): `target` is [P,S] on
 * every rank; afterwards row `me` of rank me holds the reduction over ranks
 * of their row `me`.  Other rows are left as they were.  Returns `target`. */
#define pld_tensor_reduce_scatter(target, signal, ...)                                             \
    pld__tensor_reduce_scatter(PLD__SRC, (target), (signal),                                       \
                               PLD__KW(struct pld_reduce_scatter_kw, __VA_ARGS__))
pld_dtensor pld__tensor_reduce_scatter(const char *file, int line, pld_dtensor target,
                                       pld_dtensor signal, struct pld_reduce_scatter_kw kw);

/* pld_tensor_all_to_all(input, target, signal): row d of my `input` ([P,S])
 * goes to row `me` of rank d's `target` ([P,S] window view), then a
 * barrier: target[src] is what rank src sent me.  Returns `target`.
 * Errors: shapes that differ, `input` aliasing `target`. */
#define pld_tensor_all_to_all(input, target, signal)                                               \
    pld__tensor_all_to_all(PLD__SRC, (input), (target), (signal))
pld_dtensor pld__tensor_all_to_all(const char *file, int line, pl_tensor input, pld_dtensor target,
                                   pld_dtensor signal);

/* pld_tensor_all_to_all_v(input, target, signal, send_counts, recv_counts[, .core_num]):
 * the variable-count exchange (upstream's all_to_all_v, MPI_Alltoallv's
 * shape).  `input` and `target` are [P * MAX_RECV, S]; rows d*MAX_RECV.. of
 * my input are my block for rank d.  I set d's recv_counts[me] (INT32
 * window, [P] or [P, 1]) to min(send_counts[d], MAX_RECV), at least 0
 * (send_counts: INT32 [P] or [P, 1], host or window), and put that many
 * rows of the block into block `me` of d's `target` (upstream bounds the
 * transfer by the count); rows past a block's count keep what they held.
 * Then a barrier on `signal` ([P] or [P, 1], self-clearing).  Called by a
 * per-device function, it is the builtin kernel on that device.  Returns
 * `target`.  Errors: shapes or dtypes that
 * differ, a row count not a multiple of P, `input` aliasing `target`, bad
 * counts tensors. */
struct pld_all_to_all_v_kw {
    int64_t core_num; /* host orchestrator: the launch width L (default 1); see below */
};
/* With .core_num = L on the host orchestrator (or a per-device function),
 * the builtin kernel is launched B = L if L < P, else floor(L / P) * P,
 * blocks wide, one vector core each (upstream's RFC #2521): with L >= P,
 * K = B / P lanes carry each peer's rows, a contiguous share each; with
 * L < P, block b carries the peers d with d % B == b.  Lane 0 of a peer
 * sets its count; every lane puts its rows and adds one credit into
 * column (its block) of the peer's signal row [me], and the block that
 * serves a peer waits for that peer's matching credit and takes it back
 * (self-resetting lanes).  `signal` is then INT32 [P, stride] with
 * stride >= B, checked before any rank is dispatched; each call prints
 * one line with L, B and K. */
#define pld_tensor_all_to_all_v(input, target, signal, send_counts, recv_counts, ...)              \
    pld__tensor_all_to_all_v(PLD__SRC, (input), (target), (signal), (send_counts), (recv_counts),  \
                             PLD__KW(struct pld_all_to_all_v_kw, __VA_ARGS__))
pld_dtensor pld__tensor_all_to_all_v(const char *file, int line, pl_tensor input,
                                     pld_dtensor target, pld_dtensor signal, pl_tensor send_counts,
                                     pld_dtensor recv_counts, struct pld_all_to_all_v_kw kw);

/* ------------------------------------------------------------------ */
/* Levels                                                              */

typedef void (*pld__task_fn)(const void *args);

/* pld_dispatch(r, fn, args): from the host orchestrator, runs fn(&args) on
 * device r (upstream: fn(..., device=r)).  `args` is copied, so a loop may
 * reuse it.  Each device runs its tasks one at a time in dispatch order.
 * Charges the host's dispatch cost.  fn must take a pointer to args' type.
 * Errors: not on the host, r outside [0, P). */
#define pld_dispatch(r, fn, args)                                                                  \
    ((void)sizeof(((fn)(&(args))), 0),                                                             \
     pld__dispatch(PLD__SRC, (int64_t)(r), #fn, (pld__task_fn)(void (*)(void))(fn), &(args),       \
                   sizeof(args)))
void pld__dispatch(const char *file, int line, int64_t rank, const char *fn_name, pld__task_fn fn,
                   const void *args, size_t size);

/* pl_incore(kernel, args...): from a per-device orchestrator, runs
 * kernel(args...) on the device's vector core with a fresh UB arena.
 * Charges the kernel launch cost.  Errors: on the host, or nested. */
#define pl_incore(kernel, ...)                                                                     \
    (pld__incore_enter(PLD__SRC, #kernel), (kernel)(__VA_ARGS__), pld__incore_exit())
void pld__incore_enter(const char *file, int line, const char *kernel);
void pld__incore_exit(void);

/* Task graphs and deferred completion: <pld/pld_tasks.h>, which needs the
 * declarations above. */
#include <pld/pld_tasks.h>

#ifdef __cplusplus
}
#endif
#endif /* PLD_PLD_H */
