/* embed.c: what a language front end needs to run its interpreter inside
 * the ranks (pld_embed.h): the primitives under the front end's own op
 * names, and errors that the front end found itself.  The guards are
 * guard.c's: the backends call them, and must not climb up to the API. */
#include "internal.h"
#include "cost.h"
#include "mem.h"
#include "observe.h"
#include "backend.h"

#include <pld/pld_embed.h>

#include <string.h>

void pld_embed_set_op_names(const char *(*rename)(const char *op))
{
    pld__op_rename = rename;
}

_Noreturn void pld_embed_fail(int code, const char *file, int line, const char *op,
                              const char *preface, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pld__vfail(code, file, line, op, preface, fmt, ap);
}

int pld_embed_self(void)
{
    return pld__self();
}

double pld_embed_ub_usable(void)
{
    int self = pld__self();
    return pld__R && self >= 0 ? pld__R->ranks[self].dev.ub_usable_bytes : 0;
}

pl_tile pld_embed_load(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                       pl_shape shape, struct pl_load_kw kw)
{
    return pld__load_as(file, line, op, t, offsets, shape, kw);
}

pl_tensor pld_embed_store(const char *file, int line, const char *op, pl_tile tile,
                          pl_shape offsets, pl_tensor t, struct pl_store_kw kw)
{
    return pld__store_as(file, line, op, tile, offsets, t, kw);
}

void pld_embed_remote_store(const char *file, int line, const char *op, pl_tile tile,
                            pld_dtensor target, struct pld_remote_store_kw kw)
{
    pld__remote_store_as(file, line, op, tile, target, kw);
}

void pld_embed_incore_unwind(void)
{
    int self = pld__self();
    if (!pld__R || self < 0 || !pld__R->ranks[self].kernel)
        return;
    struct pld__rank *rk = &pld__R->ranks[self];
    pld__pipes_settle(rk); /* the work its cube issued was done, as at a normal end */
    pld__ub_discard(rk);
    rk->kernel = NULL;
}

int pld_embed_load_into(const char *file, int line, const char *op, pl_tensor t, pl_shape offsets,
                        pl_shape shape, struct pl_load_kw kw, void *dst, pl_shape *valid)
{
    return pld__load_into(file, line, op, t, offsets, shape, kw, dst, valid);
}

void pld_embed_store_from(const char *file, int line, const char *op, pl_dtype dtype,
                          const void *src, pl_shape shape, pl_shape valid, pl_shape offsets,
                          pl_tensor t, struct pl_store_kw kw, int from_acc)
{
    pld__store_from(file, line, op, dtype, src, shape, valid, offsets, t, kw, from_acc);
}

double pld_embed_tile_get(const char *file, int line, const char *op, pl_tile t, int64_t flat)
{
    return pld__tile_get_as(file, line, op, t, flat);
}

pl_tile pld_embed_tile(const char *file, int line, const char *op, pl_dtype dtype, pl_shape shape,
                       pl_shape valid, const void *values)
{
    /* --timing-only: a result computed from operands without values has
     * none either (NULL), even of a dtype whose values the run keeps; a
     * front end gives explicit zeros for a fresh tile */
    pl_tile t = pld__tile_alloc(file, line, op, dtype, shape, !values && pld__R->cfg->timing_only);
    size_t bytes = (size_t)pl_shape_numel(shape) * pl_dtype_size(dtype);
    if (t.no_data) /* --timing-only: the values are dropped */
        ;
    else if (values)
        memcpy(t.data, values, bytes);
    else
        memset(t.data, 0, bytes);
    if (valid.ndim) {
        t.valid = valid;
        pld__tile_zero_tail(&t);
    }
    return t;
}

void pld_embed_charge_vector(const char *file, int line, const char *op, int64_t elems)
{
    pld__op_rank(file, line, op);
    pld__charge_vector(elems);
}

void pld_embed_matmul(const char *file, int line, const char *op, int64_t m, int64_t n, int64_t k,
                      pl_dtype dtype)
{
    struct pld__rank *rk = pld__cube_rank(file, line, op);
    double s = pld__cube_matmul_seconds(&rk->dev, m, n, k, dtype), t1;
    if (s < 0)
        pld__fail(PLD_EPLATFORM, file, line, op,
                  "platform %s gives dev%d no cube rate for %s (cube_rate, cube_int8_rate, "
                  "cube_fp32_rate: docs/models.md)",
                  pld__R->platform_desc, rk->device_id, pl_dtype_name(dtype));
    double t0 = pld__pipe_issue(rk, PLD__PIPE_M, s, &t1);
    pld__observe_work(PLD__OP_MATMUL, t0, t1, -1, 2 * m * n * k, file, line);
}

void pld_embed_cube_move(const char *file, int line, const char *op, enum pld_cube_path path,
                         int64_t bytes)
{
    struct pld__rank *rk = pld__cube_rank(file, line, op);
    enum pld__cube_path p = path == PLD_CUBE_TO_L0A   ? PLD__CUBE_L1_TO_L0A
                            : path == PLD_CUBE_TO_L0B ? PLD__CUBE_L1_TO_L0B
                                                      : PLD__CUBE_DRAIN;
    double t1, t0 = p == PLD__CUBE_DRAIN
                        ? pld__pipe_issue_gm(rk, PLD__PIPE_FIX, (double)bytes, 0, &t1)
                        : pld__pipe_issue(rk, PLD__PIPE_MTE1,
                                          pld__cube_move_seconds(&rk->dev, p, (double)bytes), &t1);
    pld__observe_work(PLD__OP_CUBE_MOVE, t0, t1, -1, bytes, file, line);
}
