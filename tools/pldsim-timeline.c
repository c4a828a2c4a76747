/* pldsim-timeline IN.txt OUT.svg: draws a text trace (--trace FILE.txt) as
 * the same SVG timeline that --trace FILE.svg writes directly. */
#include "../src/trace.h"

#include <pld/pld_run.h>

#include <stdlib.h>
#include <string.h>

/* Strings in events point into this pool, which lives until exit. */
static char *keep(const char *s)
{
    char *c = strdup(s);
    if (!c) {
        fputs("pldsim-timeline: out of memory\n", stderr);
        exit(2);
    }
    return c;
}

int main(int argc, char **argv)
{
    static const char usage[] = "usage: pldsim-timeline IN.txt OUT.svg\n"
                                "Draws a pldsim text trace (--trace FILE.txt) as an SVG "
                                "timeline.\n";
    int help = argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
    if (help) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        pld_print_version(argv[0]);
        return 0;
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "pldsim-timeline: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    if (argc != 3) {
        fputs(usage, stderr);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "pldsim-timeline: cannot read %s\n", argv[1]);
        return 2;
    }
    struct pld__trace t;
    struct pld__run R;
    memset(&t, 0, sizeof t);
    memset(&R, 0, sizeof R);
    char line[1024], platform[128] = "?";
    int lineno = 0, maxrank = -1;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        if (line[0] == '#') {
            sscanf(line, "# pldsim text trace v1: platform %127[^,], P=%d", platform, &R.P);
            continue;
        }
        double t0, t1;
        char rank[16], op[64], peer[16], where[128], off[32], bytes[32], value[32], src[256];
        if (sscanf(line, "%lf %lf %15s %63s %15s %127s %31s %31s %31s %255s", &t0, &t1, rank, op,
                   peer, where, off, bytes, value, src) != 10) {
            fprintf(stderr, "pldsim-timeline: %s:%d: not a pldsim text trace line\n", argv[1],
                    lineno);
            fclose(in);
            return 2;
        }
        if (t.n == t.cap) {
            t.cap = t.cap ? 2 * t.cap : 1024;
            t.ev = realloc(t.ev, t.cap * sizeof *t.ev);
            if (!t.ev)
                return 2;
        }
        int id = pld__op_by_trace_name(op);
        if (id < 0) {
            fprintf(stderr, "pldsim-timeline: %s:%d: unknown op '%s'\n", argv[1], lineno, op);
            fclose(in);
            return 2;
        }
        struct pld__event *e = &t.ev[t.n];
        memset(e, 0, sizeof *e);
        e->id = (enum pld__op)id;
        e->t0 = t0 * 1e-9;
        e->t1 = t1 * 1e-9;
        e->rank = strcmp(rank, "host") == 0 ? -1 : atoi(rank + 1);
        e->peer = peer[0] == 'r' ? atoi(peer + 1) : -1;
        e->op = pld__ops[id].trace;
        e->where = strcmp(where, "-") ? keep(where) : NULL;
        e->file = keep(src);
        e->seq = t.n;
        e->cause = -1;
        if (e->rank > maxrank)
            maxrank = e->rank;
        t.n++;
    }
    fclose(in);
    if (R.P < maxrank + 1)
        R.P = maxrank + 1;
    snprintf(R.platform_desc, sizeof R.platform_desc, "%s", platform);
    FILE *out = fopen(argv[2], "w");
    int rc = 0;
    if (!out || pld__write_svg(out, &R, &t) != 0 || fclose(out) != 0) {
        fprintf(stderr, "pldsim-timeline: cannot write %s\n", argv[2]);
        rc = 2;
    }
    for (size_t i = 0; i < t.n; i++) {
        free((char *)t.ev[i].where);
        free((char *)t.ev[i].file);
    }
    free(t.ev);
    return rc;
}
