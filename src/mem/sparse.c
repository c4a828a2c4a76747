/* sparse.c: window buffers whose copies are kept cell by cell, each cell
 * made on first touch.
 *
 * Why: the ring collectives take upstream's signal window, [2(P-1), P] INT32
 * per rank, and every round writes one cell of a different row.  Stored
 * densely, each round touches a fresh 4 KiB page of every rank's copy: 8 GiB
 * at P=1024 for 2 MiB of live cells, and 512 GiB at P=4096.  A round's two
 * cells of a row are 8 bytes apart, so lines of 32 bytes held 1.25 cells
 * on average and cost 48 bytes (with the cells' notifiers) plus 16 of hash
 * table each: 2.8 GB at P=4096.  A line is now one 4-byte cell (sparse
 * buffers are INT32) stored with its own key, 12 bytes, plus its notifier
 * and a 4-byte hash slot: about 21 bytes a cell, 1.4 GB at P=4096.
 *
 * How: the buffer gets an address range of its own, so every address
 * computation stays as it is.  On a 64-bit machine the range is made up:
 * it lies between 2^53 and 2^56, where no user mapping is (non-canonical on
 * x86-64 with 4-level paging, past the 48- or 52-bit address space of
 * arm64, and only given on request under 5-level paging), so it costs no
 * address space at all and any access that forgets to go through here
 * faults instead of corrupting.  Reserving P copies with mmap (PROT_NONE)
 * did too, but counted P x the buffer against ulimit -v: an 8 GiB signal
 * window was refused under a 4 GiB limit while its cells took a few KiB
 * (issue 41).  A 32-bit machine has no such room and still reserves.  Element access
 * goes through pld__cell and region copies through pld__sparse_row; both map
 * an address in the range to its line.  Lines never move, so a cell's
 * address (which waits, the race detector and traces keep) is stable.
 * Unwritten lines read as zeros, like the dense calloc'd copies.  The hash
 * table holds only line indices: a probe checks the key kept in the line,
 * which is in the same cache line as the cell it finds.
 *
 * Only the simulator uses this: its actors run one at a time, so the table
 * needs no lock. */
#include "internal.h"
#include "mem.h"
#include "contract.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE        4  /* one INT32 cell */
#define ARENA_BITS  17 /* 131072 lines, 1.5 MiB per arena */
#define ARENA_LINES ((size_t)1 << ARENA_BITS)
/* A line: its key (line number + 1, in two halves so that 12-byte lines
 * keep every field 4-byte aligned) and its cell. */
struct line {
    uint32_t key_lo, key_hi;
    unsigned char cell[LINE];
};
/* After an arena's lines come their cells' last notifiers (deadlock.c): a
 * 2-byte rank + 1 per cell, 256 KiB.  Arenas are aligned to their size
 * rounded up, so a cell's address finds its arena, and its notifier, with
 * no lookup. */
#define ARENA_DATA  (ARENA_LINES * sizeof(struct line))
#define ARENA_NOTES (ARENA_LINES * sizeof(uint16_t))
#define ARENA_ALIGN ((size_t)2 << 20)
_Static_assert(ARENA_DATA + ARENA_NOTES <= ARENA_ALIGN, "an arena fits its alignment");

/* Each copy (rank) has its own table, an array of 4-byte line indices + 1
 * (0 = empty) filled to 3/4 before it doubles, and takes its lines from
 * the arenas CHUNK_LINES at a time.  Why per copy: a rank's signals are
 * looked up together (a wait right after the update that lands in it, the
 * ring's epilogue over every row), and one table for the whole buffer put
 * each lookup in a random place of 32 MB of table and 48 MB of lines at
 * P = 1024: two misses to memory a lookup, 13 % of the ring allreduce.
 * The tables together are as large as the one was: at P = 4096 the ring
 * makes 67 M lines and 0.5 GB of slots, where slots of {key, index} took
 * 1.5 GB.  That is also why it is not the side tables' map (ptrmap.h),
 * whose 16-byte entries would cost 2 GB here. */
