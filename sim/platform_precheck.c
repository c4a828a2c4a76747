/* platform_precheck.c: what a user's platform XML must not hold because
 * SimGrid 3.32 dies on it, with an abort, a backtrace or a segfault,
 * instead of refusing it.  Each is found in the file's text before SimGrid
 * parses it (outside XML comments) and refused in one line that names the
 * file and, where a tag is at fault, its line.  Why a scan of the text and
 * not an XML library: SimGrid's own parser decides what the file means, and
 * these checks look only for a few attribute values it mishandles; a second
 * parser would disagree with it on malformed input, which SimGrid then
 * reports itself (tests/fuzz/fuzz_platform.c fuzzes the whole path). */
#include "sim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *pld__sim_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t k; buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* SimGrid 3.32 takes any routing="..." word and then dies on its own
 * (xbt_die "Not a valid model!", exit 134) when it is not one of these;
 * a platform file's zones are checked first, outside XML comments. */
static int check_routing(const char *path, const char *text)
{
    static const char *const known[] = {"Cluster", "Dijkstra", "DijkstraCache", "Floyd", "Full",
                                        "None",    "Vivaldi",  "Wifi",          NULL};
    int rc = 0;
    struct stat st;
    /* the scan below stops at a NUL byte, SimGrid's parser does not */
    if (text && stat(path, &st) == 0 && strlen(text) < (size_t)st.st_size)
        rc = pld__config_error(PLD_EPLATFORM,
                               "malformed platform file %s: it holds a NUL byte at offset %zu",
                               path, strlen(text));
    for (const char *q = text; q && *q && !rc;) {
        if (strncmp(q, "<!--", 4) == 0) {
            const char *end = strstr(q + 4, "-->");
            q = end ? end + 3 : "";
            continue;
        }
        if (strncmp(q, "routing", 7) != 0 || (q > text && (q[-1] == '_' || q[-1] == '-'))) {
            q++;
            continue;
        }
        const char *v = q + 7;
        v += strspn(v, " \t\r\n");
        if (*v != '=') {
            q++;
            continue;
        }
        v++;
        v += strspn(v, " \t\r\n");
        char quote = *v;
        const char *end = quote == '"' || quote == '\'' ? strchr(v + 1, quote) : NULL;
        if (!end) {
            q++;
            continue;
        }
        int ok = 0;
        for (int k = 0; known[k] && !ok; k++)
            ok = (size_t)(end - v - 1) == strlen(known[k]) &&
                 strncmp(v + 1, known[k], strlen(known[k])) == 0;
        /* quoted up to 64 bytes, and on one line: the message is one line */
        int shown = (int)(end - v + 1 > 64 ? 64 : end - v + 1);
        for (int k = 0; k < shown; k++)
            if ((unsigned char)v[k] < ' ' || v[k] == 0x7f)
                shown = k;
        if (!ok)
            rc = pld__config_error(PLD_EPLATFORM,
                                   "malformed platform file %s: routing=%.*s is not a SimGrid "
                                   "routing; expected Full, Floyd, Dijkstra, DijkstraCache, None, "
                                   "Cluster, Vivaldi or Wifi",
                                   path, shown, v);
        q = end + 1;
    }
    return rc;
}

/* The value of attribute `name` in the tag [tag, end), or NULL; its length
 * in *len.  An attribute's name starts after a space, so src is not gw_src. */
static const char *attr(const char *tag, const char *end, const char *name, size_t *len)
{
    size_t n = strlen(name);
    for (const char *q = tag; q + n + 2 < end; q++) {
        if (!strchr(" \t\r\n", q[0]) || strncmp(q + 1, name, n) != 0)
            continue;
        const char *v = q + 1 + n;
        v += strspn(v, " \t\r\n");
        if (*v != '=')
            continue;
        v++;
        v += strspn(v, " \t\r\n");
        if (*v != '"' && *v != '\'')
            return NULL;
        const char *close = memchr(v + 1, *v, (size_t)(end - v - 1));
        if (!close)
            return NULL;
        *len = (size_t)(close - v - 1);
        return v + 1;
    }
    return NULL;
}

static int tag_is(const char *q, const char *name)
{
    size_t n = strlen(name);
    return strncmp(q, name, n) == 0 && q[n] && strchr(" \t\r\n/>", q[n]);
}

/* At a character of the text: past the comment that starts there (its
 * lines counted in *line), or NULL when none does (a newline counted). */
static const char *past_comment(const char *q, int *line)
{
    if (strncmp(q, "<!--", 4) != 0) {
        *line += *q == '\n';
        return NULL;
    }
    const char *end = strstr(q + 4, "-->");
    for (const char *c = q; c < (end ? end : q + strlen(q)); c++)
        *line += *c == '\n';
    return end ? end + 3 : "";
}

