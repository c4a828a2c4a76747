/* mpi_ops.c: the mpi backend's operations.  remote_load and get are
 * MPI_Get + flush, remote_store and put MPI_Put (or, for atomic Add,
 * MPI_Accumulate) + flush, a notify an MPI_Accumulate; a wait polls its own
 * cell, and watches the abort cell that tells it another rank failed. */
#include "mpi.h"
#include "mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static MPI_Datatype basic_type(pl_dtype dt)
{
    switch (dt) {
    case PL_FP32:
        return MPI_FLOAT;
    case PL_INT32:
        return MPI_INT32_T;
    case PL_INT16:
        return MPI_INT16_T;
    case PL_INT8:
        return MPI_INT8_T;
    case PL_INT64:
        return MPI_INT64_T;
    case PL_UINT32:
        return MPI_UINT32_T;
    case PL_UINT8:
        return MPI_UINT8_T;
    default:
        return MPI_DATATYPE_NULL; /* FP16, BF16, FP8: no MPI type to add with */
    }
}

_Noreturn static void internal_error(const char *what)
{
    fflush(stdout);
    fprintf(stderr, "pldsim: mpi backend: rank %d: %s\n", pld__mpi->me, what);
    pld__mpi->fe->fail_first(PLD_EINVAL);
    pld__mpi_abort_run();
}

/* The target side of a region: a subarray of `elem` over the view. */
static MPI_Datatype region_type(const struct pld__region *rg, MPI_Datatype elem)
{
    int nd = rg->full.ndim, sizes[PL_MAX_DIMS], sub[PL_MAX_DIMS], starts[PL_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        if (rg->full.dim[i] > INT_MAX)
            internal_error("a window view has a dimension beyond INT_MAX elements");
        sizes[i] = (int)rg->full.dim[i];
        sub[i] = (int)rg->shape.dim[i];
        starts[i] = (int)rg->offsets.dim[i];
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(nd, sizes, sub, starts, MPI_ORDER_C, elem, &t);
    MPI_Type_commit(&t);
    return t;
}

/* `dt`'s elements as raw bytes, for copies that need no arithmetic. */
static MPI_Datatype bytes_type(pl_dtype dt)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)pl_dtype_size(dt), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

static int region_count(const struct pld__region *rg)
{
    int64_t n = pl_shape_numel(rg->shape);
    if (n > INT_MAX)
        internal_error("one transfer of more than INT_MAX elements");
    return (int)n;
}

static void get_packed(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                       void *packed)
{
    MPI_Datatype e = bytes_type(rg->dtype), t = region_type(rg, e);
    MPI_Get(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, win_of(b));
    MPI_Win_flush(peer, win_of(b));
    MPI_Type_free(&t);
    MPI_Type_free(&e);
}

/* Atomic Add of 16-bit floats, which MPI cannot add: a compare-and-swap
 * loop on the aligned 32-bit word that holds each element. */
static void add_half(int peer, MPI_Win w, const struct pld__region *rg, const uint16_t *src)
{
    int nd = rg->full.ndim;
    int64_t n = pl_shape_numel(rg->shape), idx[PL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t flat = 0;
        for (int d = 0; d < nd; d++)
            flat = flat * rg->full.dim[d] + rg->offsets.dim[d] + idx[d];
        MPI_Aint at = (MPI_Aint)(rg->base + flat * 2), word = at & ~(MPI_Aint)3;
        int shift = (int)(at - word) * 8; /* little-endian: the low half comes first */
        uint32_t old, seen;
        MPI_Fetch_and_op(NULL, &old, MPI_UINT32_T, peer, word, MPI_NO_OP, w);
        MPI_Win_flush(peer, w);
        for (;;) {
            uint16_t h = (uint16_t)(old >> shift);
            double sum = (double)pld__elem_get(rg->dtype, &h) + pld__elem_get(rg->dtype, &src[k]);
            pld__elem_set(rg->dtype, &h, (float)sum);
            uint32_t want = (old & ~(0xffffu << shift)) | ((uint32_t)h << shift);
            MPI_Compare_and_swap(&want, &old, &seen, MPI_UINT32_T, peer, word, w);
            MPI_Win_flush(peer, w);
            if (seen == old)
                break;
            old = seen;
        }
        for (int d = nd - 1; d >= 0; d--) { /* next element of the region, row-major */
            if (++idx[d] < rg->shape.dim[d])
                break;
            idx[d] = 0;
        }
    }
}

static void put_packed(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                       const void *packed, pl_atomic op)
{
    MPI_Win w = win_of(b);
    if (op == PL_ATOMIC_ADD && basic_type(rg->dtype) == MPI_DATATYPE_NULL) {
        add_half(peer, w, rg, packed);
        return;
    }
    MPI_Datatype e = op == PL_ATOMIC_ADD ? basic_type(rg->dtype) : bytes_type(rg->dtype);
    MPI_Datatype t = region_type(rg, e);
    if (op == PL_ATOMIC_ADD)
        MPI_Accumulate(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, MPI_SUM, w);
    else
        MPI_Put(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, w);
    MPI_Win_flush(peer, w);
    MPI_Type_free(&t);
    if (op != PL_ATOMIC_ADD)
        MPI_Type_free(&e);
}

/* Are the region's elements contiguous in `s`?  Only its leading
 * dimension may be longer than the region's. */
static int is_packed(const struct pld__region *rg, struct pld__span s)
{
    if (s.full.ndim != rg->shape.ndim)
        return 0;
    for (int i = 1; i < rg->shape.ndim; i++)
        if (s.full.dim[i] != rg->shape.dim[i])
            return 0;
    return 1;
}

