/* rma.c: one-sided data movement between ranks: tile remote_load/store and
 * tensor put/get.  Each completes before the caller continues and carries no
 * signal; the bytes land when the transfer completes.  Every one is: check
 * the arguments, price it (cost.c), one backend call, record it (observe.c). */
#include "internal.h"
#include "cost.h"
#include "mem.h"
#include "observe.h"
#include "detect.h"
#include "backend.h"
#include "async.h"

static void check_window(const char *file, int line, const char *op, const char *what, pl_tensor t)
{
    pld__check_tensor(file, line, op, what, t);
    if (!t.win)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s '%s' is a host tensor; cross-rank calls need a window view (pld_window)",
                  what, t.name);
}

static int64_t offset_bytes(pl_tensor t, pl_shape offsets)
{
    return pld__offset_bytes(t, offsets);
}

/* What every one-sided op checks of the window it reaches: a window view,
 * a peer inside its group, and the caller a member.  Returns the peer's
 * world rank. */
static int check_remote(const char *file, int line, const char *op, const char *what, pl_tensor t,
                        int64_t peer)
{
    check_window(file, line, op, what, t);
    int r = pld__peer_rank(file, line, op, &t, peer);
    pld__check_member(file, line, op, what, &t);
    return r;
}

/* The prologue of a one-sided op that reaches window view `t` of group
 * rank `peer`: in a kernel, the start time taken before any check, then
 * check_remote.  Returns the peer's world rank; *me and *t0 are set. */
static int begin_remote(const char *file, int line, const char *op, const char *what, pl_tensor t,
                        int64_t peer, int *me, double *t0)
{
    pld__op_rank(file, line, op);
    *me = pld__self();
    *t0 = pld__now();
    return check_remote(file, line, op, what, t, peer);
}

static void check_atomic(const char *file, int line, const char *op, pl_atomic a, pl_dtype dt)
{
    if (a != PL_ATOMIC_NONE && a != PL_ATOMIC_ADD)
        pld__fail(PLD_EINVAL, file, line, op,
                  ".atomic is %d; expected PL_ATOMIC_NONE or PL_ATOMIC_ADD", (int)a);
    if (a == PL_ATOMIC_ADD && !pld__dtype_can_add(dt))
        pld__fail(PLD_EINVAL, file, line, op,
                  "atomic Add supports FP32, FP16, BF16, INT32, INT16, INT8, UINT32 and UINT8, "
                  "not %s",
                  pl_dtype_name(dt));
}

