/* mem.h: the memory layer (src/mem/): where a tensor's elements are, the
 * region copies, sparse windows, UB tiles, window storage and the host
 * tensors ranks write. */
#ifndef PLD_MEM_H
#define PLD_MEM_H

#include "internal.h"

/* Byte address of element `offsets` of `t` on rank `rank` (window views) or
 * in host memory (host tensors; rank ignored).  region.c. */
unsigned char *pld__elem_ptr(pl_tensor t, int rank, pl_shape offsets);

/* The row-major array `t`'s elements lie in: its layout when it is a
 * strided view (pl_slice), else its own shape.  Address arithmetic (element
 * pointers, regions, offsets in traces) uses this, bounds checks `t.shape`.
 * region.c. */
pl_shape pld__layout(pl_tensor t);

/* The bytes of the array a load of `region` from `t` reads (a slab of
 * `t`, the array it lies in, or kw.array_bytes), which the clock compares
 * with the L2's size.  array_extent.c. */
double pld__array_bytes(pl_tensor t, pl_shape region, struct pl_load_kw kw);

/* Fails, naming `op`, unless kw.array_bytes is 0 or a finite size.
 * array_extent.c. */
void pld__check_array_bytes(const char *file, int line, const char *op, struct pl_load_kw kw);

/* Byte offset of element `offsets` of `t` from its first element, through
 * its layout.  region.c. */
int64_t pld__offset_bytes(pl_tensor t, pl_shape offsets);

/* Fails, naming `op` and `what`, when `t` is a strided view: signal cells
 * and collectives address a view's elements as one dense run.  region.c. */
void pld__check_dense(const char *file, int line, const char *op, const char *what, pl_tensor t);

/* Copies a region between two N-D row-major layouts of the same dtype.
 * `shape` is the region; each side has its tensor shape and base pointer
 * already offset to the region's first element.  op ADD accumulates. */
void pld__copy_region(pl_dtype dt, pl_shape shape, unsigned char *dst, pl_shape dst_full,
                      const unsigned char *src, pl_shape src_full, pl_atomic op);

/* ---- sparse windows (sparse.c) ---- */

/* Whether buffer `b` is to be stored in lines made on first touch: INT32
 * buffers of 64 KiB or more per copy on the simulator, or as
 * PLD_SPARSE_WINDOWS (auto, all, off) says. */
int pld__sparse_wanted(const struct pld__wbuf *b);
/* Reads PLD_SPARSE_WINDOWS for the run about to start (pld_run, before
 * anything is allocated): 0, or PLD_EUSAGE after one message naming a
 * value it does not know, so that a typo is not run as another mode. */
int pld__sparse_configure(void);
/* Gives a sparse buffer of `copies` copies of `copy_bytes` each an address
 * range: made up on 64-bit machines (no memory, no address space), a
 * PROT_NONE reservation elsewhere.  Returns its base, or NULL if the room
 * (pld__sparse_room) or memory is short. */
unsigned char *pld__sparse_reserve(size_t copies, size_t copy_bytes);
/* Bytes of made-up addresses the live sparse buffers share (2^56 - 2^53),
 * or 0 where sparse buffers reserve the address space instead. */
size_t pld__sparse_room(void);
/* Bytes of that room the run's earlier sparse buffers have taken (0 when
 * none is live, or where there is no room). */
size_t pld__sparse_taken(void);
/* Frees a range made by pld__sparse_reserve and all its lines. */
void pld__sparse_release(unsigned char *base);
/* The real address of the element at p: p itself, or its place in the
 * line of a sparse window (the line is made if needed; stable after). */
void *pld__cell(void *p);
/* Where the last notifier of `cell`, an address pld__cell returned for a
 * sparse window, is kept (rank + 1; 0 for none). */
uint16_t *pld__sparse_note(const void *cell);
/* Copies one row when either side is in a sparse window; returns 0 (and
 * does nothing) when neither is. */
int pld__sparse_row(pl_dtype dt, unsigned char *dst, const unsigned char *src, size_t bytes,
                    pl_atomic op);
/* Whether any sparse window exists (the copy fast path's one test). */
int pld__sparse_active(void);

/* Tiles: allocates `bytes` in the executing rank's UB arena (fails with the
 * kernel's name, the bytes asked and the limit on overflow). */
/* `no_data`: a --no-data tile, accounted in UB but holding no values. */
pl_tile pld__tile_alloc(const char *file, int line, const char *op, pl_dtype dt, pl_shape shape,
                        int no_data);
/* UB arena lifetime (ub.c): a kernel's tiles are freed when it returns, and
 * then the most bytes of tiles that were live at once must fit in the UB. */
