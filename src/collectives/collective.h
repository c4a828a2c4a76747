/* collective.h: what the builtin collectives share.  Every builtin is
 * written on the public primitives only (notify, wait, remote_load, put,
 * get, local ops: here through their pld__ entry points so that errors and
 * trace lines name the user's call), so every backend runs the same code. */
#ifndef PLD_COLLECTIVE_H
#define PLD_COLLECTIVE_H

#include "../core/internal.h"

/* One call of a builtin on one rank. */
struct pld__coll {
    const char *file; /* the user's call */
    int line;
    const char *name; /* "pld_tensor_allreduce" */
    struct pld__rank *rk;
    const char *outer; /* rk->collective before this call */
    int me, nr;
    const struct pld__group *group; /* the comm group of the call (NULL: the world) */
    pld_dtensor sig;                /* mesh-style signal: [P] or [P,1] */
    int k;                          /* credit barriers done so far in this call */
    int lane;                       /* the signal's column: the core's, under core_num */
    int builtin;                    /* run as a builtin kernel (host_builtin.c) */
    int defer;                      /* split phase: pld_deferred (pld__coll_finish) */
};

/* Enters a collective: kernel-only check, rank and count from `ctx_of`. */
void pld__coll_begin(struct pld__coll *c, const char *file, int line, const char *name,
                     pld_dtensor ctx_of);
/* Leaves it (restores the enclosing collective name). */
void pld__coll_end(struct pld__coll *c);

/* Fails unless window view `t` (`what`) is in the call's comm group: the
 * peers of one call are ranks of one group. */
void pld__coll_check_group(struct pld__coll *c, const char *what, pl_tensor t);

/* Checks a mesh-style signal (INT32, [P] or [P,1]) and adopts it. */
void pld__coll_mesh_signal(struct pld__coll *c, pld_dtensor signal);

/* The k-th credit barrier of the call: +1 into every peer's cell [me],
 * then wait until each of my cells [src] holds >= k. */
void pld__coll_barrier(struct pld__coll *c);

/* Takes back the k credits every peer put into my cells, so the signal
 * reads zero once every rank has left the call. */
void pld__coll_epilogue(struct pld__coll *c);

/* Ends a mesh builtin with one barrier: the barrier, then `then` (if any:
 * what the call does once every rank has arrived, with `arg`, `size`
 * bytes, copied), the epilogue, and pld__coll_end.  A split-phase call
 * (pld_deferred, c->defer) makes the barrier's notifies, registers its
 * waits as deferred conditions of the task, and leaves the rest to run
 * when they hold (taskgraph_run.c). */
typedef void (*pld__coll_then)(struct pld__coll *c, const void *arg);
void pld__coll_finish(struct pld__coll *c, pld__coll_then then, const void *arg, size_t size);

/* Split phase (taskgraph.c).  Does the running task ask that this call be
 * split (pld_deferred)?  1 or 0; fails if it does and the call needs more
 * than upstream's 64 conditions.  The caller checks that the call has a
 * split form. */
int pld__defer_take(const char *file, int line, const char *op, int conditions);
/* Leaves rest(arg) to run when the task's conditions hold; arg is malloc'd,
 * rest frees it (the graph does if the run ends first). */
void pld__defer_rest(void (*rest)(void *), void *arg);

/* A host builtin launched core_num blocks wide (upstream's checks, on the
 * host before any dispatch): core_num >= 1, called on the builtin rail, at
 * most every rank's aiv_cores, and `signal` INT32 [nr, stride] with stride
 * >= `columns` (`why` says what the columns are for). */
void pld__coll_check_cores(const char *file, int line, const char *op, pld_dtensor target,
                           pld_dtensor signal, int64_t core_num, int64_t columns, const char *why);

/* Checks that `t` is a window view of dtype FP32 or FP16 (allowed lists
 * other dtypes when `any_dtype`). */
void pld__coll_check_target(struct pld__coll *c, const char *what, pl_tensor t, int any_dtype);

/* An exchange's (all_to_all, all_to_all_v) input must not share bytes with
 * its target: incoming rows would overwrite rows not yet sent. */
void pld__coll_check_exchange_input(struct pld__coll *c, pl_tensor input, pld_dtensor target);

/* `t` seen as one row [1, numel] (tensors are contiguous). */
pl_tensor pld__flat(pl_tensor t);

/* Row r of a 2-D tensor as [1, S] (offsets are then [0, 0]). */
pl_tensor pld__row(pl_tensor t, int64_t r);

