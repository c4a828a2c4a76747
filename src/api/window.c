/* window.c: the API of symmetric windows: pld_alloc_window_buffer and the
 * typed per-rank views (pld_window).  Their storage is wbuf.c's, below,
 * which the backends and persist.c use without climbing up to the API. */
#include "internal.h"
#include "mem.h"
#include "backend.h"

#include <stdlib.h>
#include <string.h>

pld__alloc_arg pld__alloc_shape_arg(pl_shape s)
{
    return (pld__alloc_arg){.is_shape = 1, .shape = s};
}

pld__alloc_arg pld__alloc_bytes_arg(int64_t bytes)
{
    return (pld__alloc_arg){.is_shape = 0, .bytes = bytes};
}

pld_buffer pld__alloc_window_buffer(const char *file, int line, pld__alloc_arg what,
                                    struct pld_alloc_kw kw)
{
    static const char op[] = "pld_alloc_window_buffer";
    struct pld__run *R = pld__R;
    int64_t bytes;
    char a[64];

    pld__require_level(file, line, op, PLD__LVL_HOST);
    if (what.is_shape) {
        if (kw.dtype == 0)
            pld__fail(PLD_EINVAL, file, line, op,
                      "the shape form needs a dtype: pld_alloc_window_buffer(%s, PL_FP32)",
                      pld__shape_str(what.shape, a, sizeof a));
        if (pl_dtype_size(kw.dtype) == 0)
            pld__fail(PLD_EINVAL, file, line, op, "invalid dtype %d", (int)kw.dtype);
        for (int i = 0; i < what.shape.ndim; i++)
            if (what.shape.dim[i] <= 0)
                pld__fail(PLD_EINVAL, file, line, op, "shape %s: dim %d must be > 0",
                          pld__shape_str(what.shape, a, sizeof a), i);
        bytes = pld__shape_bytes(what.shape, pl_dtype_size(kw.dtype));
    } else {
        if (kw.dtype != 0)
            pld__fail(PLD_EINVAL, file, line, op,
                      "the byte form takes no dtype; for %lld elements of %s write "
                      "pld_alloc_window_buffer(PL_SHAPE(%lld), %s)",
                      (long long)what.bytes, pl_dtype_name(kw.dtype), (long long)what.bytes,
                      pl_dtype_name(kw.dtype));
        if (what.bytes <= 0)
            pld__fail(PLD_EINVAL, file, line, op, "size is %lld bytes, expected > 0",
                      (long long)what.bytes);
        bytes = what.bytes;
    }
    /* a size that wraps (a shape's product, or a slot rounded up past
     * INT64_MAX) would make every later bounds test pass */
    int64_t *size_now = kw.group.g ? &kw.group.g->window_size : &R->window_size;
    if (what.is_shape && bytes == INT64_MAX)
        pld__fail(PLD_EINVAL, file, line, op, "shape %s of %s needs more than 2^63 bytes",
                  pld__shape_str(what.shape, a, sizeof a), pl_dtype_name(kw.dtype));
    if (bytes > INT64_MAX - PLD__SLOT_ALIGN - *size_now)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%lld bytes after the %lld already in the window take it past 2^63 bytes",
                  (long long)bytes, (long long)*size_now);

    struct pld__wbuf *b = calloc(1, sizeof *b);
    if (!b)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    b->id = R->nwbufs++;
    if (kw.name)
        snprintf(b->name, sizeof b->name, "%s", kw.name);
    else
        snprintf(b->name, sizeof b->name, "buf%d", b->id);
    b->bytes = bytes;
    b->dtype = what.is_shape ? kw.dtype : 0;
    b->slot = (bytes + PLD__SLOT_ALIGN - 1) / PLD__SLOT_ALIGN * PLD__SLOT_ALIGN;
    b->group = kw.group.g;
    /* each group has a window of its own: offsets count from its start */
    int64_t *window_size = b->group ? &kw.group.g->window_size : &R->window_size;
    b->win_offset = *window_size;
    b->file = file;
    b->line = line;
    /* zero-filled, like upstream; with --no-data only when a signal needs it,
     * or, under --timing-only, when it holds integers the run keeps (mem.h).
     * A distributed backend allocates now: allocation is collective there,
     * and only the host runs in step in every process. */
    if (R->be->window_alloc) {
        int rc = R->be->window_alloc(b);
        if (rc) {
            free(b);
            pld__fail(rc, file, line, op, "cannot allocate %lld bytes of window in every process",
                      (long long)bytes);
        }
    } else if (!R->cfg->no_data ||
               (R->cfg->timing_only && b->dtype && pld__keeps_values(b->dtype))) {
        pld__materialize(file, line, op, b);
    }
    /* Slots are 32-byte aligned, as upstream's are, so two buffers can
     * share a 64-byte cache line; TWAIT/TNOTIFY invalidate whole lines, and
     * upstream hardware corrupts such layouts (pypto#2800, simpler#2273). */
    const struct pld__wbuf *prev = NULL; /* the buffer before b in b's window */
    for (const struct pld__wbuf *o = R->wbufs; o; o = o->next)
        if (o->group == b->group)
            prev = o;
    *window_size += b->slot;
    /* in the run's list before anything can fail: the teardown frees it */
    if (R->wbufs_tail)
        R->wbufs_tail->next = b;
    else
        R->wbufs = b;
    R->wbufs_tail = b;
    pld__kept_restore(file, line, op, b);
    if (prev && b->win_offset % 64 != 0 && !R->cfg->no_cacheline_check && !pld__mute_host) {
        fflush(stdout);
        fprintf(stderr,
                "%s:%d: host: %s: warning: buffers '%s' (window bytes %lld..%lld) and '%s' "
                "(%lld..%lld) share the 64-byte cache line at window offset %lld, which upstream "
                "hardware corrupts (pypto#2800); make '%s' a multiple of 64 bytes\n",
                file, line, op, prev->name, (long long)prev->win_offset,
                (long long)(prev->win_offset + prev->slot - 1), b->name, (long long)b->win_offset,
                (long long)(b->win_offset + b->slot - 1), (long long)(b->win_offset / 64 * 64),
                prev->name);
    }
    return (pld_buffer){.buf = b};
}