/* The caller's side of a put/get may be strided: it is packed into (or
 * unpacked from) a contiguous staging copy, as the DMA engine would. */
static void *staging(const struct pld__region *rg)
{
    void *p = malloc((size_t)pl_shape_numel(rg->shape) * pl_dtype_size(rg->dtype));
    if (!p)
        internal_error("out of memory staging a transfer");
    return p;
}

int pld__mpi_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                  struct pld__span dst, struct pld__cost *c)
{
    c->t_start = mpi_now();
    if (peer == pld__mpi->me) {
        pld__shm_read(peer, b, rg, dst); /* a plain load of its own slot */
    } else if (is_packed(rg, dst)) {
        get_packed(peer, b, rg, dst.ptr);
    } else {
        unsigned char *tmp = staging(rg);
        get_packed(peer, b, rg, tmp);
        pld__copy_region(rg->dtype, rg->shape, dst.ptr, dst.full, tmp, rg->shape, PL_ATOMIC_NONE);
        free(tmp);
    }
    c->t_end = mpi_now();
    return 0;
}

int pld__mpi_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                   struct pld__span src, pl_atomic op, struct pld__cost *c)
{
    c->t_start = mpi_now();
    /* MPI makes accumulates atomic only against other MPI atomics on the
     * same location: a rank's own Add goes through MPI too, as its own
     * notifies do, or it races with a peer's */
    if (peer == pld__mpi->me && op == PL_ATOMIC_NONE) {
        pld__shm_write(peer, b, rg, src, op);
    } else if (is_packed(rg, src)) {
        put_packed(peer, b, rg, src.ptr, op);
    } else {
        unsigned char *tmp = staging(rg);
        pld__copy_region(rg->dtype, rg->shape, tmp, rg->shape, src.ptr, src.full, PL_ATOMIC_NONE);
        put_packed(peer, b, rg, tmp, op);
        free(tmp);
    }
    c->t_end = mpi_now();
    return 0;
}

int pld__mpi_notify(int owner, const struct pld__cell_ref *cell, pld_notify_op op, int32_t value,
                    struct pld__cost *c)
{
    MPI_Win w = win_of(cell->b);
    c->t_start = mpi_now();
    /* the notify releases what this rank wrote before it, its own window's
     * local stores included; even its own cell is updated through MPI, so
     * that it is atomic against the peers' notifies */
    pld__mpi_sync_all_windows();
    MPI_Accumulate(&value, 1, MPI_INT32_T, owner, (MPI_Aint)cell->off, 1, MPI_INT32_T,
                   op == PLD_NOTIFY_SET ? MPI_REPLACE : MPI_SUM, w);
    MPI_Win_flush(owner, w);
    c->t_end = mpi_now();
    return 0;
}

/* Tells every process that this run failed with `code`. */
static void raise_abort(int code)
{
    int32_t c = code;
    for (int p = 0; p < pld__mpi->np; p++) {
        MPI_Accumulate(&c, 1, MPI_INT32_T, p, 0, 1, MPI_INT32_T, MPI_REPLACE, pld__mpi->ctl);
        MPI_Win_flush(p, pld__mpi->ctl);
    }
}

static int abort_seen(void)
{
    MPI_Win_sync(pld__mpi->ctl);
    return __atomic_load_n(pld__mpi->abort_cell, __ATOMIC_ACQUIRE) != 0;
}

int pld__mpi_claim_report(void)
{
    const int32_t one = 1, zero = 0;
    int32_t was = 1;
    if (!pld__mpi->abort_cell) /* outside the run's window: no job-wide claim, each speaks */
        return 1;
    MPI_Compare_and_swap(&one, &zero, &was, MPI_INT32_T, 0, 1, pld__mpi->ctl);
    MPI_Win_flush(0, pld__mpi->ctl);
    return was == 0;
}

_Noreturn void pld__mpi_abort_run(void)
{
    int error = pld__mpi->fe->error(), code = error ? error : PLD_EINVAL;
    if (!abort_seen())
        raise_abort(code);
    longjmp(pld__mpi->unwind, 1);
}

static int satisfied(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    return pld__wait_holds(__atomic_load_n(cell, __ATOMIC_ACQUIRE), cmp, expected);
}

void pld__mpi_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected)
{
    MPI_Win w = win_of(ref->b);
    const int32_t *cell = ref->addr; /* its own cell is in this process */
    double timeout = pld__mpi->env->cfg->wait_timeout > 0 ? pld__mpi->env->cfg->wait_timeout : 60.0;
    double deadline = MPI_Wtime() + timeout;
    long nap = 0; /* ns; 0 while polling tightly */
    for (unsigned polls = 0;; polls++) {
        MPI_Win_sync(w);
        if (satisfied(cell, cmp, expected))
            break;
        if (abort_seen()) /* another rank failed: stop here, still counted as waiting */
            longjmp(pld__mpi->unwind, 1);
        if (MPI_Wtime() > deadline) {
            pld__mpi->fe->note(PLD__NOTE_TIMED_OUT);
            pld__mpi->fe->fail_first(PLD_EDEADLOCK);
            raise_abort(PLD_EDEADLOCK);
            longjmp(pld__mpi->unwind, 1);
        }
        if (polls >= 64) {
            /* the notifier may share our core (mpirun --oversubscribe) */
            nap = nap ? (nap < 50000 ? nap * 2 : nap) : 1000;
            struct timespec ts = {0, nap};
            nanosleep(&ts, NULL);
        }
        int flag; /* lets MPI progress one-sided traffic aimed at us */
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    pld__mpi_sync_all_windows(); /* what the notifier put before its notify is now visible */
}