void pld__ub_enter(struct pld__rank *rk);
void pld__ub_exit(struct pld__rank *rk);
/* Frees the kernel's tiles without ub_exit's peak check (an unwinding kernel). */
void pld__ub_discard(struct pld__rank *rk);
void pld__ub_release_all(struct pld__rank *rk);
/* Checks the UB layout rule for a tile of `shape`: a single row is padded
 * to 32 bytes, but each row of a multi-row tile must be a multiple of 32. */
void pld__check_tile_rows(const char *file, int line, const char *op, pl_shape shape, pl_dtype dt);
/* The mark of the tiles a builtin is about to create (for pld__ub_fold). */
int pld__ub_mark(void);
/* Frees the tiles created since `mark` (none may be used again) and keeps
 * one record in their place that spans their live ranges with their peak
 * of live bytes.  The UB check stays exact as long as no older tile was
 * used in between, which holds for a builtin's pieces; without it a long
 * collective would keep every piece it moved until the kernel returns. */
void pld__ub_fold(int mark);
/* Accounts a buffer that lives only during the current op (a staging tile). */
void pld__ub_transient(const char *file, int line, const char *op, size_t bytes);
/* Fails unless the tile belongs to the kernel now running on this rank. */
void pld__check_tile(const char *file, int line, const char *op, const char *what, pl_tile t);

/* Window storage (wbuf.c). */
void pld__windows_free(struct pld__run *R);
/* How many copies of `b` a shared-memory run keeps: one per rank of its
 * comm group (the world's P for the world's buffers), not P for every
 * group, which made a program of many node groups quadratic in P. */
int pld__wbuf_copies(const struct pld__wbuf *b);
/* The first byte of world rank `rank`'s slot of `b` in this process (a
 * member of b's group). */
unsigned char *pld__slot(const struct pld__wbuf *b, int rank);

/* Host tensors written by ranks (host_writes.c).  A distributed backend
 * runs each rank in its own process, so what rank r stores into host
 * tensors exists only in process r until the run ends and the writes are
 * exchanged.  Host tensors are known by their allocation order, which is
 * the same in every process running the same program. */
void pld__host_tensor_note(const pl_tensor *t);
void pld__host_tensor_forget(const void *data);
/* The live host tensor (whole allocation) whose memory holds `p`, or NULL. */
const pl_tensor *pld__host_tensor_at(const void *p);
/* Records that the executing rank wrote region offsets+shape of host tensor
 * `t` (window views are ignored). */
void pld__host_written(pl_tensor t, pl_shape offsets, pl_shape shape);
/* Serialises the recorded writes with their bytes (malloc'd; *len bytes),
 * and applies a serialisation made by another process.  Return 0 or
 * PLD_ENOMEM / PLD_EINVAL. */
int pld__host_writes_pack(unsigned char **out, size_t *len);
int pld__host_writes_apply(const unsigned char *in, size_t len);
/* Frees the run's recorded writes (run.c's teardown). */
void pld__host_writes_free(struct pld__run *R);
/* Writes every live host tensor (name, dtype, shape, values) to `path`:
 * --dump-outputs, to compare runs on different backends. */
int pld__host_tensors_dump(const char *path);
/* Window storage again (wbuf.c).  Does `t` hold values?  Host tensors do;
 * a window view does unless the run is --no-data and no signal op has touched its buffer. */
int pld__has_data(const pl_tensor *t);
/* Does a --timing-only run keep the values of dtype `dt`?  It keeps the
 * 32- and 64-bit integers (INT32, INT64, UINT32): indices, counts and
 * routes, which steer a program's path and are small; it drops floats and
 * the 8- and 16-bit integers, which carry payloads (quantized data).  Every
 * dtype is kept when the run is not --timing-only. */
int pld__keeps_values(pl_dtype dt);
/* Gives a window buffer real memory (signals need real cells even with
 * --no-data). */
void pld__materialize(const char *file, int line, const char *op, struct pld__wbuf *b);
/* A read of a `dt` value that a --no-data or --timing-only run does not
 * hold: --timing-only gives 0 (and warns once a process: the program's path
 * may differ from a run with data); --no-data alone fails, saying `what`. */
double pld__no_value(const char *file, int line, const char *op, pl_dtype dt, const char *what);
/* Fails: `op` would read window data that --no-data does not keep. */
_Noreturn void pld__fail_no_data(const char *file, int line, const char *op, const char *what);

/* The region offsets+shape of window view `t` (region.c). */
struct pld__region pld__region_of(pl_tensor t, pl_shape offsets, pl_shape shape);

#endif /* PLD_MEM_H */
