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

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A <route> from a point to itself inside a zone routed by Floyd (an
 * abort: "the route already exists") or Dijkstra (a segfault in
 * sg_platf_new_route).  pldsim never routes a device to itself, and a Full
 * zone takes such a route as a loopback, so only those zones refuse it. */
static int check_self_routes(const char *path, const char *text)
{
    enum { DEPTH = 64 };
    int full[DEPTH], depth = 0, line = 1;
    for (const char *q = text; *q;) {
        if (*q == '\n')
            line++;
        if (strncmp(q, "<!--", 4) == 0) {
            const char *end = strstr(q + 4, "-->");
            for (const char *c = q; c < (end ? end : q + strlen(q)); c++)
                line += *c == '\n';
            q = end ? end + 3 : "";
            continue;
        }
        if (*q != '<') {
            q++;
            continue;
        }
        const char *end = strchr(q, '>');
        if (!end)
            break; /* SimGrid reports the truncated tag */
        size_t len = 0, dlen = 0;
        if (tag_is(q + 1, "zone")) {
            const char *r = attr(q, end, "routing", &len);
            if (depth < DEPTH)
                full[depth] = r && len == 4 && strncmp(r, "Full", 4) == 0;
            depth += end[-1] != '/';
        } else if (tag_is(q + 1, "/zone")) {
            depth -= depth > 0;
        } else if (tag_is(q + 1, "route") && depth > 0 && (depth > DEPTH || !full[depth - 1])) {
            const char *src = attr(q, end, "src", &len), *dst = attr(q, end, "dst", &dlen);
            if (src && dst && len == dlen && strncmp(src, dst, len) == 0 && len < 64)
                return pld__config_error(PLD_EPLATFORM,
                                         "malformed platform file %s:%d: a route from %.*s to "
                                         "itself, in a zone not routed by Full (SimGrid's Floyd "
                                         "aborts and its Dijkstra crashes on one); expected "
                                         "routes between two different points (pldsim never "
                                         "routes a device to itself): remove it",
                                         path, line, (int)len, src);
        }
        q++;
    }
    return 0;
}

int pld__sim_precheck_platform(const char *path)
{
    char *text = pld__sim_read_file(path);
    if (!text)
        return 0; /* the caller opened it: SimGrid reports what follows */
    int rc = check_routing(path, text);
    if (!rc)
        rc = check_self_routes(path, text);
    free(text);
    return rc;
}
