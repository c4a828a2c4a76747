/* wbuf.c: the storage of window buffers: their P slots, dense or sparse,
 * materialised on first use, and freed with the run.  Memory layer: the
 * backends, region copies and kept windows use it, and it calls no API. */
#include "internal.h"
#include "mem.h"
#include "contract.h"
#include "units.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* Makes the pages of a dense window as it is made, when the run keeps
 * payloads and the windows made so far fit in an eighth of the machine's
 * memory.  Why: a ring pulls from a neighbour's copy before anything was
 * written there, so each page was faulted twice (the shared zero page, then
 * a copy on write) one trap at a time, and in a virtual machine a trap is
 * dear: at P = 256 the faults were a fifth of the ring allreduce's run
 * (docs/performance.md).  The kernel makes them in one call instead.  The
 * cap keeps a program that leaves most of a huge window untouched from
 * paying for all of it, or meeting the OOM killer. */
static void fault_in(struct pld__wbuf *b, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    static size_t budget;
    if (!budget) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        budget = pages > 0 && page > 0 ? (size_t)pages / 8 * (size_t)page : 1;
    }
    size_t made = 0;
    for (const struct pld__wbuf *o = pld__R->wbufs; o; o = o->next)
        if (o->faulted_in)
            made += (size_t)pld__wbuf_copies(o) * (size_t)o->slot;
    if (pld__R->cfg->no_data || made + bytes > budget || bytes < ((size_t)1 << 20))
        return;
    uintptr_t lo = ((uintptr_t)b->mem + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)b->mem + bytes) & ~(uintptr_t)4095;
    /* a kernel without it (before 5.14) says EINVAL: the pages then come
     * one fault at a time, as before */
    if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
        b->faulted_in = 1;
#else
    (void)b;
    (void)bytes;
#endif
}

/* A sparse window takes memory only for the cells written.  On a 64-bit
 * machine its copies' addresses are made up and cost nothing, but the
 * sparse windows of a run share a fixed room (sparse.c); elsewhere they are
 * reserved, and a limit on the address space (ulimit -v) can refuse them.
 * Falling back to a dense window would ask for the same bytes as memory,
 * and advising --no-data was wrong: a signal window is kept under
 * --no-data too. */
_Noreturn static void sparse_refused(const char *file, int line, const char *op,
                                     const struct pld__wbuf *b)
{
    size_t room = pld__sparse_room(), taken = pld__sparse_taken();
    int copies = pld__wbuf_copies(b);
    char limit[192] = "", need[32], size[32], used[32];
    struct rlimit rl;
    if (room && taken)
        snprintf(limit, sizeof limit,
                 "; the sparse windows of a run share %s of addresses, and its earlier ones have "
                 "taken %s of it",
                 pld__format_size((double)room, size, sizeof size),
                 pld__format_size((double)taken, used, sizeof used));
    else if (room)
        snprintf(limit, sizeof limit, "; the sparse windows of a run share %s of addresses",
                 pld__format_size((double)room, size, sizeof size));
    else if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, "; this process's address space is limited to %s (ulimit -v)",
                 pld__format_size((double)rl.rlim_cur, size, sizeof size));
    pld__fail(PLD_ENOMEM, file, line, op,
              "cannot give window '%s' %s of addresses (%d cop%s of %lld bytes; a sparse "
              "INT32 window uses memory only for the cells written, but each copy needs its own "
              "addresses)%s; expected a window whose copies fit: %s",
              b->name, pld__format_size((double)copies * (double)b->slot, need, sizeof need),
              copies, copies == 1 ? "y" : "ies", (long long)b->slot, limit,
              room ? "make the window smaller" : "raise the limit or make the window smaller");
}

void pld__materialize(const char *file, int line, const char *op, struct pld__wbuf *b)
{
    if (b->mem)
        return;
    int copies = pld__wbuf_copies(b);
    if ((size_t)b->slot > SIZE_MAX / (size_t)copies) /* the copies would wrap size_t */
        pld__fail(PLD_ENOMEM, file, line, op,
                  "out of memory for %d copies of %lld bytes of window '%s'", copies,
                  (long long)b->slot, b->name);
    if (pld__sparse_wanted(b)) {
        b->mem = pld__sparse_reserve((size_t)copies, (size_t)b->slot);
        b->sparse = b->mem != NULL;
        if (!b->mem)
            sparse_refused(file, line, op, b);
    }
    if (!b->mem && (b->mem = calloc((size_t)copies, (size_t)b->slot))) {
        fault_in(b, (size_t)copies * (size_t)b->slot);
        pld__R->window_bytes += (uint64_t)copies * (uint64_t)b->slot;
    }
    if (!b->mem)
        pld__fail(PLD_ENOMEM, file, line, op,
                  "out of memory for %d copies of %lld bytes of window '%s'%s", copies,
                  (long long)b->slot, b->name,
                  pld__R->cfg->no_data ? "" : " (timing studies can use --no-data)");
}

