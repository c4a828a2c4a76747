/* ub.c: the unified buffer of a kernel.  Tiles are real host memory, freed
 * when the kernel returns.  The capacity check follows what the compiler's
 * buffer planner does on the device: a tile occupies UB from its creation to
 * its last use, so the limit applies to the most bytes live at once.  A
 * single tile larger than the UB fails at once; a peak is found when the
 * kernel returns (only then are the last uses known). */
#include "internal.h"
#include "cost.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

/* Process-wide and never reset, unlike the run's state: a tile kept from an
 * earlier run then never matches a later kernel's epoch. */
static uint64_t next_epoch = 1;

void pld__ub_enter(struct pld__rank *rk)
{
    rk->epoch = __atomic_fetch_add(&next_epoch, 1, __ATOMIC_RELAXED);
    rk->ub_nblocks = 0;
    rk->ub_clock = 0;
}

/* Frees a tile buffer, or keeps it for the next tile of its size. */
static void drop_buffer(struct pld__rank *rk, void *p, size_t bytes)
{
    if (!p)
        return;
    if (rk->nspare == (int)(sizeof rk->spare / sizeof rk->spare[0])) {
        free(rk->spare[0]); /* the oldest goes */
        memmove(rk->spare, rk->spare + 1, (size_t)(rk->nspare - 1) * sizeof rk->spare[0]);
        memmove(rk->spare_bytes, rk->spare_bytes + 1,
                (size_t)(rk->nspare - 1) * sizeof rk->spare_bytes[0]);
        rk->nspare--;
    }
    rk->spare[rk->nspare] = p;
    rk->spare_bytes[rk->nspare++] = bytes;
}

static void *take_buffer(struct pld__rank *rk, size_t bytes)
{
    for (int i = rk->nspare - 1; i >= 0; i--)
        if (rk->spare_bytes[i] == bytes) {
            void *p = rk->spare[i];
            rk->spare[i] = rk->spare[--rk->nspare];
            rk->spare_bytes[i] = rk->spare_bytes[rk->nspare];
            return p;
        }
    return malloc(bytes);
}

static void free_blocks(struct pld__rank *rk)
{
    for (int i = 0; i < rk->ub_nblocks; i++)
        drop_buffer(rk, rk->ub_blocks[i].data, rk->ub_blocks[i].alloc);
    rk->ub_nblocks = 0;
    /* tiles of the finished kernel are now stale */
    rk->epoch = __atomic_fetch_add(&next_epoch, 1, __ATOMIC_RELAXED);
}

struct event {
    uint64_t stamp;
    int64_t delta;
    int block;
};

static int cmp_event(const void *pa, const void *pb)
{
    const struct event *a = pa, *b = pb;
    if (a->stamp != b->stamp)
        return a->stamp < b->stamp ? -1 : 1;
    /* At one stamp, ends go first: an end is stamped just after its block's
     * last use, so a block starting at that stamp was made after the use and
     * never shares UB with it (a load right after a tile's last store used to
     * count both, and could report an overflow that is not there). */
    return (b->delta < 0) - (a->delta < 0);
}

/* Folds of at most this many blocks sort on the stack. */
#define SMALL_FOLD 16

/* A stable insertion sort by cmp_event.  Stable, as glibc's qsort is for
 * arrays this small (a merge sort): events that compare equal keep their
 * order, so the block reported for a peak is the same either way. */
static void sort_small(struct event *ev, int n)
{
    for (int i = 1; i < n; i++) {
        struct event e = ev[i];
        int j = i;
        for (; j > 0 && cmp_event(&ev[j - 1], &e) > 0; j--)
            ev[j] = ev[j - 1];
        ev[j] = e;
    }
}

/* Peak of live bytes over blocks [from, to) of the kernel; *at is the block
 * whose start set it and *count the tiles then live. */
