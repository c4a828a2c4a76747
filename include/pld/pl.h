/* pl.h: the local vocabulary of the tile language in C.
 *
 * dtypes, shapes and offsets, host (global-memory) tensors, tiles in the
 * kernel's unified buffer (UB), and the local ops that move data between them.
 * Everything here works on one device; pld.h adds the distributed calls.
 *
 * Errors: a call that breaks a rule (bounds, dtype, UB size, calling level)
 * does not return an error code.  It prints one message naming the caller's
 * file:line, the rank, the operation and what was expected, then ends the
 * run: pld_run() returns a negative PLD_E* code (see pld_run.h).
 *
 * The keyword-argument macros rely on GNU C statement expressions
 * (gcc >= 4, clang >= 3); build with -std=c11 or -std=gnu11.
 */
#ifndef PLD_PL_H
#define PLD_PL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Keyword-argument plumbing (internal, used by every public macro).   */

/* Where a call was written: every public macro passes the caller's location
 * so that errors and trace lines point at user code, not at the library. */
#define PLD__SRC __FILE__, __LINE__

/* Builds a keyword struct: `defaults` first, then the caller's designated
 * initialisers, which may override them.  The override is the point (it is how
 * a required keyword is told apart from one left out), so the warning that
 * flags it is silenced for this initialiser only. */