int pld__keeps_values(pl_dtype dt)
{
    /* Why these: a timing study must take the path the data would take
     * (MoE routing reads expert ids, all_to_all_v reads its counts), and
     * such values are index-width integers a few per token; payloads are
     * floats or 8-bit integers, and are the bytes a study cannot afford. */
    return !pld__R->cfg->timing_only || dt == PL_INT32 || dt == PL_INT64 || dt == PL_UINT32;
}

int pld__has_data(const pl_tensor *t)
{
    return !t->win || t->win->mem != NULL;
}

/* The lines whose reads without a value were told, a process's first few:
 * once a line, because a model layer reads in loops; but each line, because
 * the read that steers (a route read from an argsort of scores, the
 * integer a MoE dispatch goes by) is rarely the first read of a run. */
enum { TOLD_LINES = 8 };
static struct {
    const char *file;
    int line;
} told[TOLD_LINES + 1];
static int ntold;
static pthread_mutex_t told_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 if file:line is to be told now (the first time, and among the first
 * TOLD_LINES lines), 2 for the line after those (told that more go
 * untold), 0 otherwise. */
static int tell_line(const char *file, int line)
{
    int tell = 0;
    pthread_mutex_lock(&told_lock);
    int k = 0;
    while (k < ntold && !(told[k].line == line && strcmp(told[k].file, file) == 0))
        k++;
    if (k == ntold && ntold <= TOLD_LINES) {
        told[ntold].file = file;
        told[ntold++].line = line;
        tell = ntold <= TOLD_LINES ? 1 : 2;
    }
    pthread_mutex_unlock(&told_lock);
    return tell;
}

double pld__no_value(const char *file, int line, const char *op, pl_dtype dt, const char *what)
{
    if (!pld__R->cfg->timing_only)
        pld__fail_no_data(file, line, op, what);
    int tell = pld__mute_host ? 0 : tell_line(file, line);
    if (tell == 1) {
        fflush(stdout);
        fprintf(stderr,
                "%s:%d: rank %d: %s: warning: --timing-only keeps no values but INT32, INT64 and "
                "UINT32 ones computed from such integers, so this %s read gives 0; a run whose "
                "path depends on it may take another path than with data (said once for this "
                "line)\n",
                file, line, pld__self(), op, pl_dtype_name(dt));
    } else if (tell == 2) {
        fflush(stdout);
        fprintf(stderr,
                "%s:%d: rank %d: %s: warning: --timing-only: more lines read values it does not "
                "keep, from here on untold (%d told above)\n",
                file, line, pld__self(), op, TOLD_LINES);
    }
    return 0;
}

_Noreturn void pld__fail_no_data(const char *file, int line, const char *op, const char *what)
{
    if (pld__R->cfg->timing_only)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s: this run is --timing-only, which computes no values; drop --timing-only "
                  "to read results",
                  what);
    pld__fail(PLD_EINVAL, file, line, op,
              "%s: this run is --no-data, which keeps no window payloads; drop --no-data to "
              "read results",
              what);
}

void pld__windows_free(struct pld__run *R)
{
    struct pld__wbuf *b = R->wbufs, *n;
    for (; b; b = n) {
        n = b->next;
        if (R->be->window_free)
            R->be->window_free(b);
        else if (b->sparse)
            pld__sparse_release(b->mem);
        else
            free(b->mem);
        free(b);
    }
    R->wbufs = R->wbufs_tail = NULL;
}

int pld__wbuf_copies(const struct pld__wbuf *b)
{
    return b->group ? b->group->n : pld__R->P;
}

unsigned char *pld__slot(const struct pld__wbuf *b, int rank)
{
    if (!(pld__R->be->caps & PLD_CAP_DISTRIBUTED)) {
        int i = b->group ? b->group->index[rank] : rank;
        if (i < 0) { /* the API translates group ranks and checks membership first */
            fprintf(stderr,
                    "pldsim: internal error: device %d's slot of window '%s' (of %s) addressed\n",
                    rank, b->name, b->group->desc);
            abort();
        }
        return b->mem + (size_t)i * (size_t)b->slot;
    }
    /* only this process's rank has a slot here; the front end reaches the
     * others through pld__remote_*, so anything else is a bug in libpld */
    if (rank != pld__self()) {
        fprintf(stderr, "pldsim: internal error: rank %d's slot of window '%s' addressed from %d\n",
                rank, b->name, pld__self());
        abort();
    }
    return b->mem;
}