pl_tile pld__remote_load(const char *file, int line, pld_dtensor target,
                         struct pld_remote_load_kw kw)
{
    static const char op[] = "pld_tile_remote_load";
    int me;
    double t0;
    int peer = begin_remote(file, line, op, "target", target, kw.peer, &me, &t0);
    if (kw.offsets.ndim == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .offsets");
    if (kw.shape.ndim == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .shape");
    pl_shape valid =
        pld__load_extent(file, line, op, "target", target, kw.offsets, kw.shape, kw.valid_shape, 0);
    pld__check_tile_rows(file, line, op, kw.shape, target.dtype);
    pl_tile tile = pld__tile_alloc(file, line, op, target.dtype, kw.shape, !pld__has_data(&target));
    tile.valid = valid;
    size_t bytes = (size_t)pl_shape_numel(valid) * pl_dtype_size(target.dtype);
    struct pld__cost c;
    struct pld__region rg = pld__region_of(target, kw.offsets, valid);
    pld__price_transfer(&c, peer, me, bytes);
    int rc = pld__R->be->read(peer, target.win, &rg,
                              (struct pld__span){tile.no_data ? NULL : tile.data, kw.shape}, &c);
    pld__tile_zero_tail(&tile);
    pld__observe(&(struct pld__observed){.op = PLD__OP_REMOTE_LOAD,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .from = peer,
                                         .to = me,
                                         .rc = rc,
                                         .cost = &c,
                                         .PLD__TOUCHES({target, peer, kw.offsets, valid, 0, 0}),
                                         .peer = peer,
                                         .t = &target,
                                         .elem_off = offset_bytes(target, kw.offsets),
                                         .bytes = (int64_t)bytes,
                                         .value = PLD__MISSING});
    return tile;
}

static void remote_store(const char *file, int line, const char *op, pl_tile tile,
                         pld_dtensor target, struct pld_remote_store_kw kw)
{
    pld__op_rank(file, line, op);
    int me = pld__self();
    double t0 = pld__now();
    pld__check_tile(file, line, op, "source tile", tile);
    int peer = check_remote(file, line, op, "target", target, kw.peer);
    if (kw.offsets.ndim == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .offsets");
    if (tile.dtype != target.dtype)
        pld__fail(PLD_EINVAL, file, line, op, "dtype mismatch: tile is %s but target '%s' is %s",
                  pl_dtype_name(tile.dtype), target.name, pl_dtype_name(target.dtype));
    check_atomic(file, line, op, kw.atomic, target.dtype);
    pld__check_region(file, line, op, "target", target, kw.offsets, tile.valid);
    size_t bytes = (size_t)pl_shape_numel(tile.valid) * pl_dtype_size(tile.dtype);
    enum pld__op id = kw.atomic == PL_ATOMIC_ADD ? PLD__OP_REMOTE_STORE_ADD : PLD__OP_REMOTE_STORE;
    int data = pld__has_data(&target) && !tile.no_data;
    struct pld__cost c;
    struct pld__region rg = pld__region_of(target, kw.offsets, tile.valid);
    pld__price_transfer(&c, me, peer, bytes);
    int rc =
        pld__R->be->write(peer, target.win, &rg,
                          (struct pld__span){data ? tile.data : NULL, tile.shape}, kw.atomic, &c);
    pld__observe(&(struct pld__observed){
        .op = id,
        .api = op,
        .file = file,
        .line = line,
        .t0 = t0,
        .from = me,
        .to = peer,
        .rc = rc,
        .cost = &c,
        .PLD__TOUCHES({target, peer, kw.offsets, tile.valid, 1, kw.atomic == PL_ATOMIC_ADD}),
        .peer = peer,
        .t = &target,
        .elem_off = offset_bytes(target, kw.offsets),
        .bytes = (int64_t)bytes,
        .value = PLD__MISSING});
}

void pld__remote_store(const char *file, int line, pl_tile tile, pld_dtensor target,
                       struct pld_remote_store_kw kw)
{
    remote_store(file, line, "pld_tile_remote_store", tile, target, kw);
}

void pld__remote_store_as(const char *file, int line, const char *op, pl_tile tile,
                          pld_dtensor target, struct pld_remote_store_kw kw)
{
    remote_store(file, line, op, tile, target, kw);
}

void pld__tensor_remote_store(const char *file, int line, pl_tensor src, pld_dtensor target,
                              struct pld_remote_store_kw kw)
{
    static const char op[] = "pld_tensor_remote_store";
    pld__op_rank(file, line, op);
    pld__check_tensor(file, line, op, "src", src);
    if (src.win)
        pld__fail(PLD_EINVAL, file, line, op,
                  "src '%s' is a window view; it must be a local tensor-level value (a host "
                  "tensor or a slice of one): to push one window into another use pld_tensor_put",
                  src.name);
    /* every check of the push before the load, so that a misuse is named
     * as this op's and costs nothing */
    (void)check_remote(file, line, op, "target", target, kw.peer);
    if (kw.offsets.ndim == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .offsets");
    if (src.dtype != target.dtype)
        pld__fail(PLD_EINVAL, file, line, op,
                  "dtype mismatch: src '%s' is %s but target '%s' is %s", src.name,
                  pl_dtype_name(src.dtype), target.name, pl_dtype_name(target.dtype));
    check_atomic(file, line, op, kw.atomic, target.dtype);
    pld__check_region(file, line, op, "target", target, kw.offsets, src.shape);
    /* upstream bridges a value still in global memory with a tile.load */
    int mark = pld__ub_mark();
    pl_tile tile = pld__load_as(file, line, op, src, (pl_shape){.ndim = src.shape.ndim}, src.shape,
                                (struct pl_load_kw){.clamp = 0});
    remote_store(file, line, op, tile, target, kw);
    pld__ub_fold(mark); /* the bridge tile is dead once pushed */
}

/* The region a put/get copies: explicit, or both tensors whole. */
struct region {
    pl_shape dst_off, src_off, shape;
};

static struct region p2p_region(const char *file, int line, const char *op, pl_tensor dst,
                                pl_tensor src, const struct pld_p2p_kw *kw)
{
    char a[64], b[64];
    struct region r;
    int given = (kw->dst_offsets.ndim > 0) + (kw->src_offsets.ndim > 0) + (kw->shape.ndim > 0);
    if (given != 0 && given != 3)
        pld__fail(PLD_EINVAL, file, line, op,
                  "give all of .dst_offsets, .src_offsets and .shape, or none of them");
    if (dst.dtype != src.dtype)
        pld__fail(PLD_EINVAL, file, line, op, "dtype mismatch: dst '%s' is %s but src '%s' is %s",
                  dst.name, pl_dtype_name(dst.dtype), src.name, pl_dtype_name(src.dtype));
    if (given == 3) {
        r.dst_off = kw->dst_offsets;
        r.src_off = kw->src_offsets;
        r.shape = kw->shape;
        pld__check_region(file, line, op, "dst", dst, r.dst_off, r.shape);
        pld__check_region(file, line, op, "src", src, r.src_off, r.shape);
        return r;
    }
    if (!pld__shape_eq(dst.shape, src.shape))
        pld__fail(PLD_EINVAL, file, line, op,
                  "without a region dst and src must have the same shape: dst '%s' %s, src '%s' "
                  "%s",
                  dst.name, pld__shape_str(dst.shape, a, sizeof a), src.name,
                  pld__shape_str(src.shape, b, sizeof b));
    r.shape = dst.shape;
    r.dst_off = r.src_off = (pl_shape){.ndim = dst.shape.ndim};
    return r;
}

/* Splits the region into staging chunks of chunk_rows x chunk_cols (rows =
 * product of the leading dims, cols = the innermost dim), checks that the
 * staging tile fits in UB, and returns the chunk sizes in bytes. */
static int64_t plan_chunks(const char *file, int line, const char *op, struct region *r,
                           pl_dtype dt, const struct pld_p2p_kw *kw, int user_stage,
                           int64_t *nchunks, int64_t *chunk_bytes, int64_t *last_bytes)
{
    int64_t cols = r->shape.dim[r->shape.ndim - 1], rows = pl_shape_numel(r->shape) / cols;
    int64_t es = (int64_t)pl_dtype_size(dt);
    struct pld__rank *rk = &pld__R->ranks[pld__self()];

    if (kw->chunk_rows < 0 || kw->chunk_cols < 0)
        pld__fail(PLD_EINVAL, file, line, op, "chunk_rows and chunk_cols must be >= 0");
    if (kw->pipeline && (kw->chunk_rows == 0 || kw->chunk_cols == 0))
        pld__fail(PLD_EINVAL, file, line, op,
                  ".pipeline needs both .chunk_rows and .chunk_cols > 0");
    int64_t cr = kw->chunk_rows ? (kw->chunk_rows < rows ? kw->chunk_rows : rows) : rows;
    int64_t cc = kw->chunk_cols ? (kw->chunk_cols < cols ? kw->chunk_cols : cols) : cols;
    int64_t stage = cr * cc * es * (kw->pipeline ? 2 : 1);
    if ((double)stage > rk->dev.ub_usable_bytes)
        pld__fail(PLD_EUBOVERFLOW, file, line, op,
                  "UB overflow in kernel %s: the staging tile needs %lld bytes and the limit is "
                  "%.0f; set .chunk_rows/.chunk_cols to stage smaller pieces",
                  rk->kernel, (long long)stage, rk->dev.ub_usable_bytes);
    if (!user_stage) /* a tile-level put/get stages through the caller's own tiles */
        pld__ub_transient(file, line, op, (size_t)stage);
    int64_t nr = (rows + cr - 1) / cr, nc = (cols + cc - 1) / cc;
    *nchunks = nr * nc;
    *chunk_bytes = cr * cc * es;
    /* Total bytes are exact; the last chunk takes the remainder so the sum
     * matches the region (ragged edges are folded into it). */
    int64_t total = rows * cols * es;
    *last_bytes = total - (*nchunks - 1) * *chunk_bytes;
    if (*last_bytes <= 0) { /* ragged in both dims: spread evenly instead */
        *chunk_bytes = total / *nchunks;
        *last_bytes = total - (*nchunks - 1) * *chunk_bytes;
    }
    return total;
}

/* A put, tensor-level (the staging tile is the compiler's, counted here) or
 * tile-level (user_stage: the caller's tiles, chunks already set from them). */
static void put(const char *file, int line, const char *op, pld_dtensor dst, struct pld_p2p_kw kw,
                int user_stage)
{
    int me;
    double t0;
    int64_t n, chunk, last;
    int peer = begin_remote(file, line, op, "dst", dst, kw.peer, &me, &t0);
    if (kw.src.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .src");
    pld__check_member(file, line, op, "src", &kw.src);
    check_atomic(file, line, op, kw.atomic, dst.dtype);
    struct region r = p2p_region(file, line, op, dst, kw.src, &kw);
    int64_t total = plan_chunks(file, line, op, &r, dst.dtype, &kw, user_stage, &n, &chunk, &last);
    enum pld__op id = kw.atomic == PL_ATOMIC_ADD ? PLD__OP_PUT_ADD : PLD__OP_PUT;
    int data = pld__has_data(&dst) && pld__has_data(&kw.src);
    struct pld__cost c;
    struct pld__region rg = pld__region_of(dst, r.dst_off, r.shape);
    struct pld__span src = {data ? pld__elem_ptr(kw.src, me, r.src_off) : NULL,
                            pld__layout(kw.src)};
    pld__price_staged(&c, me, peer, 1, n, chunk, last, kw.pipeline);
    int rc = pld__R->be->write(peer, dst.win, &rg, src, kw.atomic, &c);
    pld__observe(&(struct pld__observed){
        .op = id,
        .api = op,
        .file = file,
        .line = line,
        .t0 = t0,
        .from = me,
        .to = peer,
        .rc = rc,
        .cost = &c,
        .PLD__TOUCHES({kw.src, me, r.src_off, r.shape, 0, 0},
                      {dst, peer, r.dst_off, r.shape, 1, kw.atomic == PL_ATOMIC_ADD}),
        .peer = peer,
        .t = &dst,
        .elem_off = offset_bytes(dst, r.dst_off),
        .bytes = total,
        .value = PLD__MISSING});
}

static void get(const char *file, int line, const char *op, pl_tensor dst, struct pld_p2p_kw kw,
                int user_stage)
{
    pld__op_rank(file, line, op);
    int me = pld__self();
    double t0 = pld__now();
    int64_t n, chunk, last;
    pld__check_tensor(file, line, op, "dst", dst);
    if (kw.peer == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .peer");
    if (kw.src.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .src");
    check_window(file, line, op, "src", kw.src);
    int peer = pld__peer_rank(file, line, op, &kw.src, kw.peer);
    pld__check_member(file, line, op, "src", &kw.src);
    pld__check_member(file, line, op, "dst", &dst);
    if (kw.atomic != PL_ATOMIC_NONE)
        pld__fail(PLD_EINVAL, file, line, op, "get has no .atomic");
    struct region r = p2p_region(file, line, op, dst, kw.src, &kw);
    int64_t total = plan_chunks(file, line, op, &r, dst.dtype, &kw, user_stage, &n, &chunk, &last);
    if (!pld__has_data(&kw.src) && !dst.win && !pld__R->cfg->timing_only)
        pld__fail_no_data(file, line, op, "it pulls window data into a host tensor");
    int data = pld__has_data(&dst) && pld__has_data(&kw.src);
    struct pld__cost c;
    struct pld__region rg = pld__region_of(kw.src, r.src_off, r.shape);
    struct pld__span to = {data ? pld__elem_ptr(dst, me, r.dst_off) : NULL, pld__layout(dst)};
    pld__price_staged(&c, peer, me, 0, n, chunk, last, kw.pipeline);
    int rc = pld__R->be->read(peer, kw.src.win, &rg, to, &c);
    pld__observe(&(struct pld__observed){.op = PLD__OP_GET,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .from = peer,
                                         .to = me,
                                         .rc = rc,
                                         .cost = &c,
                                         .PLD__TOUCHES({kw.src, peer, r.src_off, r.shape, 0, 0},
                                                       {dst, me, r.dst_off, r.shape, 1, 0}),
                                         .peer = peer,
                                         .t = &kw.src,
                                         .elem_off = offset_bytes(kw.src, r.src_off),
                                         .bytes = total,
                                         .value = PLD__MISSING});
    pld__host_written(dst, r.dst_off, r.shape); /* after: a missing route failed above */
}

void pld__put(const char *file, int line, pld_dtensor dst, struct pld_p2p_kw kw)
{
    put(file, line, "pld_tensor_put", dst, kw, 0);
}

void pld__get(const char *file, int line, pl_tensor dst, struct pld_p2p_kw kw)
{
    get(file, line, "pld_tensor_get", dst, kw, 0);
}

/* The tensor-level keywords of a tile-level put/get: chunks of the stage
 * tile's shape (rows: its leading dims; columns: its last), double-buffered
 * when a second stage is given. */
static struct pld_p2p_kw staged_kw(const char *file, int line, const char *op, pl_tensor dst,
                                   const struct pld_tile_p2p_kw *kw)
{
    char a[64], b[64];
    pld__check_tile(file, line, op, "stage", kw->stage);
    if (kw->stage.dtype != dst.dtype)
        pld__fail(PLD_EINVAL, file, line, op, "dtype mismatch: stage is %s but dst '%s' is %s",
                  pl_dtype_name(kw->stage.dtype), dst.name, pl_dtype_name(dst.dtype));
    int two = kw->stage2.dtype != 0;
    if (two) {
        pld__check_tile(file, line, op, "stage2", kw->stage2);
        /* one tile as both stages would price an overlap that one buffer
         * cannot give: a chunk would land in the tile its predecessor is
         * still leaving */
        if (kw->stage2.data == kw->stage.data)
            pld__fail(PLD_EINVAL, file, line, op,
                      ".stage2 is the same tile as .stage: double buffering alternates between "
                      "two tiles; pass a second tile, or leave .stage2 out");
        if (kw->stage2.dtype != kw->stage.dtype ||
            !pld__shape_eq(kw->stage2.shape, kw->stage.shape))
            pld__fail(PLD_EINVAL, file, line, op,
                      "stage2 is %s %s but stage is %s %s; the two stages of a double-buffered "
                      "transfer must match",
                      pld__shape_str(kw->stage2.shape, a, sizeof a),
                      pl_dtype_name(kw->stage2.dtype), pld__shape_str(kw->stage.shape, b, sizeof b),
                      pl_dtype_name(kw->stage.dtype));
    }
    pl_shape st = kw->stage.shape;
    int64_t cols = st.dim[st.ndim - 1];
    return (struct pld_p2p_kw){.peer = kw->peer,
                               .src = kw->src,
                               .dst_offsets = kw->dst_offsets,
                               .src_offsets = kw->src_offsets,
                               .shape = kw->shape,
                               .atomic = kw->atomic,
                               .chunk_rows = pl_shape_numel(st) / cols,
                               .chunk_cols = cols,
                               .pipeline = two};
}

void pld__tile_put(const char *file, int line, pld_dtensor dst, struct pld_tile_p2p_kw kw)
{
    static const char op[] = "pld_tile_put";
    put(file, line, op, dst, staged_kw(file, line, op, dst, &kw), 1);
}

void pld__tile_get(const char *file, int line, pl_tensor dst, struct pld_tile_p2p_kw kw)
{
    static const char op[] = "pld_tile_get";
    pld__op_rank(file, line, op);
    if (kw.atomic != PL_ATOMIC_NONE)
        pld__fail(PLD_EINVAL, file, line, op, "get has no .atomic");
    get(file, line, op, dst, staged_kw(file, line, op, dst, &kw), 1);
}

/* The region of an async put must be logically 1-D, as the SDMA engine
 * copies one flat contiguous run of bytes. */
static void check_flat(const char *file, int line, const char *op, pl_shape shape)
{
    char a[64];
    for (int i = 0; i + 1 < shape.ndim; i++)
        if (shape.dim[i] != 1)
            pld__fail(PLD_EINVAL, file, line, op,
                      "the region %s is not logically 1-D: an async put copies one contiguous "
                      "run, so every dimension but the last must be 1",
                      pld__shape_str(shape, a, sizeof a));
}

pld_async_event pld__put_async(const char *file, int line, pld_dtensor dst,
                               struct pld_put_async_kw kw)
{
    static const char op[] = "pld_tensor_put_async";
    int me;
    double t0;
    int peer = begin_remote(file, line, op, "dst", dst, kw.peer, &me, &t0);
    if (kw.src.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .src");
    pld__check_member(file, line, op, "src", &kw.src);
    pld__async_check_session(file, line, op, kw.session);
    struct pld_p2p_kw p2p = {.peer = peer,
                             .src = kw.src,
                             .dst_offsets = kw.dst_offsets,
                             .src_offsets = kw.src_offsets,
                             .shape = kw.shape};
    struct region r = p2p_region(file, line, op, dst, kw.src, &p2p);
    check_flat(file, line, op, r.shape);
    int64_t total = pl_shape_numel(r.shape) * (int64_t)pl_dtype_size(dst.dtype);
    int data = pld__has_data(&dst) && pld__has_data(&kw.src);
    struct pld__async_put p = {.peer = peer,
                               .file = file,
                               .line = line,
                               .dst = dst,
                               .src = kw.src,
                               .dst_off = r.dst_off,
                               .src_off = r.src_off,
                               .shape = r.shape,
                               .bytes = total};
    struct pld__region rg = pld__region_of(dst, r.dst_off, r.shape);
    struct pld__span src = {data ? pld__elem_ptr(kw.src, me, r.src_off) : NULL, kw.src.shape};
    pld__price_async(&p.c, me, peer, total, kw.session.block_bytes);
    const struct pld_backend *be = pld__R->be;
    int rc;
    if (be->write_async) {
        rc = be->write_async(peer, dst.win, &rg, src, &p.c, &p.handle);
    } else {
        /* no engines: the bytes move now, and the wait has nothing to do */
        p.c.before += p.c.engine;
        rc = be->write(peer, dst.win, &rg, src, PL_ATOMIC_NONE, &p.c);
    }
    /* in flight until its wait, which records the transfer once the bytes
     * have landed */
    pld__observe(&(struct pld__observed){.op = PLD__OP_PUT_ASYNC,
                                         .api = op,
                                         .file = file,
                                         .line = line,
                                         .t0 = t0,
                                         .from = me,
                                         .to = peer,
                                         .rc = rc,
                                         .cost = &p.c,
                                         .issued = &p,
                                         .peer = peer,
                                         .t = &dst,
                                         .elem_off = offset_bytes(dst, r.dst_off),
                                         .bytes = total,
                                         .value = PLD__MISSING});
    return pld__async_add(file, line, op, kw.session, &p);
}
