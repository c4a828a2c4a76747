/* pld_embed.h: for language front ends that run their own code inside
 * pldsim's ranks, such as the Python front end (pldsim-py).  C programs do
 * not need anything here.
 *
 * An interpreter keeps state on the C stack of the rank that runs it.  When
 * a run ends after an error, a backend leaves each rank at its next call
 * into the library: SimGrid exits the actor, the threads backend exits the
 * thread.  Either unwinds the rank's stack without letting the interpreter
 * clean up.  A guard armed around a library call turns that exit into a
 * return to the guard's sigsetjmp, in the front end's own C frame, from
 * where it can unwind its interpreter normally:
 *
 *     pld_guard g;
 *     pld_guard_push(&g);
 *     if (sigsetjmp(g.env, 0) == 0) {
 *         tile = pl__load(file, line, t, offsets, shape);
 *         pld_guard_pop(&g);
 *     } else {
 *         // the run is ending (the error has been reported); g is popped
 *     }
 *
 * On the sim backend, SimGrid's default coroutines run every rank on the
 * same OS thread and switch C stacks between them, at any call into the
 * library.  An interpreter that keeps per-thread state (CPython's thread
 * state) must then give each rank its own and swap it around each call:
 * the guard's `data` word (below) keeps it where the rank's next callback
 * finds it (pld_guard_innermost).  Or set pld_config.context_factory to
 * "thread", which runs each rank on an OS thread of its own. */
#ifndef PLD_PLD_EMBED_H
#define PLD_PLD_EMBED_H

#include <pld/pld.h>
#include <setjmp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One armed guard of the calling rank (or of the host orchestrator).
 * Guards nest; the innermost one catches. */
typedef struct pld_guard {
    sigjmp_buf env;
    struct pld_guard *prev;
    int who; /* the rank (or PLD host) that armed it */
    /* The front end's own word, for the state it parks while the library
     * runs (an interpreter's thread state): set it before pushing the
     * guard; the library neither reads nor writes it. */
    void *data;
} pld_guard;

/* Arms `g` on the caller: until pld_guard_pop(g), leaving the rank because
 * the run is ending siglongjmps to g->env with the value 1 and disarms g.
 * Outside pld_run() it does nothing (errors there exit the process). */
void pld_guard_push(pld_guard *g);

/* Disarms `g`, the innermost guard of the caller.  Safe after an escape
 * through `g` (it is then already disarmed). */
void pld_guard_pop(pld_guard *g);

/* The caller's innermost armed guard, or NULL (none, or outside pld_run()).
 * The caller is the running rank, or the running core of a rank that runs
 * several (each has guards of its own), or the host.  When the library
 * calls back into the front end (a dispatched task, a task of a graph), the
 * guard of the front end's library call in progress on the same rank, if
 * any, is this one: its `data` is what that call parked. */
pld_guard *pld_guard_innermost(void);

/* Reports an error found by the front end and ends the run, like the
 * library's own errors: only the first error of a run is printed.  Prints
 * `preface` (may be NULL: a traceback, for example) and then one line
 *     file:line: rank 1: op: message
 * to stderr, then leaves the rank as pld.h's errors do (through an armed
 * guard, if any).  `code` is a negative PLD_E* code; pld_run() returns it.
 * Outside pld_run() it prints the same and exits with pld_exit_code(code). */