static size_t peak_live(struct pld__rank *rk, int from, int to, int *at, int *count)
{
    int n = to - from, live = 0;
    /* A builtin folds every piece's few tiles (pld__ub_fold): on the stack
     * and by insertion, that costs no malloc and no qsort call each time. */
    struct event small[2 * SMALL_FOLD];
    struct event *ev = n <= SMALL_FOLD ? small : malloc((size_t)(2 * n + 1) * sizeof *ev);
    size_t cur = 0, peak = 0;
    *at = -1;
    *count = 0;
    if (!ev)
        return 0;
    for (int i = 0; i < n; i++) {
        const struct pld__ub_block *b = &rk->ub_blocks[from + i];
        ev[2 * i] = (struct event){b->first, (int64_t)b->bytes, from + i};
        /* a block is live through its last stamp, so it ends just after */
        ev[2 * i + 1] = (struct event){b->last + 1, -(int64_t)b->bytes, from + i};
    }
    if (ev == small)
        sort_small(ev, 2 * n);
    else
        qsort(ev, (size_t)(2 * n), sizeof *ev, cmp_event);
    for (int i = 0; i < 2 * n; i++) {
        int tiles = rk->ub_blocks[ev[i].block].tiles;
        cur += (size_t)ev[i].delta;
        live += ev[i].delta > 0 ? tiles : -tiles;
        if (cur > peak || *at < 0) {
            peak = cur;
            *at = ev[i].block;
            *count = live;
        }
    }
    if (ev != small)
        free(ev);
    return peak;
}

int pld__ub_mark(void)
{
    return pld__R->ranks[pld__self()].ub_nblocks;
}

void pld__ub_fold(int mark)
{
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    if (rk->ub_nblocks - mark < 2 && (rk->ub_nblocks == mark || !rk->ub_blocks[mark].data))
        return; /* nothing to free, nothing to merge */
    int at, count;
    size_t peak = peak_live(rk, mark, rk->ub_nblocks, &at, &count);
    struct pld__ub_block fold = rk->ub_blocks[at];
    fold.data = NULL;
    fold.bytes = peak;
    fold.tiles = count;
    fold.folded = 1;
    for (int i = mark; i < rk->ub_nblocks; i++) {
        const struct pld__ub_block *b = &rk->ub_blocks[i];
        fold.first = b->first < fold.first ? b->first : fold.first;
        fold.last = b->last > fold.last ? b->last : fold.last;
        drop_buffer(rk, b->data, b->alloc);
    }
    /* Without this, a builtin keeps one record per piece until the kernel
     * returns: 2(P-1) per rank for the ring, 1.9 GB at P=4096.  A group
     * right after another group, peaking no higher, can instead extend it,
     * and the kernel's peak stays exactly what it was.  Nothing was made
     * between the two, so any other tile live during the new group was
     * made before the old one and is still live at the old one's end,
     * where the old group's larger peak already counts it.  A higher group
     * keeps its own record: the tiles live beside the old one may have died
     * since. */
    struct pld__ub_block *prev = mark > 0 ? &rk->ub_blocks[mark - 1] : NULL;
    if (prev && prev->folded && prev->bytes >= fold.bytes) {
        prev->last = fold.last > prev->last ? fold.last : prev->last;
        rk->ub_nblocks = mark;
        return;
    }
    rk->ub_blocks[mark] = fold;
    rk->ub_nblocks = mark + 1;
}

void pld__ub_exit(struct pld__rank *rk)
{
    int at, count;
    size_t peak = peak_live(rk, 0, rk->ub_nblocks, &at, &count);
    if ((double)peak > rk->dev.ub_usable_bytes) {
        const struct pld__ub_block *b = &rk->ub_blocks[at];
        pld__fail(PLD_EUBOVERFLOW, rk->kernel_file, rk->kernel_line, "pl_incore",
                  "UB overflow in kernel %s: %d tiles totalling %zu bytes are live at once "
                  "(from %s:%d), and the limit is %.0f bytes usable of %.0f",
                  rk->kernel, count, peak, b->file, b->line, rk->dev.ub_usable_bytes,
                  rk->dev.ub_bytes);
    }
    free_blocks(rk);
}

void pld__ub_discard(struct pld__rank *rk)
{
    free_blocks(rk);
}

void pld__ub_release_all(struct pld__rank *rk)
{
    free_blocks(rk);
    while (rk->nspare > 0)
        free(rk->spare[--rk->nspare]);
    free(rk->ub_blocks);
    rk->ub_blocks = NULL;
    rk->ub_cap = 0;
}

static int add_block(const char *file, int line, const char *op, struct pld__rank *rk, void *data,
                     size_t bytes)
{
    if (rk->ub_nblocks == rk->ub_cap) {
        int cap = rk->ub_cap ? 2 * rk->ub_cap : 16;
        struct pld__ub_block *nb = realloc(rk->ub_blocks, (size_t)cap * sizeof *nb);
        if (!nb)
            pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
        rk->ub_blocks = nb;
        rk->ub_cap = cap;
    }
    uint64_t now = ++rk->ub_clock;
    rk->ub_blocks[rk->ub_nblocks] = (struct pld__ub_block){.data = data,
                                                           .bytes = bytes,
                                                           .alloc = bytes,
                                                           .first = now,
                                                           .last = now,
                                                           .file = file,
                                                           .line = line,
                                                           .tiles = 1};
    return rk->ub_nblocks++;
}

