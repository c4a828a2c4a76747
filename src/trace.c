/* trace.c: the text trace, one line per primitive.  Events are kept in
 * memory and written sorted at the end of the run, so the file is the same
 * byte for byte whenever the simulation is. */
#include "backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pld__trace {
    FILE *f;
    char *path;
    struct pld__event *ev;
    size_t n, cap;
};

double pld__now(void)
{
    return pld__R && pld__R->be ? pld__R->be->now() : 0.0;
}

int pld__trace_open(struct pld__run *R, const char *path)
{
    struct pld__trace *t = calloc(1, sizeof *t);
    if (!t) return PLD_ENOMEM;
    t->f = fopen(path, "w");
    if (!t->f) {
        int e = errno;
        free(t);
        return pld__config_error(PLD_EIO, "cannot write trace file %s: %s", path, strerror(e));
    }
    t->path = strdup(path);
    R->trace = t;
    return 0;
}

void pld__trace_add(const struct pld__event *e)
{
    struct pld__trace *t = pld__R ? pld__R->trace : NULL;
    if (!t) return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        struct pld__event *ne = realloc(t->ev, cap * sizeof *ne);
        if (!ne) return; /* a trace is best effort; the run itself goes on */
        t->ev = ne;
        t->cap = cap;
    }
    t->ev[t->n] = *e;
    t->ev[t->n].seq = t->n;
    t->n++;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void pld__trace_op(const char *op, double t0, int peer, const pl_tensor *t, int64_t elem_off,
                   int64_t bytes, int64_t value, const char *file, int line)
{
    if (!pld__R) return;
    int self = pld__self();
    int rec = self >= 0 && pld__R->ranks[self].recording;
    if (!pld__R->trace && !rec) return;
    struct pld__event e = {
        .t0 = t0,
        .t1 = pld__now(),
        .rank = self,
        .op = op,
        .peer = peer,
        .offset = -1,
        .bytes = bytes,
        .value = value,
        .file = file,
        .line = line,
    };
    if (t && t->win) {
        e.where = t->win->name;
        e.offset = t->win->win_offset + t->win_offset + elem_off;
    } else if (t) {
        e.where = t->name;
        e.offset = elem_off;
    }
    if (rec) pld__record_op(&pld__R->ranks[self], &e, t, elem_off);
    if (pld__R->trace) pld__trace_add(&e);
}

/* Sort by start time, then rank (host first), then the order of recording,
 * which is deterministic in a deterministic run. */
static int cmp_event(const void *pa, const void *pb)
{
    const struct pld__event *a = pa, *b = pb;
    if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int pld__trace_close(struct pld__run *R)
{
    struct pld__trace *t = R->trace;
    int rc = 0;
    if (!t) return 0;
    qsort(t->ev, t->n, sizeof *t->ev, cmp_event);
    fprintf(t->f, "# pldsim text trace v1: platform %s, P=%d\n", R->platform_desc, R->P);
    fprintf(t->f, "# %12s %14s %-5s %-16s %-5s %-12s %8s %8s %6s %s\n", "start_ns", "end_ns",
            "rank", "op", "peer", "where", "offset", "bytes", "value", "source");
    for (size_t i = 0; i < t->n; i++) {
        const struct pld__event *e = &t->ev[i];
        char rank[16], peer[16], off[24], bytes[24], value[24];
        if (e->rank >= 0)
            snprintf(rank, sizeof rank, "r%d", e->rank);
        else
            snprintf(rank, sizeof rank, "host");
        if (e->peer >= 0)
            snprintf(peer, sizeof peer, "r%d", e->peer);
        else
            snprintf(peer, sizeof peer, "-");
        if (e->offset >= 0)
            snprintf(off, sizeof off, "%lld", (long long)e->offset);
        else
            snprintf(off, sizeof off, "-");
        if (e->bytes >= 0)
            snprintf(bytes, sizeof bytes, "%lld", (long long)e->bytes);
        else
            snprintf(bytes, sizeof bytes, "-");
        if (e->value != PLD__MISSING)
            snprintf(value, sizeof value, "%lld", (long long)e->value);
        else
            snprintf(value, sizeof value, "-");
        fprintf(t->f, "%14.3f %14.3f %-5s %-16s %-5s %-12s %8s %8s %6s %s:%d\n", e->t0 * 1e9,
                e->t1 * 1e9, rank, e->op, peer, e->where ? e->where : "-", off, bytes, value,
                base_name(e->file), e->line);
    }
    if (fclose(t->f) != 0) rc = pld__config_error(PLD_EIO, "cannot write trace file %s", t->path);
    free(t->ev);
    free(t->path);
    free(t);
    R->trace = NULL;
    return rc;
}