/* Combines two tiles with a reduce op. */
pl_tile pld__combine(const char *file, int line, pld_reduce_op op, pl_tile a, pl_tile b);

/* Validates a reduce op (0 means Sum); returns the effective op. */
pld_reduce_op pld__coll_reduce_op(struct pld__coll *c, pld_reduce_op op);

/* Elements per chunk of the call's transfers and reductions: a kernel's
 * collective is lowered by upstream's compiler into chunks of at most 16
 * KiB; a builtin's kernel (a host or per-device call) is upstream's
 * template, which moves tiles of 256 elements. */
int64_t pld__coll_chunk(const struct pld__coll *c, pl_dtype dt);

/* Do windows views a and b share bytes? (host tensors: never with a view) */
int pld__aliases(pl_tensor a, pl_tensor b);

/* The two allreduce lowerings (allreduce_mesh.c, allreduce_ring.c); the
 * entry point (allreduce.c) has checked everything. */
void pld__allreduce_mesh(struct pld__coll *c, pl_tensor flat, pld_reduce_op op);
void pld__allreduce_ring(struct pld__coll *c, pl_tensor flat, pld_dtensor signal, pld_reduce_op op);
/* The host orchestrator's ring (allreduce_ring_host.c): Sum, N divisible by
 * NR, signal [2(NR-1)+1, NR]; the caller has checked all three. */
void pld__allreduce_ring_host(struct pld__coll *c, pl_tensor flat, pld_dtensor signal);
/* The kernel of the host core_num allreduce on the executing rank: the
 * mesh on core_num cores, each on its share (allreduce.c). */
void pld__allreduce_cores_task(const char *file, int line, pld_dtensor target, pld_dtensor signal,
                               struct pld_allreduce_kw kw);
/* The kernel of the host ring builtin on the executing rank (allreduce.c). */
void pld__allreduce_host_ring_task(const char *file, int line, pld_dtensor target,
                                   pld_dtensor signal);

/* ---- host builtins (host_builtin.c) ---- */

/* One collective call made by the host orchestrator, with its arguments in
 * the order of the collective's parameters. */
struct pld__host_call {
    /* what each rank runs: the collective's own kernel (a static function of
     * its file), so that host_builtin.c, which every collective calls, names
     * no collective back */
    void (*kernel)(const struct pld__host_call *h);
    const char *file; /* the user's call */
    int line;
    const char *name; /* the builtin kernel's name, "builtin pld_tensor_barrier" */
    pl_tensor t[5];
    struct pld_allreduce_kw allreduce;
    struct pld_broadcast_kw broadcast;
    struct pld_reduce_scatter_kw reduce_scatter;
    struct pld_all_to_all_v_kw all_to_all_v;
};

/* Is a collective called here a builtin kernel: is the caller the host
 * orchestrator, or a per-device function outside any kernel? */
int pld__builtin_rail(void);
/* Dispatches `h` to every rank, in rank order, as a builtin kernel; from a
 * per-device function, runs it on the caller's device. */
void pld__host_builtin(const struct pld__host_call *h);
/* The task each rank runs: the kernel that makes the call there. */
void pld__host_task(const struct pld__host_call *h);

/* Shorthands for the primitives with the user's location. */
#define COLL_NOTIFY(c, sigt, peer_, offs, val)                                                     \
    pld__notify(                                                                                   \
        (c)->file, (c)->line, (sigt),                                                              \
        (struct pld_notify_kw){                                                                    \
            .peer = (peer_), .offsets = (offs), .value = (val), .op = PLD_NOTIFY_ATOMIC_ADD})
#define COLL_WAIT(c, sigt, offs, exp)                                                              \
    pld__wait((c)->file, (c)->line, (sigt),                                                        \
              (struct pld_wait_kw){.offsets = (offs), .expected = (exp), .cmp = PLD_WAIT_GE})
#define COLL_LOAD(c, t, off, len)                                                                  \
    pl__load((c)->file, (c)->line, (t), PL_IDX(0, (off)), PL_SHAPE(1, (len)),                      \
             (struct pl_load_kw){0})
#define COLL_STORE(c, tile, t, off)                                                                \
    pl__store((c)->file, (c)->line, (tile), PL_IDX(0, (off)), (t), (struct pl_store_kw){0})
#define COLL_REMOTE_LOAD(c, t, peer_, off, len)                                                    \
    pld__remote_load((c)->file, (c)->line, (t),                                                    \
                     (struct pld_remote_load_kw){.peer = (peer_),                                  \
                                                 .offsets = PL_IDX(0, (off)),                      \
                                                 .shape = PL_SHAPE(1, (len))})

#endif
