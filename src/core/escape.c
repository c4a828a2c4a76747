/* escape.c: text a user controls (a model file's path, a spec) written into
 * the JSON and SVG traces and the JSON summary, escaped so that the files
 * stay valid.  JSON strings go through jansson's encoder (one encoder for
 * the trace and the summary); XML is escaped here. */
#include "internal.h"
#include "escape.h"

#include <jansson.h>

#include <stdlib.h>
#include <string.h>

/* Copies `s` into a new string, each character of `from` replaced by the
 * string at the same index of `to`; control characters become `ctl`'s
 * printf form (or are dropped when it is NULL). */
static char *escaped(const char *s, const char *from, const char *const *to, const char *ctl)
{
    if (!s)
        s = "";
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += 8;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *hit = strchr(from, *p);
        if (hit && *p) {
            const char *rep = to[hit - from];
            memcpy(o, rep, strlen(rep));
            o += strlen(rep);
        } else if (*p < 0x20) {
            if (ctl)
                o += snprintf(o, 8, ctl, *p);
        } else {
            *o++ = (char)*p;
        }
    }
    *o = '\0';
    return out;
}

char *pld__escape_xml(const char *s)
{
    static const char *const to[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    return escaped(s, "&<>\"'", to, NULL);
}

/* jansson refuses strings that are not UTF-8 (a path with Latin-1 bytes):
 * each byte of a malformed sequence becomes U+FFFD instead, so that the
 * document stays valid JSON. */
json_t *pld__json_string(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    size_t n = strlen(s);
    char *u = malloc(3 * n + 1), *o = u;
    if (!u)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80) {
            *o++ = (char)*p;
            continue;
        }
        /* copy a well-formed sequence whole, else one replacement */
        int len = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        json_t *ok = NULL;
        int cont = len > 0;
        for (int k = 1; cont && k < len; k++)
            cont = (p[k] & 0xc0) == 0x80;
        if (cont && (ok = json_stringn((const char *)p, (size_t)len)) != NULL) {
            json_decref(ok);
            memcpy(o, p, (size_t)len);
            o += len;
            p += len - 1;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
        }
    }
    *o = 0;
    j = json_string(u);
    free(u);
    return j;
}

char *pld__escape_json(const char *s)
{
    /* jansson writes the string quoted: keep what is between the quotes */
    json_t *j = pld__json_string(s);
    char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!q)
        return NULL;
    size_t n = strlen(q);
    memmove(q, q + 1, n - 2);
    q[n - 2] = '\0';
    return q;
}
