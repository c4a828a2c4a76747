/* events.c: the event log of a run: one record per primitive, one per
 * transfer, and which notify released each wait.  Kept in memory when a
 * trace or the summary is asked for, and written sorted at the end of the
 * run, so a file is the same byte for byte whenever the simulation is. */
#include "internal.h"
#include "backend.h"
#include "trace.h"
#include "observe.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Ranks may be threads (threads backend); the log is shared. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void pld__op_done(const char *file, int line, enum pld__op op, int from, int to, int rc,
                  const struct pld__cost *c)
{
    struct pld__run *R = pld__R;
    if (rc != 0)
        pld__fail(PLD_EPLATFORM, file, line, pld__ops[op].api,
                  "platform %s has no route from dev%d (rank %d) to dev%d (rank %d)",
                  R->platform_desc, R->ranks[from].device_id, from, R->ranks[to].device_id, to);
    if (from == to || c->bytes <= 0)
        return;
    pld__trace_xfer(c->t_start, c->t_end, from, to, c->bytes, pld__ops[op].kind == PLD__KIND_SIGNAL,
                    op == PLD__OP_PUT_ASYNC);
    /* ranks may be threads (threads backend): count atomically */
    uint64_t bytes = (uint64_t)c->bytes;
    __atomic_fetch_add(&R->bytes_moved, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->transfers, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[from].bytes_sent, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->ranks[to].bytes_received, bytes, __ATOMIC_RELAXED);
}

int pld__trace_open(struct pld__run *R, const char *path)
{
    struct pld__trace *t = calloc(1, sizeof *t);
    if (!t)
        return PLD_ENOMEM;
    if (path) {
        /* fail now rather than after a long run */
        FILE *f = fopen(path, "w");
        if (!f) {
            int e = errno;
            free(t);
            return pld__config_error(PLD_EIO, "cannot write trace file %s: %s", path, strerror(e));
        }
        fclose(f);
        t->path = strdup(path);
    }
    t->summary = R->cfg->detailed_summary;
    R->trace = t;
    return 0;
}

static int64_t trace_add_locked(const struct pld__event *e);

void pld__trace_add(const struct pld__event *e)
{
    pthread_mutex_lock(&log_lock);
    trace_add_locked(e);
    pthread_mutex_unlock(&log_lock);
}

static int64_t trace_add_locked(const struct pld__event *e)
{
    struct pld__trace *t = pld__R ? pld__R->trace : NULL;
    if (!t)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        struct pld__event *ne = realloc(t->ev, cap * sizeof *ne);
        if (!ne)
            return -1; /* a trace is best effort; the run itself goes on */
        t->ev = ne;
        t->cap = cap;
    }
    t->ev[t->n] = *e;
    t->ev[t->n].seq = t->n;
    t->ev[t->n].cause = -1;
    return (int64_t)t->n++;
}