#define PLD__KW(type, ...)                                                                         \
    (__extension__({                                                                               \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")       \
            type pld__kw_ = {__VA_ARGS__};                                                         \
        _Pragma("GCC diagnostic pop") pld__kw_;                                                    \
    }))

/* Marks a keyword that the caller did not give.  Outside every valid range. */
#define PLD__MISSING INT64_MIN

/* ------------------------------------------------------------------ */
/* dtypes                                                              */

/* Element types.  0 is reserved for "not given" so that a forgotten dtype
 * keyword is caught instead of silently meaning FP32. */
typedef enum pl_dtype {
    PL_FP32 = 1,
    PL_FP16,
    PL_BF16,
    PL_INT8,
    PL_INT16,
    PL_INT32,
    PL_INT64,
    PL_UINT32,    /* the vector unit's sort indices (pl.sort32); adds wrap modulo 2^32 */
    PL_UINT8,     /* raw bytes, such as FP8 payloads and E8M0 scales carried in a window */
    PL_FP8E4M3FN, /* 8-bit float: 4 exponent bits (bias 7), 3 mantissa bits, no infinity;
                     casts to it round to nearest even and saturate at +-448 */
    PL_FP8E8M0,   /* an MX block scale: 2^(code - 127), code 255 is NaN; no sign, no zero */
} pl_dtype;

/* Whether `dt` is an integer dtype (INT8..INT64, UINT8, UINT32). */
int pl_dtype_is_int(pl_dtype dt);

/* Size in bytes of one element of `dt`; 0 for an invalid dtype. */
size_t pl_dtype_size(pl_dtype dt);

/* Upstream's spelling of `dt` ("FP32", "INT32", ...); "?" when invalid. */
const char *pl_dtype_name(pl_dtype dt);

/* ------------------------------------------------------------------ */
/* Shapes and offsets                                                  */

/* The most dimensions a shape or an offset list may have. */
#define PL_MAX_DIMS 4

/* A shape or an offset list of 1..4 dimensions.  ndim 0 means "not given". */
typedef struct pl_shape {
    int ndim;
    int64_t dim[PL_MAX_DIMS];
} pl_shape;

#define PL__NARGS_(a, b, c, d, e, n, ...) n
#define PL__NARGS(...)                    PL__NARGS_(__VA_ARGS__, PL_SHAPE_has_at_most_4_dims, 4, 3, 2, 1, 0)

/* PL_SHAPE(2, 64): a shape literal.  More than 4 dims fails to compile. */
#define PL_SHAPE(...) ((pl_shape){.ndim = PL__NARGS(__VA_ARGS__), .dim = {__VA_ARGS__}})

/* PL_IDX(0, 32): an offset literal (the same type as a shape). */
#define PL_IDX(...) PL_SHAPE(__VA_ARGS__)

/* Number of elements in `s` (1 for ndim 0). */
int64_t pl_shape_numel(pl_shape s);

/* A dimension bound at run time, like upstream's pl.dynamic("NR").  Returns a
 * placeholder (a negative number) to use inside PL_SHAPE() when declaring the
 * shape a host tensor must have; pl_bind_shape() binds it from a real tensor.
 * `name` must stay valid for the whole run (a string literal). */
int64_t pl_dynamic(const char *name);

/* Value a dynamic dimension was bound to by pl_bind_shape(); an error if the
 * name was never bound. */
#define pl_dim_value(name) pl__dim_value(PLD__SRC, (name))
int64_t pl__dim_value(const char *file, int line, const char *name);

/* ------------------------------------------------------------------ */
/* Tensors in global memory (host tensors and window views)           */

struct pld__wbuf; /* a window buffer: one copy per rank (pld.h) */

/* A tensor in global memory: either a host tensor (made by pl_tensor_new, or
 * a view of one), or a per-rank view of a window buffer (made by
 * pld_window(); the pld_dtensor of pld.h).  A window view names no rank: used
 * inside a kernel, it means the executing rank's own copy.
 * Small and passed by value; the storage belongs to whoever allocated it. */
typedef struct pl_tensor {
    pl_dtype dtype;
    pl_shape shape;
    const char *name;      /* for messages and traces */
    void *data;            /* host tensor: first element; window view: NULL */
    struct pld__wbuf *win; /* window view: its buffer; host tensor: NULL */
    int64_t win_offset;    /* window view: byte offset inside the buffer */
    pl_shape layout;       /* a strided view (pl_slice): the row-major array its rows lie in;
                              ndim 0 for a dense tensor, whose layout is `shape` */
} pl_tensor;

/* A new zero-filled host tensor.  `name` (may be NULL) is copied and used in
 * messages.  Errors (bad dtype, non-positive dims) end the program with a
 * message: host tensors are made before pld_run(). */
#define pl_tensor_new(shape, dtype, name) pl__tensor_new(PLD__SRC, (shape), (dtype), (name))
pl_tensor pl__tensor_new(const char *file, int line, pl_shape shape, pl_dtype dtype,
                         const char *name);

/* Frees a tensor made by pl_tensor_new (not a view).  NULL-safe on zeroed. */
void pl_tensor_free(pl_tensor *t);

/* The sub-tensor t[i]: drops the leading dimension (upstream's x[r]).  A
 * 1-D tensor gives a [1] view.  i out of range is an error. */
#define pl_at(t, i) pl__at(PLD__SRC, (t), (int64_t)(i))
pl_tensor pl__at(const char *file, int line, pl_tensor t, int64_t i);

/* pl_slice(t, shape, offsets): the sub-tensor of `t` of `shape` starting at
 * `offsets` (upstream's pl.slice / tensor.slice, and x[a:b, c:d]).  A view,
 * not a copy: it names the same memory (a host tensor's, or the same window
 * slot), so reads see later writes to `t` and writes through it land in `t`.
 * A window view's slice is still a window view (usable by every pld call).
 * Slicing whole rows gives a dense tensor; slicing columns gives a strided
 * view, which pl_load, pl_store, pl_read, pl_write, the tile-level RMA calls
 * and put/get accept, and which signals and collectives refuse.  Free the
 * original, never a slice.  Errors: an uninitialised `t`, offsets or shape
 * of another rank than `t`, a dim < 1, a negative offset, or the region
 * outside `t` (the message gives both). */
#define pl_slice(t, shape, offsets) pl__slice(PLD__SRC, (t), (shape), (offsets))
pl_tensor pl__slice(const char *file, int line, pl_tensor t, pl_shape shape, pl_shape offsets);

/* Bytes of a host tensor's storage (numel * element size). */
size_t pl_tensor_bytes(pl_tensor t);

/* Checks that host tensor `t` has the declared shape, binding each
 * pl_dynamic() dimension from `t` (a name bound twice must agree).
 * A mismatch is an error naming the dimension and both values. */
#define pl_bind_shape(t, declared) pl__bind_shape(PLD__SRC, (t), (declared))
void pl__bind_shape(const char *file, int line, pl_tensor t, pl_shape declared);

/* Element access for host code (goldens): value of element `flat` (row-major
 * index) as a double, and the converse. */
double pl_tensor_get(pl_tensor t, int64_t flat);
void pl_tensor_set(pl_tensor t, int64_t flat, double v);

/* Fills with standard normal samples from a generator seeded by `seed`
 * (reproducible on every platform: our own generator, not libc's). */
void pl_fill_randn(pl_tensor t, uint64_t seed);

/* Fills with start, start+step, ... in row-major order (torch.arange). */
void pl_fill_arange(pl_tensor t, double start, double step);

/* Fills every element with v. */
void pl_fill(pl_tensor t, double v);

/* torch.allclose: |a-b| <= atol + rtol*|b| everywhere, and same shape.  On a
 * mismatch, writes the first differing index and values into `why` (may be
 * NULL) as one line. */
int pl_allclose(pl_tensor a, pl_tensor b, double rtol, double atol, char *why, size_t whylen);

/* Exact equality (same shape, same values), with the same `why`. */
int pl_equal(pl_tensor a, pl_tensor b, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* Tiles in the unified buffer                                         */

/* A tile: an N-D block in the executing kernel's UB arena.  It dies when the
 * kernel returns; using it afterwards is an error.  The UB limit applies to
 * the tiles live at the same time, from each tile's creation to its last use
 * (what the compiler's buffer planner would reuse), so a loop such as
 * acc = pl_add(acc, t) does not accumulate UB. */
typedef struct pl_tile {
    pl_dtype dtype;
    pl_shape shape; /* the tile as allocated in UB */
    pl_shape valid; /* the leading part that holds data: `shape` unless a load narrowed it */
    void *data;
    uint64_t epoch; /* which kernel invocation owns it */
    int32_t index;  /* its slot in that kernel's UB bookkeeping */
    int no_data;    /* --no-data: holds no values (it came from a window) */
} pl_tile;

/* Atomic mode of a store (upstream's AtomicType). */
typedef enum pl_atomic {
    PL_ATOMIC_NONE = 0, /* overwrite (upstream None_) */
    PL_ATOMIC_ADD = 1,  /* dst += src (FP32, FP16, BF16, INT32, INT16, INT8) */
} pl_atomic;

struct pl_load_kw {
    pl_shape valid_shape; /* read only this leading part of `shape` (a ragged tail) */
    int clamp;            /* cut the read back to the source's edge instead of failing */
    double array_bytes;   /* bytes of the array `t` lies in, where `t` is a slice of a slice
                             that no longer says (a front end's views); 0: `t`'s own layout.
                             Only the clock reads it: a larger array than the L2 holds is
                             read from HBM (docs/models.md, "HBM") */
};
/* pl_load(t, offsets, shape[, .valid_shape, .clamp]): copies a region of
 * global memory (a host tensor, or the executing rank's copy of a window
 * view) into a new tile of `shape`.  With .valid_shape only that leading
 * part is read (and charged); the tile keeps `shape` in UB, its other
 * elements read as zero, and ops and stores use the valid part.  With
 * .clamp the valid part is cut to what the source has past `offsets`.
 * Charges GM->UB time at HBM bandwidth.  Errors: outside a kernel, offsets or
 * shape rank != tensor rank, the read region (offsets + valid part) out of
 * bounds, a valid_shape of another rank or wider than `shape`, a row
 * (innermost dim) not a multiple of 32 bytes, UB overflow. */
#define pl_load(t, offsets, ...)   pl__load(PLD__SRC, (t), (offsets), PLD__LOAD_ARGS(__VA_ARGS__))
#define PLD__LOAD_ARGS(shape, ...) (shape), PLD__KW(struct pl_load_kw, __VA_ARGS__)
pl_tile pl__load(const char *file, int line, pl_tensor t, pl_shape offsets, pl_shape shape,
                 struct pl_load_kw kw);

struct pl_store_kw {
    pl_atomic atomic;
};
/* pl_store(tile, offsets, t[, .atomic = PL_ATOMIC_ADD]): writes the tile's
 * valid part (all of it, unless a load narrowed it) into global memory at
 * `offsets`; returns `t` (upstream rebinds: y = pl.store()).  Charges UB->GM
 * time.  Errors as pl_load, plus dtype mismatch. */
#define pl_store(tile, offsets, t, ...)                                                            \
    pl__store(PLD__SRC, (tile), (offsets), (t), PLD__KW(struct pl_store_kw, __VA_ARGS__))
pl_tensor pl__store(const char *file, int line, pl_tile tile, pl_shape offsets, pl_tensor t,
                    struct pl_store_kw kw);

/* Element-wise a+b on two tiles of the same shape and dtype, or a tile plus a
 * scalar broadcast to every element.  Returns a new tile; charges vector time.
 * Arithmetic is exact for integer dtypes and done in float for FP16/BF16. */
#define pl_add(a, b) _Generic((b), pl_tile : pl__add_tt, default : pl__add_ts)(PLD__SRC, (a), (b))
/* Element-wise a*b, tile x tile or tile x scalar, as pl_add. */
#define pl_mul(a, b) _Generic((b), pl_tile : pl__mul_tt, default : pl__mul_ts)(PLD__SRC, (a), (b))
/* Element-wise maximum and minimum, tile x tile or tile x scalar. */
#define pl_max(a, b) _Generic((b), pl_tile : pl__max_tt, default : pl__max_ts)(PLD__SRC, (a), (b))
#define pl_min(a, b) _Generic((b), pl_tile : pl__min_tt, default : pl__min_ts)(PLD__SRC, (a), (b))
/* Element-wise a-b, tile - tile or tile - scalar, as pl_add (integers wrap
 * as int64 arithmetic truncated to the dtype, floats subtract in float). */
#define pl_sub(a, b) _Generic((b), pl_tile : pl__sub_tt, default : pl__sub_ts)(PLD__SRC, (a), (b))
pl_tile pl__add_tt(const char *file, int line, pl_tile a, pl_tile b);
pl_tile pl__add_ts(const char *file, int line, pl_tile a, double b);
pl_tile pl__mul_tt(const char *file, int line, pl_tile a, pl_tile b);
pl_tile pl__mul_ts(const char *file, int line, pl_tile a, double b);
pl_tile pl__sub_tt(const char *file, int line, pl_tile a, pl_tile b);
pl_tile pl__sub_ts(const char *file, int line, pl_tile a, double b);
pl_tile pl__max_tt(const char *file, int line, pl_tile a, pl_tile b);
pl_tile pl__max_ts(const char *file, int line, pl_tile a, double b);
pl_tile pl__min_tt(const char *file, int line, pl_tile a, pl_tile b);
pl_tile pl__min_ts(const char *file, int line, pl_tile a, double b);

/* pl_read(t, idx): one element of global memory, as a double (exact for every
 * dtype up to 2^53).  pl_write(t, idx, v) stores v converted to t's dtype.
 * Kernel-level ops; charge one GM access.  Errors: out of bounds. */
#define pl_read(t, idx)     pl__read(PLD__SRC, (t), (idx))
#define pl_write(t, idx, v) pl__write(PLD__SRC, (t), (idx), (double)(v))
double pl__read(const char *file, int line, pl_tensor t, pl_shape idx);
void pl__write(const char *file, int line, pl_tensor t, pl_shape idx, double v);

/* pl_cast(v, dtype): a scalar converted to `dtype` (rounded to FP16/BF16
 * precision, truncated toward zero and range-checked for integers).
 * pl_cast(tile, dtype): a new tile of the same shape holding every element
 * converted (floats round to nearest; a float to an integer truncates toward
 * zero and saturates at the dtype's range, as the vector unit's cast does);
 * charges vector time.  Errors: an invalid dtype, a dead tile, UB full. */
#define pl_cast(v, dtype)                                                                          \
    _Generic((v), pl_tile : pl__cast_tile, default : pl__cast)(PLD__SRC, (v), (dtype))
double pl__cast(const char *file, int line, double v, pl_dtype dtype);
pl_tile pl__cast_tile(const char *file, int line, pl_tile t, pl_dtype dtype);

/* pl_tile_get(t, flat): element `flat` (row-major, from 0) of tile `t` as a
 * double, for kernels that need a value from UB; charges nothing.  Errors:
 * a tile that is not one of the running kernel's, `flat` outside
 * [0, elements of t), a tile of window data under --no-data. */
#define pl_tile_get(t, flat) pl__tile_get(PLD__SRC, (t), (int64_t)(flat))
double pl__tile_get(const char *file, int line, pl_tile t, int64_t flat);

#ifdef __cplusplus
}
#endif
#endif /* PLD_PL_H */