pl_tile pld__tile_alloc(const char *file, int line, const char *op, pl_dtype dt, pl_shape shape,
                        int no_data)
{
    struct pld__rank *rk = pld__op_rank(file, line, op);
    size_t bytes = (size_t)pld__shape_bytes(shape, pl_dtype_size(dt)); /* saturates */
    char a[64];

    if (bytes == (size_t)INT64_MAX)
        pld__fail(PLD_EUBOVERFLOW, file, line, op,
                  "UB overflow in kernel %s: a %s %s tile needs more than 2^63 bytes and the "
                  "limit is %.0f bytes usable of %.0f",
                  rk->kernel, pld__shape_str(shape, a, sizeof a), pl_dtype_name(dt),
                  rk->dev.ub_usable_bytes, rk->dev.ub_bytes);
    if ((double)bytes > rk->dev.ub_usable_bytes)
        pld__fail(PLD_EUBOVERFLOW, file, line, op,
                  "UB overflow in kernel %s: a %s %s tile needs %zu bytes and the limit is %.0f "
                  "bytes usable of %.0f",
                  rk->kernel, pld__shape_str(shape, a, sizeof a), pl_dtype_name(dt), bytes,
                  rk->dev.ub_usable_bytes, rk->dev.ub_bytes);
    /* --timing-only: no tile holds values but those of index-width integers */
    no_data = no_data || !pld__keeps_values(dt);
    pl_tile t = {
        .dtype = dt, .shape = shape, .valid = shape, .epoch = rk->epoch, .no_data = no_data};
    /* a --no-data tile needs no values, only a unique address; every op
     * that makes a tile with values writes all of them */
    size_t alloc = bytes && !no_data ? bytes : 1;
    t.data = take_buffer(rk, alloc);
    if (!t.data)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    t.index = add_block(file, line, op, rk, t.data, bytes);
    rk->ub_blocks[t.index].alloc = alloc;
    return t;
}

void pld__check_tile_rows(const char *file, int line, const char *op, pl_shape shape, pl_dtype dt)
{
    char a[64];
    if (pld__shape_bytes(shape, pl_dtype_size(dt)) == INT64_MAX)
        return; /* past any UB: pld__tile_alloc says so */
    size_t row = (size_t)shape.dim[shape.ndim - 1] * pl_dtype_size(dt);
    int64_t rows = pl_shape_numel(shape) / shape.dim[shape.ndim - 1];
    /* One row is padded to 32 bytes in UB; several rows cannot be, so each
     * must already be a multiple of 32 bytes.  A [M, 1] tile is a column,
     * laid out column-major (upstream's DN layout): then the column, M
     * elements, is what must be a multiple of 32 bytes.  Builtins are exempt:
     * upstream's compiler lays out their ragged chunks itself. */
    if (rows <= 1 || row % PLD__ROW_ALIGN == 0 || pld__R->ranks[pld__self()].collective)
        return;
    size_t column = (size_t)rows * pl_dtype_size(dt);
    if (shape.dim[shape.ndim - 1] == 1 && column % PLD__ROW_ALIGN == 0)
        return;
    pld__fail(PLD_EINVAL, file, line, op,
              "tile shape %s %s has %lld rows of %zu bytes; rows of a multi-row UB tile must be "
              "a multiple of %d bytes, or for a [M, 1] column tile the column of M elements "
              "(use pl_read/pl_write for single elements)",
              pld__shape_str(shape, a, sizeof a), pl_dtype_name(dt), (long long)rows, row,
              PLD__ROW_ALIGN);
}

void pld__ub_transient(const char *file, int line, const char *op, size_t bytes)
{
    struct pld__rank *rk = pld__op_rank(file, line, op);
    add_block(file, line, op, rk, NULL, bytes);
}

void pld__check_tile(const char *file, int line, const char *op, const char *what, pl_tile t)
{
    struct pld__rank *rk = pld__op_rank(file, line, op);
    if (t.data == NULL || t.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, op, "%s is not a tile (uninitialised?)", what);
    if (t.epoch != rk->epoch || t.index < 0 || t.index >= rk->ub_nblocks ||
        rk->ub_blocks[t.index].data != t.data)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s belongs to a kernel that has returned: tiles live in UB only while "
                  "their kernel runs",
                  what);
    rk->ub_blocks[t.index].last = ++rk->ub_clock;
}