/* The routes a file declared so far, by zone: an open-addressing set of
 * (zone, src, dst), the names pointing into the file's text. */
struct route_key {
    const char *src, *dst;
    size_t slen, dlen;
    int zone, line; /* line 0: an empty slot */
};
struct route_set {
    struct route_key *v;
    size_t cap, n;
};

static uint64_t route_hash(int zone, const char *src, size_t slen, const char *dst, size_t dlen)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)zone; /* FNV-1a */
    for (size_t i = 0; i < slen; i++)
        h = (h ^ (unsigned char)src[i]) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull; /* so that ab|c differs from a|bc */
    for (size_t i = 0; i < dlen; i++)
        h = (h ^ (unsigned char)dst[i]) * 1099511628211ull;
    return h;
}

/* The slot of (zone, src, dst): the one that holds it, or the empty one
 * where it would go. */
static struct route_key *route_slot(const struct route_set *s, int zone, const char *src,
                                    size_t slen, const char *dst, size_t dlen)
{
    size_t i = route_hash(zone, src, slen, dst, dlen) & (s->cap - 1);
    for (;; i = (i + 1) & (s->cap - 1)) {
        struct route_key *k = &s->v[i];
        if (!k->line || (k->zone == zone && k->slen == slen && k->dlen == dlen &&
                         memcmp(k->src, src, slen) == 0 && memcmp(k->dst, dst, dlen) == 0))
            return k;
    }
}

/* Adds (zone, src, dst) at `line`; the line of an earlier one instead, or
 * -1 when out of memory (the check is then skipped: SimGrid decides). */
static int route_add(struct route_set *s, int zone, const char *src, size_t slen, const char *dst,
                     size_t dlen, int line)
{
    if (4 * (s->n + 1) > 3 * s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct route_key *v = calloc(cap, sizeof *v), *old = s->v;
        if (!v)
            return -1;
        struct route_set grown = {v, cap, s->n};
        for (size_t i = 0; i < s->cap; i++)
            if (old[i].line)
                *route_slot(&grown, old[i].zone, old[i].src, old[i].slen, old[i].dst, old[i].dlen) =
                    old[i];
        free(old);
        *s = grown;
    }
    struct route_key *k = route_slot(s, zone, src, slen, dst, dlen);
    if (k->line)
        return k->line;
    *k = (struct route_key){src, dst, slen, dlen, zone, line};
    s->n++;
    return 0;
}

/* Routes SimGrid 3.32 dies on as it reads them: a second route between the
 * same two points of a zone (an abort, "the route already exists", in a
 * Full or Floyd zone; a segfault in sg_platf_new_route in a Dijkstra one),
 * counting the reverse that a route declares unless symmetrical="NO"; and
 * a route from a point to itself outside a Full zone (Floyd takes it as
 * its own reverse, Dijkstra crashes; Full takes it as a loopback).  pldsim
 * never routes a device to itself.  Both <route> and <zoneRoute>. */
static int check_routes(const char *path, const char *text)
{
    enum { DEPTH = 64 };
    int full[DEPTH], zone[DEPTH], depth = 0, line = 1, zones = 0, rc = 0;
    struct route_set set = {0};
    for (const char *q = text; *q && !rc;) {
        const char *past = past_comment(q, &line);
        if (past) {
            q = past;
            continue;
        }
        if (*q != '<') {
            q++;
            continue;
        }
        const char *end = strchr(q, '>');
        if (!end)
            break; /* SimGrid reports the truncated tag */
        size_t slen = 0, dlen = 0, ylen = 0;
        if (tag_is(q + 1, "zone")) {
            const char *r = attr(q, end, "routing", &slen);
            if (depth < DEPTH) {
                full[depth] = r && slen == 4 && strncmp(r, "Full", 4) == 0;
                zone[depth] = ++zones;
            }
            depth += end[-1] != '/';
        } else if (tag_is(q + 1, "/zone")) {
            depth -= depth > 0;
        } else if ((tag_is(q + 1, "route") || tag_is(q + 1, "zoneRoute")) && depth > 0 &&
                   depth <= DEPTH) {
            const char *src = attr(q, end, "src", &slen), *dst = attr(q, end, "dst", &dlen);
            const char *sym = attr(q, end, "symmetrical", &ylen);
            int both =
                !sym || !(ylen == 2 && (strncmp(sym, "NO", 2) == 0 || strncmp(sym, "no", 2) == 0));
            int self = src && dst && slen == dlen && strncmp(src, dst, slen) == 0,
                z = zone[depth - 1];
            int seen = 0;
            if (src && dst && self && !full[depth - 1])
                rc = pld__config_error(PLD_EPLATFORM,
                                       "malformed platform file %s:%d: a route from %.*s to "
                                       "itself, in a zone not routed by Full (SimGrid's Floyd "
                                       "aborts and its Dijkstra crashes on one); expected routes "
                                       "between two different points (pldsim never routes a "
                                       "device to itself): remove it",
                                       path, line, (int)(slen < 64 ? slen : 64), src);
            else if (src && dst &&
                     ((seen = route_add(&set, z, src, slen, dst, dlen, line)) > 0 ||
                      (!seen && both && !self &&
                       (seen = route_add(&set, z, dst, dlen, src, slen, line)) > 0)))
                rc = pld__config_error(PLD_EPLATFORM,
                                       "malformed platform file %s:%d: a second route from %.*s "
                                       "to %.*s (line %d has one%s), which SimGrid dies on; "
                                       "expected one route between two points: remove one, or "
                                       "make the first symmetrical=\"NO\"",
                                       path, line, (int)(slen < 64 ? slen : 64), src,
                                       (int)(dlen < 64 ? dlen : 64), dst, seen,
                                       " or its reverse: routes are symmetrical unless "
                                       "symmetrical=\"NO\"");
        }
        q++;
    }
    free(set.v);
    return rc;
}

