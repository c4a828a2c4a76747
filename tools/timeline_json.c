/* timeline_json.c: reads pldsim's Perfetto JSON trace back for
 * pldsim-timeline's links view.  trace_json.c writes the header on its
 * first line and one event per line after it; each line is parsed by
 * jansson, so that the reader takes JSON as JSON (escapes, numbers) while
 * its memory stays that of the events, not of a document of millions. */
#include "timeline.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int timeline_is_json(FILE *in)
{
    /* one byte, pushed back: a pipe cannot be rewound */
    int c = getc(in);
    if (c != EOF)
        ungetc(c, in);
    return c == '{';
}

void timeline_free_links(struct pld__link_series *links, size_t nlinks)
{
    for (size_t i = 0; i < nlinks; i++) {
        free(links[i].name);
        free(links[i].t);
        free(links[i].v);
    }
    free(links);
}

/* One step more on a link's series; 0 or -1. */
static int add_step(struct pld__link_series *l, size_t *cap, double t, double v)
{
    if (l->n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        double *nt = realloc(l->t, c * sizeof *nt);
        if (!nt)
            return -1;
        l->t = nt;
        double *nv = realloc(l->v, c * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv, *cap = c;
    }
    l->t[l->n] = t, l->v[l->n] = v, l->n++;
    return 0;
}

/* The link a counter named "NAME GB/s" belongs to, or -1.  A link's
 * counters are written together, so the last one found is tried first. */
static long link_of(const struct pld__link_series *links, size_t n, const char *counter, long *last)
{
    size_t len = strlen(counter);
    if (len < 5 || strcmp(counter + len - 5, " GB/s") != 0)
        return -1;
    len -= 5;
    for (size_t k = 0; k < n; k++) {
        size_t i = ((size_t)(*last < 0 ? 0 : *last) + k) % n;
        if (strlen(links[i].name) == len && strncmp(links[i].name, counter, len) == 0)
            return *last = (long)i;
    }
    return -1;
}

/* A link, its load (bytes over bandwidth: the time it needs at full
 * rate) and its place in the header, for sorting.  A fast link that every
 * transfer crosses (a switch's backplane) is busy as long as the slowest
 * link of their routes, but never what bounds them. */
struct by_load_item {
    double load;
    size_t at;
    struct pld__link_series l;
};

static int by_load(const void *pa, const void *pb)
{
    const struct by_load_item *a = pa, *b = pb;
    if (a->load != b->load)
        return a->load > b->load ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at); /* ties keep the platform's order */
}

/* Reads the header's otherData: P, the platform and the links' totals. */
static int read_header(char *line, struct pld__run *R, struct pld__link_series **links,
                       size_t *nlinks)
{
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    if (len == 0 || line[len - 1] != ',')
        return -1;
    line[len - 1] = '}'; /* the header's object, closed where the events begin */
    json_t *h = json_loadb(line, len, 0, NULL);
    json_t *od = json_object_get(h, "otherData"), *P = json_object_get(od, "P"),
           *platform = json_object_get(od, "platform"), *ls = json_object_get(od, "links");
    if (!h || !json_is_integer(P) || json_integer_value(P) < 1 ||
        json_integer_value(P) > PLD_MAX_RANKS || !json_is_string(platform)) {
        json_decref(h);
        return -1;
    }
    R->P = (int)json_integer_value(P);
    snprintf(R->platform_desc, sizeof R->platform_desc, "%s", json_string_value(platform));
    size_t n = json_array_size(ls);
    *links = calloc(n + 1, sizeof **links);
    *nlinks = 0;
    if (!*links) {
        json_decref(h);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *l = json_array_get(ls, i);
        const char *name = json_string_value(json_object_get(l, "name"));
        double bw = json_number_value(json_object_get(l, "bandwidth_GBps")),
               bytes = json_number_value(json_object_get(l, "bytes")),
               busy = json_number_value(json_object_get(l, "busy_us"));
        if (!name || !(bw > 0) || !(bytes >= 0) || !(busy >= 0))
            continue;
        struct pld__link_series *s = &(*links)[(*nlinks)++];
        s->name = strdup(name);
        s->bw = bw * 1e9, s->bytes = bytes, s->busy = busy * 1e-6;
        if (!s->name) {
            json_decref(h);
            return -1;
        }
    }
    json_decref(h);
    /* the most loaded first: qsort, as a SuperPoD has links by the
     * hundred thousand */
    struct by_load_item *items = malloc((*nlinks + 1) * sizeof *items);
    if (!items)
        return -1;
    for (size_t i = 0; i < *nlinks; i++)
        items[i] = (struct by_load_item){(*links)[i].bytes / (*links)[i].bw, i, (*links)[i]};
    qsort(items, *nlinks, sizeof *items, by_load);
    for (size_t i = 0; i < *nlinks; i++)
        (*links)[i] = items[i].l;
    free(items);
    return 0;
}

