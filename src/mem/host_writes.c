/* host_writes.c: the host tensors a run can see, and what ranks write into
 * them.  In one address space a rank's pl_store into a host tensor is simply
 * there afterwards.  A distributed backend runs rank r in process r, so the
 * bytes rank r stored exist only there; at the end of the run every process
 * packs its rank's writes, the backend exchanges the packs, and each process
 * applies the others'.  Tensors are named by allocation order, which is the
 * same in every process that runs the same program. */
#include "internal.h"
#include "mem.h"
#include "contract.h"

#include <stdlib.h>
#include <string.h>

struct live_tensor {
    uint32_t id;
    pl_tensor t; /* data, name, dtype, shape of the whole allocation */
};

struct write_range {
    const unsigned char *p;
    size_t len;
};

/* Every host tensor alive in the process, whether or not a run is in
 * progress: pl_tensor_new is called before pld_run, and --dump-outputs
 * reads them after the backend returns. */
static struct live_tensor *live;
static size_t nlive, live_cap;
static uint32_t next_id;

/* The run's: made by the first store of a rank into a host tensor. */
struct pld__host_writes {
    struct write_range *w;
    size_t n, cap;
};

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = n;
    return 0;
}

void pld__host_tensor_note(const pl_tensor *t)
{
    if (grow((void **)&live, &live_cap, nlive + 1, sizeof *live))
        pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "pl_tensor_new", "out of memory");
    live[nlive++] = (struct live_tensor){.id = next_id++, .t = *t};
}

void pld__host_tensor_forget(const void *data)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i].t.data == data) {
            memmove(&live[i], &live[i + 1], (nlive - i - 1) * sizeof *live);
            nlive--;
            return;
        }
}

const pl_tensor *pld__host_tensor_at(const void *p)
{
    for (size_t i = 0; i < nlive; i++) {
        const unsigned char *d = live[i].t.data;
        if ((const unsigned char *)p >= d &&
            (const unsigned char *)p < d + pl_tensor_bytes(live[i].t))
            return &live[i].t;
    }
    return NULL;
}

static void note_range(struct pld__host_writes *hw, const unsigned char *p, size_t len)
{
    if (hw->n && hw->w[hw->n - 1].p + hw->w[hw->n - 1].len == p) {
        hw->w[hw->n - 1].len += len; /* the next row of the same region */
        return;
    }
    if (grow((void **)&hw->w, &hw->cap, hw->n + 1, sizeof *hw->w))
        pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "pl_store", "out of memory");
    hw->w[hw->n++] = (struct write_range){p, len};
}

void pld__host_written(pl_tensor t, pl_shape offsets, pl_shape shape)
{
    if (t.win || !pld__R || !(pld__R->be->caps & PLD_CAP_DISTRIBUTED) || pld__self() < 0)
        return;
    struct pld__host_writes *hw = pld__R->host_writes;
    if (!hw && !(hw = pld__R->host_writes = calloc(1, sizeof *hw)))
        pld__fail(PLD_ENOMEM, __FILE__, __LINE__, "pl_store", "out of memory");
    int nd = t.shape.ndim;
    size_t es = pl_dtype_size(t.dtype);
    int64_t cols = shape.dim[nd - 1], rows = pl_shape_numel(shape) / cols;
    int64_t idx[PL_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
        pl_shape at = offsets;
        for (int d = 0; d < nd - 1; d++)
            at.dim[d] = offsets.dim[d] + idx[d];
        note_range(hw, pld__elem_ptr(t, 0, at), (size_t)cols * es);
        for (int d = nd - 2; d >= 0; d--) { /* odometer over the leading dims */
            if (++idx[d] < shape.dim[d])
                break;
            idx[d] = 0;
        }
    }
}

void pld__host_writes_free(struct pld__run *R)
{
    if (!R->host_writes)
        return;
    free(R->host_writes->w);
    free(R->host_writes);
    R->host_writes = NULL;
}

static const struct live_tensor *owner_of(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < nlive; i++) {
        const unsigned char *b = live[i].t.data;
        if (p >= b && p + len <= b + pl_tensor_bytes(live[i].t))
            return &live[i];
    }
    return NULL;
}

/* A pack is a sequence of records: tensor id (4 bytes), byte offset and
 * length (8 bytes each, host order: every process is the same program on
 * the same kind of machine), then the bytes. */
enum { HEADER = 4 + 8 + 8 };

int pld__host_writes_pack(unsigned char **out, size_t *len)
{
    const struct pld__host_writes *hw = pld__R->host_writes;
    const struct write_range *w = hw ? hw->w : NULL;
    size_t total = 0, nw = hw ? hw->n : 0;
    for (size_t i = 0; i < nw; i++)
        if (owner_of(w[i].p, w[i].len))
            total += HEADER + w[i].len;
    unsigned char *buf = malloc(total ? total : 1), *q = buf;
    if (!buf)
        return PLD_ENOMEM;
    for (size_t i = 0; i < nw; i++) {
        const struct live_tensor *lt = owner_of(w[i].p, w[i].len);
        if (!lt) /* freed during the run: nobody can read it afterwards */
            continue;
        uint64_t off = (uint64_t)(w[i].p - (const unsigned char *)lt->t.data);
        uint64_t n = w[i].len;
        memcpy(q, &lt->id, 4);
        memcpy(q + 4, &off, 8);
        memcpy(q + 12, &n, 8);
        memcpy(q + HEADER, w[i].p, n);
        q += HEADER + n;
    }
    *out = buf;
    *len = total;
    return 0;
}

int pld__host_writes_apply(const unsigned char *in, size_t len)
{
    while (len > 0) {
        uint32_t id;
        uint64_t off, n;
        if (len < HEADER)
            return PLD_EINVAL;
        memcpy(&id, in, 4);
        memcpy(&off, in + 4, 8);
        memcpy(&n, in + 12, 8);
        if (n > len - HEADER)
            return PLD_EINVAL;
        for (size_t i = 0; i < nlive; i++)
            if (live[i].id == id) {
                if (off > pl_tensor_bytes(live[i].t) || n > pl_tensor_bytes(live[i].t) - off)
                    return PLD_EINVAL;
                memcpy((unsigned char *)live[i].t.data + off, in + HEADER, n);
                break;
            }
        in += HEADER + n;
        len -= HEADER + n;
    }
    return 0;
}

int pld__host_tensors_dump(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return pld__config_error(PLD_EUSAGE, "--dump-outputs '%s': cannot write it", path);
    char s[64];
    for (size_t i = 0; i < nlive; i++) {
        const pl_tensor *t = &live[i].t;
        fprintf(f, "tensor %s %s %s\n", t->name, pl_dtype_name(t->dtype),
                pld__shape_str(t->shape, s, sizeof s));
        int64_t n = pl_shape_numel(t->shape), cols = t->shape.dim[t->shape.ndim - 1];
        size_t es = pl_dtype_size(t->dtype);
        for (int64_t k = 0; k < n; k++)
            /* %.17g of the exact double: equal text means equal bits */
            fprintf(f, "%.17g%c", pld__elem_get(t->dtype, (const unsigned char *)t->data + k * es),
                    (k + 1) % cols == 0 ? '\n' : ' ');
    }
    if (fclose(f) != 0)
        return pld__config_error(PLD_EUSAGE, "--dump-outputs '%s': write failed", path);
    return 0;
}