/* Link names declared so far, each with its line: an open-addressing set
 * of names of their own (a split-duplex link's _UP and _DOWN halves are
 * not in the text). */
struct name_set {
    char **names;
    int *lines;
    size_t cap, n;
};

static uint64_t name_hash(const char *name)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h;
}

static size_t name_slot(const struct name_set *s, const char *name)
{
    size_t i = name_hash(name) & (s->cap - 1);
    while (s->names[i] && strcmp(s->names[i], name) != 0)
        i = (i + 1) & (s->cap - 1);
    return i;
}

/* Adds `name` (n bytes) and `suffix` at `line`; the line of an earlier
 * one instead, or -1 when out of memory (the check is then skipped). */
static int name_add(struct name_set *s, const char *name, size_t n, const char *suffix, int line)
{
    if (4 * (s->n + 1) > 3 * s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct name_set grown = {calloc(cap, sizeof(char *)), calloc(cap, sizeof(int)), cap, s->n};
        if (!grown.names || !grown.lines) {
            free(grown.names);
            free(grown.lines);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->names[i]) {
                size_t j = name_slot(&grown, s->names[i]);
                grown.names[j] = s->names[i];
                grown.lines[j] = s->lines[i];
            }
        free(s->names);
        free(s->lines);
        *s = grown;
    }
    char *full = malloc(n + strlen(suffix) + 1);
    if (!full)
        return -1;
    memcpy(full, name, n);
    strcpy(full + n, suffix);
    size_t i = name_slot(s, full);
    if (s->names[i]) {
        free(full);
        return s->lines[i];
    }
    s->names[i] = full;
    s->lines[i] = line;
    s->n++;
    return 0;
}

/* A link id given twice (SimGrid aborts: "declared several times"),
 * counting the _UP and _DOWN links a split-duplex link makes. */
static int check_links_named_once(const char *path, const char *text)
{
    struct name_set set = {0};
    int line = 1, rc = 0;
    for (const char *q = text; *q && !rc;) {
        const char *past = past_comment(q, &line);
        if (past) {
            q = past;
            continue;
        }
        const char *end;
        size_t n = 0, plen = 0;
        if (*q != '<' || !(tag_is(q + 1, "link") || tag_is(q + 1, "backbone")) ||
            !(end = strchr(q, '>'))) {
            q++;
            continue;
        }
        const char *id = attr(q, end, "id", &n), *pol = attr(q, end, "sharing_policy", &plen);
        int split = pol && plen == 11 && strncmp(pol, "SPLITDUPLEX", 11) == 0;
        int seen = 0;
        if (id && n < 256) {
            static const char *const halves[] = {"", "_UP", "_DOWN"};
            for (int k = 0; k < (split ? 3 : 1) && !seen; k++)
                seen = name_add(&set, id, n, halves[k], line);
        }
        if (seen > 0)
            rc = pld__config_error(PLD_EPLATFORM,
                                   "malformed platform file %s:%d: link '%.*s'%s is declared "
                                   "again (line %d has it), which SimGrid aborts on; expected "
                                   "each link id once: rename one",
                                   path, line, (int)(n < 64 ? n : 64), id,
                                   split ? " (with its _UP and _DOWN halves)" : "", seen);
        q = end + 1;
    }
    for (size_t i = 0; i < set.cap; i++)
        free(set.names[i]);
    free(set.names);
    free(set.lines);
    return rc;
}

int pld__sim_precheck_platform(const char *path)
{
    char *text = pld__sim_read_file(path);
    if (!text)
        return 0; /* the caller opened it: SimGrid reports what follows */
    int rc = check_routing(path, text);
    if (!rc)
        rc = check_routes(path, text);
    if (!rc)
        rc = check_links_named_once(path, text);
    free(text);
    return rc;
}