int64_t pld__trace_op(enum pld__op op, double t0, double t1, int peer, const pl_tensor *t,
                      int64_t elem_off, int64_t bytes, int64_t value, const char *file, int line)
{
    if (!pld__R)
        return -1;
    int self = pld__self();
    int rec = self >= 0 && pld__R->ranks[self].recording;
    if (!pld__R->trace && !rec)
        return -1;
    struct pld__event e = {
        .t0 = t0,
        .t1 = t1 > 0 ? t1 : pld__now(),
        .rank = self,
        .id = op,
        .op = pld__ops[op].trace,
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
    if (rec)
        pld__record_op(&pld__R->ranks[self], &e, t, elem_off);
    if (!pld__R->trace)
        return -1;
    pthread_mutex_lock(&log_lock);
    int64_t seq = trace_add_locked(&e);
    pthread_mutex_unlock(&log_lock);
    return seq;
}

/* The index of the route from -> to in t->routes, made on first sight with
 * its links; -1 if the backend has none (or memory ran out: the link
 * counters then leave the transfer out).  Under log_lock. */
static int route_locked(struct pld__trace *t, int from, int to)
{
    const struct pld_backend *be = pld__R->be;
    if (!be->route_links || !be->link_name)
        return -1;
    uintptr_t key = ((uintptr_t)from << 32 | (uintptr_t)to) + 1;
    int fresh = 0;
    uint64_t *v = pld__ptrmap_put(&t->route_of, key, &fresh);
    if (!v)
        return -1;
    if (!fresh)
        return (int)*v - 1;
    *v = 0; /* -1 until it is made */
    double lat = 0;
    int n = be->route_links(from, to, NULL, 0, &lat);
    int *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
    if (!ids || t->nroutes == t->caproutes) {
        size_t cap = t->caproutes ? 2 * t->caproutes : 64;
        struct pld__trace_route *r = ids ? realloc(t->routes, cap * sizeof *r) : NULL;
        if (!r) {
            free(ids);
            return -1;
        }
        t->routes = r;
        t->caproutes = cap;
    }
    be->route_links(from, to, ids, n, &lat);
    for (int i = 0; i < n; i++) {
        size_t id = (size_t)ids[i];
        if (id >= t->nlinks) {
            struct pld__trace_link *l = realloc(t->links, (id + 1) * sizeof *l);
            if (!l) {
                free(ids);
                return -1;
            }
            memset(l + t->nlinks, 0, (id + 1 - t->nlinks) * sizeof *l);
            t->links = l;
            t->nlinks = id + 1;
        }
        if (!t->links[id].name) {
            const char *name = be->link_name((int)id, &t->links[id].bw);
            t->links[id].name = strdup(name ? name : "?");
        }
    }
    t->routes[t->nroutes] = (struct pld__trace_route){from, to, n, ids, lat};
    *v = ++t->nroutes;
    return (int)t->nroutes - 1;
}

void pld__trace_xfer(double t0, double t1, int from, int to, double bytes, int is_signal,
                     int is_async)
{
    struct pld__trace *t = pld__R ? pld__R->trace : NULL;
    if (!t)
        return;
    double bw = pld__R->be->route_bw ? pld__R->be->route_bw(from, to) : 0;
    pthread_mutex_lock(&log_lock);
    if (t->nx == t->capx) {
        size_t cap = t->capx ? 2 * t->capx : 1024;
        struct pld__xfer *nx = realloc(t->xf, cap * sizeof *nx);
        if (!nx) {
            pthread_mutex_unlock(&log_lock);
            return;
        }
        t->xf = nx;
        t->capx = cap;
    }
    t->xf[t->nx++] = (struct pld__xfer){.t0 = t0,
                                        .t1 = t1,
                                        .from = from,
                                        .to = to,
                                        .initiator = pld__self(),
                                        .bytes = bytes,
                                        .is_signal = is_signal,
                                        .is_async = is_async,
                                        .route_bw = bw,
                                        .route = route_locked(t, from, to)};
    pthread_mutex_unlock(&log_lock);
}

void pld__trace_note_cell(const void *cell, int64_t seq)
{
    struct pld__trace *t = pld__R ? pld__R->trace : NULL;
    if (!t || seq < 0)
        return;
    pthread_mutex_lock(&log_lock);
    uint64_t *v = pld__ptrmap_put(&t->cells, (uintptr_t)cell, NULL);
    if (v) /* out of memory: that wait's cause stays unknown */
        *v = (uint64_t)seq;
    pthread_mutex_unlock(&log_lock);
}

void pld__trace_set_cause(int64_t seq, const void *cell)
{
    struct pld__trace *t = pld__R ? pld__R->trace : NULL;
    if (!t || seq < 0)
        return;
    pthread_mutex_lock(&log_lock);
    const uint64_t *v = pld__ptrmap_find(&t->cells, (uintptr_t)cell);
    if (v)
        t->ev[seq].cause = (int64_t)*v;
    pthread_mutex_unlock(&log_lock);
}

/* Sort by start time, then rank (host first), then the order of recording,
 * which is deterministic in a deterministic run. */
static int cmp_event(const void *pa, const void *pb)
{
    const struct pld__event *a = pa, *b = pb;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int pld__trace_close(struct pld__run *R)
{
    struct pld__trace *t = R->trace;
    int rc = 0;
    if (!t)
        return 0;
    /* causes refer to recording order; sort a copy's index instead of the
     * events, then renumber causes to sorted positions */
    size_t *pos = malloc((t->n ? t->n : 1) * sizeof *pos);
    qsort(t->ev, t->n, sizeof *t->ev, cmp_event);
    if (pos) {
        for (size_t i = 0; i < t->n; i++)
            pos[t->ev[i].seq] = i;
        for (size_t i = 0; i < t->n; i++)
            if (t->ev[i].cause >= 0)
                t->ev[i].cause = (int64_t)pos[t->ev[i].cause];
        for (size_t i = 0; i < t->n; i++)
            t->ev[i].seq = i;
        free(pos);
    }
    if (t->path) {
        FILE *f = fopen(t->path, "w");
        if (!f ||
            (ends_with(t->path, ".json")  ? pld__write_json(f, R, t)
             : ends_with(t->path, ".svg") ? pld__write_svg(f, R, t)
                                          : pld__write_text(f, R, t)) != 0 ||
            fclose(f) != 0)
            rc = pld__config_error(PLD_EIO, "cannot write trace file %s", t->path);
    }
    if (t->summary)
        pld__print_summary(stdout, R, t);
    if (R->cfg->summary_json) {
        const char *sp = R->cfg->summary_json;
        int to_stdout = strcmp(sp, "-") == 0;
        FILE *f = to_stdout ? stdout : fopen(sp, "w");
        int bad = !f || pld__write_summary_json(f, R, t) != 0;
        bad |= to_stdout ? f && fflush(f) != 0 : f && fclose(f) != 0;
        if (bad && !rc)
            rc = pld__config_error(PLD_EIO, "--summary-json: cannot write %s",
                                   to_stdout ? "to stdout" : sp);
    }
    free(t->ev);
    free(t->xf);
    pld__ptrmap_free(&t->cells);
    for (size_t i = 0; i < t->nroutes; i++)
        free(t->routes[i].ids);
    free(t->routes);
    pld__ptrmap_free(&t->route_of);
    for (size_t i = 0; i < t->nlinks; i++)
        free(t->links[i].name);
    free(t->links);
    free(t->path);
    free(t);
    R->trace = NULL;
    return rc;
}