#define CHUNK_LINES 256 /* 3 KiB of lines; an arena holds a whole number of them */
_Static_assert(ARENA_LINES % CHUNK_LINES == 0, "chunks tile an arena");

struct copy_table {
    uint32_t *slots; /* index + 1 of the line in the arenas; 0 = empty */
    uint32_t cap, n;
    uint32_t next, end; /* the copy's chunk: its next free line, and its end */
    /* the line found last (index + 1; 0: none) and its key: a wait reads
     * its cell again at each wake, a notify's read-modify-write twice, and
     * a probe of the table is a cache miss at scale (9 % of the ring
     * allreduce at P = 512) */
    uint64_t last_key;
    uint32_t last;
};

struct pld__sparse {
    uintptr_t lo, hi; /* the reserved range */
    size_t copy_bytes;
    struct copy_table *copies;
    size_t n; /* lines in all */
    unsigned char **arenas;
    size_t narenas, used;     /* lines used in the last arena */
    struct pld__sparse *next; /* the run's list (R->sparse): few, one per large INT32 buffer */
};

/* PLD_SPARSE_WINDOWS as pld__sparse_configure read it: 0 off, 1 auto, 2 all */
static int sparse_mode = 1;

int pld__sparse_configure(void)
{
    static const char *const modes[] = {"off", "auto", "all"};
    const char *e = getenv("PLD_SPARSE_WINDOWS");
    sparse_mode = 1;
    if (!e || !*e)
        return 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(e, modes[i]) == 0) {
            sparse_mode = i;
            return 0;
        }
    return pld__config_error(PLD_EUSAGE, "PLD_SPARSE_WINDOWS '%s': expected auto, all or off", e);
}

int pld__sparse_wanted(const struct pld__wbuf *b)
{
    int mode = sparse_mode;
    const struct pld_backend *be = pld__R->be;
    if (mode == 0 || b->dtype != PL_INT32 || !(be->caps & PLD_CAP_TIMED) ||
        (be->caps & PLD_CAP_DISTRIBUTED))
        return 0;
    /* below 16 pages a copy costs little densely, and stays faster */
    return mode == 2 || b->slot >= 16 * 4096;
}

static struct pld__sparse *find(struct pld__sparse *all, uintptr_t p)
{
    for (struct pld__sparse *s = all; s; s = s->next)
        if (p >= s->lo && p < s->hi)
            return s;
    return NULL;
}

#if UINTPTR_MAX > 0xFFFFFFFFu
#define MADE_UP 1
/* The made-up ranges: handed out upward from MADE_UP_LO, and from the
 * bottom again once none is live (each run frees its windows), so a long
 * session never runs out.  The simulator alone makes them, one actor at a
 * time: no lock. */
static const uintptr_t MADE_UP_LO = (uintptr_t)1 << 53, MADE_UP_HI = (uintptr_t)1 << 56;
static uintptr_t made_up_next;
static size_t made_up_live;
#endif

size_t pld__sparse_room(void)
{
#ifdef MADE_UP
    return MADE_UP_HI - MADE_UP_LO;
#else
    return 0; /* a reservation: bounded by the address space */
#endif
}

size_t pld__sparse_taken(void)
{
#ifdef MADE_UP
    /* a freed range is taken until none is live: the room is reused then */
    return made_up_live ? made_up_next - MADE_UP_LO : 0;
#else
    return 0;
#endif
}