pld_dtensor pld__window(const char *file, int line, pld_buffer buf, pl_shape shape, pl_dtype dtype)
{
    static const char op[] = "pld_window";
    char a[64];
    if (pld__self() == PLD__NOBODY)
        pld__require_level(file, line, op, PLD__LVL_HOST);
    if (!buf.buf)
        pld__fail(PLD_EINVAL, file, line, op, "buffer is not allocated");
    if (pl_dtype_size(dtype) == 0)
        pld__fail(PLD_EINVAL, file, line, op, "invalid dtype %d", (int)dtype);
    if (shape.ndim < 1)
        pld__fail(PLD_EINVAL, file, line, op, "shape has no dims");
    for (int i = 0; i < shape.ndim; i++)
        if (shape.dim[i] <= 0)
            pld__fail(PLD_EINVAL, file, line, op, "shape %s: dim %d must be > 0",
                      pld__shape_str(shape, a, sizeof a), i);
    int64_t need = pld__shape_bytes(shape, pl_dtype_size(dtype)); /* INT64_MAX: too many */
    if (need == INT64_MAX)
        pld__fail(PLD_EINVAL, file, line, op,
                  "a %s %s view needs more than 2^63 bytes but buffer '%s' has %lld",
                  pld__shape_str(shape, a, sizeof a), pl_dtype_name(dtype), buf.buf->name,
                  (long long)buf.buf->bytes);
    if (need > buf.buf->bytes)
        pld__fail(PLD_EINVAL, file, line, op,
                  "a %s %s view needs %lld bytes but buffer '%s' has %lld",
                  pld__shape_str(shape, a, sizeof a), pl_dtype_name(dtype), (long long)need,
                  buf.buf->name, (long long)buf.buf->bytes);
    /* A buffer allocated by bytes has no dtype to say it keeps values under
     * --timing-only; a view that holds integers the run keeps (the counts
     * all_to_all_v reads, routes) says it for it.  Without this the view's
     * writes were dropped and the counts read as absent: every block moved
     * whole, unlike the data run (issue 51). */
    struct pld__run *R = pld__R;
    if (R->cfg->timing_only && !buf.buf->mem && !R->be->window_alloc && pld__keeps_values(dtype))
        pld__materialize(file, line, op, buf.buf);
    pl_tensor t = {.dtype = dtype, .shape = shape, .name = buf.buf->name, .win = buf.buf};
    return t;
}