_Noreturn void pld_embed_fail(int code, const char *file, int line, const char *op,
                              const char *preface, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Names the library's ops as the front end's users know them: when set,
 * every error line (file:line: rank: OP: message) passes its OP through
 * `rename` first ("pld_tile_remote_load" -> "pld.tile.remote_load"); a
 * NULL result keeps the library's name.  NULL turns it off.  Process-wide;
 * set it before pld_run(). */
void pld_embed_set_op_names(const char *(*rename)(const char *op));

/* Whether the run in progress is ending after an error (so that a front end
 * unwinding its interpreter can skip calls that would only end it again).
 * 0 outside a run. */
int pld_run_aborting(void);

/* The executing rank, -1 for the host orchestrator, -2 outside a run. */
int pld_embed_self(void);

/* The UB bytes a kernel of the executing rank may allocate (the model's
 * ub_usable_bytes, in bytes); 0 on the host or outside a run. */
double pld_embed_ub_usable(void);

/* Ends the running kernel because an exception of the front end's
 * language leaves it: frees its UB, and skips the checks of a kernel's
 * normal end (a put_async still in flight, the UB's peak), which would
 * otherwise report a consequence in place of the exception itself.  Its
 * put_asyncs land as they would; the next kernel starts afresh. */
void pld_embed_incore_unwind(void);

/* pl_load on behalf of the front end's op `op` (a tensor-level op that
 * loads its operand into UB, as upstream's compiler lowers it): the same
 * checks, cost and trace line as pl_load, but errors name `op` (which must
 * outlive the run: a string literal or an interned name). */
pl_tile pld_embed_load(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                       pl_shape shape, struct pl_load_kw kw);

/* pl_store and pld_tile_remote_store on behalf of the front end's op `op`
 * (a tensor-level assemble or remote_store of a value held in a tile): the
 * same checks, cost and trace line, with errors naming `op`. */
pl_tensor pld_embed_store(const char *file, int line, const char *op, pl_tile tile,
                          pl_shape offsets, pl_tensor t, struct pl_store_kw kw);
void pld_embed_remote_store(const char *file, int line, const char *op, pl_tile tile,
                            pld_dtensor target, struct pld_remote_store_kw kw);

/* Tiles of the cube unit, for front ends that run its ops (matmul) on
 * tiles they keep themselves: the cube's buffers (L1, L0A/L0B, L0C) are
 * not the vector core's UB, so such tiles take no UB.
 *
 * pld_embed_load_into: a load into the cube's L1 (pl.Mem.Mat) on behalf of
 * `op` into `dst`, a buffer of `shape` elements of t's dtype, zeroed past
 * the part read (its shape goes to *valid): the same checks (but UB's
 * 32-byte row rule), race record and trace line as pl_load; it costs
 * hbm_lat + bytes / l1_bw on the core's MTE2 pipe (docs/models.md, "The
 * cube's pipes").  Returns 1, or 0 when there are no values to copy
 * (--no-data and a window: dst is left alone).
 *
 * pld_embed_store_from: pl_store on behalf of `op` of `shape` elements of
 * `dtype` at `src` (NULL: no values, --no-data), of which the leading
 * `valid` part is written into `t` at `offsets`: the same checks, cost,
 * race record and trace line as pl_store of such a tile; with `from_acc`
 * the values leave the cube's L0C, and the store costs a drain of L0C
 * (l0c_lat + bytes / l0c_bw) on the core's FIX pipe instead of a GM store
 * (into a window, which peers read, after the pipes settle). */
int pld_embed_load_into(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                        pl_shape shape, struct pl_load_kw kw, void *dst, pl_shape *valid);
void pld_embed_store_from(const char *file, int line, const char *op, pl_dtype dtype,
                          const void *src, pl_shape shape, pl_shape valid, pl_shape offsets,
                          pl_tensor t, struct pl_store_kw kw, int from_acc);

/* A new tile in the running kernel's UB (its limit applies, as for every
 * tile) of `dtype` and `shape`, holding `values` (row-major, shape's
 * element count; NULL: zeros), whose leading `valid` part holds data
 * (valid.ndim 0: all of it): for tiles the front end computes itself (a
 * fill, a reduction, a move into UB).  Charges nothing.  Errors: outside
 * a kernel, UB full. */
/* Element `flat` (row-major) of tile `t`, as pl_tile_get, naming `op` in
 * its messages.  A tile without values (--timing-only) gives 0 and a
 * warning; under --no-data alone it is an error.  Errors: a dead tile, an
 * index outside the tile. */
double pld_embed_tile_get(const char *file, int line, const char *op, pl_tile t, int64_t flat);

pl_tile pld_embed_tile(const char *file, int line, const char *op, pl_dtype dtype, pl_shape shape,
                       pl_shape valid, const void *values);

/* Charges the running kernel's core vector time for `elems` element
 * operations, as pl_add of a tile of `elems` elements does, on behalf of
 * `op` (a front-end op the library does not price itself).  Errors:
 * outside a kernel. */
void pld_embed_charge_vector(const char *file, int line, const char *op, int64_t elems);

/* The cube unit (docs/models.md, "The cube unit").  pld_embed_matmul puts
 * one matmul of an [m, k] and a [k, n] tile of `dtype` (FP16, BF16, INT8
 * or FP32) on the running core's M pipe and traces it: cube_lat plus
 * 2 M N K / rate seconds, M, N, K rounded up to the fractal.
 * pld_embed_cube_move puts moving `bytes` along one of the cube's paths
 * on its pipe (MTE1 into L0A or L0B, FIX out of L0C) and traces it.  The
 * pipes run at once, past the core's clock, which catches up with them
 * before the kernel's next other op and at its end ("The cube's pipes").
 * Errors: outside a kernel; a model with no cube rate for the dtype
 * (exit 2). */
enum pld_cube_path {
    PLD_CUBE_TO_L0A,  /* L1 -> L0A: a matmul's left operand */
    PLD_CUBE_TO_L0B,  /* L1 -> L0B: its right operand */
    PLD_CUBE_DRAIN_UB /* L0C -> the vector core's UB (a5's path) */
};
void pld_embed_matmul(const char *file, int line, const char *op, int64_t m, int64_t n, int64_t k,
                      pl_dtype dtype);
void pld_embed_cube_move(const char *file, int line, const char *op, enum pld_cube_path path,
                         int64_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* PLD_PLD_EMBED_H */
