/* escape.c: text a user controls (a model file's path, a spec) written into
 * the JSON and SVG traces, escaped so that the files stay valid. */
#include "internal.h"

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

char *pld__escape_json(const char *s)
{
    static const char *const to[] = {"\\\"", "\\\\"};
    return escaped(s, "\"\\", to, "\\u%04x");
}