/* A ranks' or the host's op from an "X" event; 0, 1 (not an op), -1. */
static int add_op(struct pld__trace *t, const struct pld__run *R, json_t *e, const char **bad)
{
    int pid = (int)json_integer_value(json_object_get(e, "pid")),
        tid = (int)json_integer_value(json_object_get(e, "tid"));
    if (pid > R->P || (pid < R->P && tid == 4)) /* routes, links; where data lands */
        return 1;
    const char *name = json_string_value(json_object_get(e, "name"));
    json_t *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
    if (!name || !json_is_number(ts) || !json_is_number(dur) || pid < 0) {
        *bad = "an event with pid, ts, dur and name";
        return -1;
    }
    char op[64];
    int peer = -1;
    if (sscanf(name, "%63s r%d", op, &peer) < 1) {
        *bad = "an op's name";
        return -1;
    }
    int id = pld__op_by_trace_name(op);
    if (id < 0) {
        *bad = "a pld op's name";
        return -1;
    }
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 1024;
        struct pld__event *ne = realloc(t->ev, c * sizeof *ne);
        if (!ne)
            return -2;
        t->ev = ne, t->cap = c;
    }
    struct pld__event *ev = &t->ev[t->n];
    memset(ev, 0, sizeof *ev);
    ev->id = (enum pld__op)id;
    ev->t0 = json_number_value(ts) * 1e-6;
    ev->t1 = (json_number_value(ts) + json_number_value(dur)) * 1e-6;
    ev->rank = pid == R->P ? -1 : pid;
    ev->peer = peer;
    ev->op = pld__ops[id].trace;
    ev->seq = t->n;
    ev->cause = -1;
    t->n++;
    return 0;
}

int timeline_read_json(FILE *in, const char *path, struct pld__trace *t, struct pld__run *R,
                       struct pld__link_series **links, size_t *nlinks)
{
    char *line = NULL;
    size_t len = 0, *caps = NULL;
    long lineno = 0, last = -1;
    int rc = 0;
    const char *bad = NULL;
    *links = NULL, *nlinks = 0;
    if (getline(&line, &len, in) < 0 || (lineno = 1, read_header(line, R, links, nlinks) != 0)) {
        bad = "a pldsim JSON trace's header (--trace FILE.json), with otherData's P and platform";
        goto fail;
    }
    caps = calloc(*nlinks + 1, sizeof *caps);
    if (!caps)
        goto oom;
    for (ssize_t got; (got = getline(&line, &len, in)) >= 0;) {
        lineno++;
        while (got && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (got && line[got - 1] == ',')
            line[--got] = 0;
        if (lineno == 2 && strcmp(line, "\"traceEvents\":[") == 0)
            continue;
        if (strcmp(line, "]}") == 0 || got == 0)
            continue;
        json_t *e = json_loadb(line, (size_t)got, 0, NULL);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (!ph) {
            json_decref(e);
            bad = "one trace event per line, as pldsim writes them";
            goto fail;
        }
        int r = 0;
        if (strcmp(ph, "X") == 0) {
            r = add_op(t, R, e, &bad);
        } else if (strcmp(ph, "C") == 0 &&
                   json_integer_value(json_object_get(e, "pid")) == R->P + 2) {
            const char *name = json_string_value(json_object_get(e, "name"));
            long i = name ? link_of(*links, *nlinks, name, &last) : -1;
            json_t *v = json_object_get(json_object_get(e, "args"), "v"),
                   *ts = json_object_get(e, "ts");
            if (i >= 0 && json_is_number(v) && json_is_number(ts))
                r = add_step(&(*links)[i], &caps[i], json_number_value(ts) * 1e-6,
                             json_number_value(v) * 1e9) != 0
                        ? -2
                        : 0;
        }
        json_decref(e);
        if (r == -2)
            goto oom;
        if (r < 0)
            goto fail;
    }
    if (ferror(in)) {
        fprintf(stderr, "pldsim-timeline: cannot read %s\n", path);
        rc = 2;
    }
    goto out;
oom:
    fputs("pldsim-timeline: out of memory\n", stderr);
    rc = 2;
    goto out;
fail:
    fprintf(stderr, "pldsim-timeline: %s:%ld: not a pldsim JSON trace line; expected %s\n", path,
            lineno ? lineno : 1, bad);
    rc = 2;
out:
    free(line);
    free(caps);
    if (rc) {
        timeline_free_links(*links, *nlinks);
        *links = NULL, *nlinks = 0;
    }
    return rc;
}
