/* trace_text.c: the text trace: one line per primitive, times in ns with
 * 3 decimals, columns as docs/traces.md describes.  The golden format. */
#include "trace.h"
#include "observe.h"

#include <string.h>

const char *pld__base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int pld__write_text(FILE *out, const struct pld__run *R, const struct pld__trace *t)
{
    fprintf(out, "# pldsim text trace v1: platform %s, P=%d\n", R->platform_desc, R->P);
    fprintf(out, "# %12s %14s %-5s %-16s %-5s %-12s %8s %8s %6s %s\n", "start_ns", "end_ns", "rank",
            "op", "peer", "where", "offset", "bytes", "value", "source");
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
        fprintf(out, "%14.3f %14.3f %-5s %-16s %-5s %-12s %8s %8s %6s %s:%d\n", e->t0 * 1e9,
                e->t1 * 1e9, rank, e->op, peer, e->where ? e->where : "-", off, bytes, value,
                pld__base_name(e->file), e->line);
    }
    return ferror(out) ? -1 : 0;
}