unsigned char *pld__sparse_reserve(size_t copies, size_t copy_bytes)
{
    size_t bytes = copies * copy_bytes;
    void *base;
#ifdef MADE_UP
    if (made_up_live == 0)
        made_up_next = MADE_UP_LO;
    if (bytes > MADE_UP_HI - made_up_next)
        return NULL;
#endif
    struct pld__sparse *s = calloc(1, sizeof *s);
    if (!s || !(s->copies = calloc(copies, sizeof *s->copies))) {
        free(s);
        return NULL;
    }
#ifdef MADE_UP
    base = (void *)made_up_next;
    made_up_next += (bytes + 4095) & ~(size_t)4095; /* page-aligned, as mmap's were */
    made_up_live++;
#else
    /* PROT_NONE and MAP_NORESERVE: address space only, never memory */
    base = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        free(s->copies);
        free(s);
        return NULL;
    }
#endif
    s->lo = (uintptr_t)base;
    s->hi = s->lo + bytes;
    s->copy_bytes = copy_bytes;
    s->next = pld__R->sparse;
    pld__R->sparse = s;
    return base;
}

void pld__sparse_release(unsigned char *base)
{
    for (struct pld__sparse **pp = &pld__R->sparse; *pp; pp = &(*pp)->next) {
        struct pld__sparse *s = *pp;
        if (s->lo != (uintptr_t)base)
            continue;
        *pp = s->next;
#ifdef MADE_UP
        made_up_live--;
#else
        munmap(base, s->hi - s->lo);
#endif
        for (size_t i = 0; i < s->narenas; i++)
            free(s->arenas[i]);
        free(s->arenas);
        size_t copies = (s->hi - s->lo) / s->copy_bytes;
        for (size_t c = 0; c < copies; c++)
            free(s->copies[c].slots);
        free(s->copies);
        free(s);
        return;
    }
}

static struct line *line_at(const struct pld__sparse *s, uint32_t index)
{
    return (struct line *)s->arenas[index >> ARENA_BITS] + (index & (ARENA_LINES - 1));
}

static uint64_t key_of(const struct line *l)
{
    return (uint64_t)l->key_hi << 32 | l->key_lo;
}

/* The slot of copy table t holding `key`, or the empty slot where it
 * would go (t->cap > 0). */
static uint32_t slot_of(const struct pld__sparse *s, const struct copy_table *t, uint64_t key)
{
    uint32_t mask = t->cap - 1, i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
    while (t->slots[i] && key_of(line_at(s, t->slots[i] - 1)) != key)
        i = (i + 1) & mask;
    return i;
}

static _Noreturn void out_of_memory(void)
{
    pld__fail(PLD_ENOMEM, "pldsim", 0, "window", "out of memory for sparse window lines");
}

static void grow(const struct pld__sparse *s, struct copy_table *t)
{
    if (t->cap > UINT32_MAX / 2)
        out_of_memory();
    uint32_t cap = t->cap ? 2 * t->cap : 16;
    uint32_t *old = t->slots, *slots = calloc(cap, sizeof *slots);
    if (!slots)
        out_of_memory();
    uint32_t ocap = t->cap;
    t->slots = slots;
    t->cap = cap;
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i])
            slots[slot_of(s, t, key_of(line_at(s, old[i] - 1)))] = old[i];
    free(old);
}

/* A line for copy t: the next of its chunk, or of a new chunk. */
static uint32_t new_line(struct pld__sparse *s, struct copy_table *t)
{
    if (t->next == t->end) {
        if (s->n > UINT32_MAX - 2 * CHUNK_LINES) /* 4 G lines: the index is full */
            out_of_memory();
        if (s->narenas == 0 || s->used == ARENA_LINES) {
            unsigned char **a = realloc(s->arenas, (s->narenas + 1) * sizeof *a);
            if (!a)
                out_of_memory();
            s->arenas = a;
            /* aligned_alloc's size must be a multiple of the alignment; the
             * tail past the notes is never touched, so never resident */
            if (!(a[s->narenas] = aligned_alloc(ARENA_ALIGN, ARENA_ALIGN)))
                out_of_memory();
            memset(a[s->narenas], 0, ARENA_DATA + ARENA_NOTES);
            s->narenas++;
            s->used = 0;
        }
        t->next = (uint32_t)((s->narenas - 1) * ARENA_LINES + s->used);
        t->end = t->next + CHUNK_LINES;
        s->used += CHUNK_LINES;
    }
    s->n++;
    return t->next++;
}

/* The cell of the line holding address p; NULL if it was never written
 * and !create. */
static unsigned char *line_of(struct pld__sparse *s, uintptr_t p, int create)
{
    uint64_t key = (p - s->lo) / LINE + 1;
    struct copy_table *t = &s->copies[(p - s->lo) / s->copy_bytes];
    if (t->last && t->last_key == key) /* lines never move */
        return line_at(s, t->last - 1)->cell;
    uint32_t i = 0;
    if (t->cap) {
        i = slot_of(s, t, key);
        if (t->slots[i]) {
            t->last = t->slots[i];
            t->last_key = key;
            return line_at(s, t->slots[i] - 1)->cell;
        }
    }
    if (!create)
        return NULL;
    if (4 * ((uint64_t)t->n + 1) > 3 * (uint64_t)t->cap) {
        grow(s, t);
        i = slot_of(s, t, key); /* the probe above was in the old table */
    }
    uint32_t index = new_line(s, t);
    struct line *l = line_at(s, index);
    l->key_lo = (uint32_t)key;
    l->key_hi = (uint32_t)(key >> 32);
    t->slots[i] = index + 1;
    t->n++;
    t->last = index + 1;
    t->last_key = key;
    return l->cell;
}

void *pld__cell(void *p)
{
    struct pld__sparse *s = find(pld__R->sparse, (uintptr_t)p);
    if (!s)
        return p;
    return line_of(s, (uintptr_t)p, 1) + ((uintptr_t)p - s->lo) % LINE;
}

/* Bytes from p to the end of its line, at most n. */
static size_t piece(const struct pld__sparse *s, uintptr_t p, size_t n)
{
    size_t left = LINE - (p - s->lo) % LINE;
    return left < n ? left : n;
}

int pld__sparse_row(pl_dtype dt, unsigned char *dst, const unsigned char *src, size_t bytes,
                    pl_atomic op)
{
    struct pld__sparse *all = pld__R->sparse;
    struct pld__sparse *sd = find(all, (uintptr_t)dst), *ss = find(all, (uintptr_t)src);
    if (!sd && !ss)
        return 0;
    /* gather the source row first, as source and destination may overlap;
     * unwritten lines read as zeros */
    unsigned char small[256], *buf = bytes <= sizeof small ? small : malloc(bytes);
    if (!buf)
        out_of_memory();
    for (size_t k = 0, n; k < bytes; k += n) {
        uintptr_t p = (uintptr_t)src + k;
        n = ss ? piece(ss, p, bytes - k) : bytes - k;
        const unsigned char *line = ss ? line_of(ss, p, 0) : NULL;
        if (!ss)
            memcpy(buf + k, src + k, n);
        else if (line)
            memcpy(buf + k, line + (p - ss->lo) % LINE, n);
        else
            memset(buf + k, 0, n);
    }
    /* pieces hold whole elements: sparse buffers are INT32, a line one cell */
    for (size_t k = 0, n; k < bytes; k += n) {
        uintptr_t p = (uintptr_t)dst + k;
        n = sd ? piece(sd, p, bytes - k) : bytes - k;
        unsigned char *d = sd ? line_of(sd, p, 1) + (p - sd->lo) % LINE : dst + k;
        pld__row_apply(dt, d, buf + k, n, op);
    }
    if (buf != small)
        free(buf);
    return 1;
}

int pld__sparse_active(void)
{
    return pld__R->sparse != NULL;
}

uint16_t *pld__sparse_note(const void *cell)
{
    uintptr_t a = (uintptr_t)cell, base = a & ~(uintptr_t)(ARENA_ALIGN - 1);
    return (uint16_t *)(base + ARENA_DATA) + (a - base) / sizeof(struct line);
}
