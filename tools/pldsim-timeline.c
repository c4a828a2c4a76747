/* pldsim-timeline [--from US] [--to US] [--width PX] [--linear] [--links N]
 * [--gaps] IN OUT.svg: draws a text trace (--trace FILE.txt) as the SVG
 * timeline that --trace FILE.svg writes directly, or a time window of it;
 * from a JSON trace (--trace FILE.json), the links view: the busiest
 * links' throughput under the ranks, each rank's idle gaps marked, and a
 * report of both on stdout. */
#include "../src/observe/trace.h"
#include "observe.h"

#include <pld/pld_run.h>

#include <errno.h>
#include "timeline.h"
#include "usage_error.h"

#include <getopt.h>
#include <math.h>
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

static const char usage[] =
    "usage: pldsim-timeline [--from US] [--to US] [--width PX] [--linear] [--links N]\n"
    "                       [--gaps] IN OUT.svg\n"
    "Draws a pldsim text trace (--trace FILE.txt) as an SVG timeline, the picture\n"
    "--trace FILE.svg draws.  From a JSON trace (--trace FILE.json) it draws the\n"
    "links view: the same timeline, each rank's idle gaps (where none of its ops but\n"
    "waits run) marked in red, and under the ranks a lane per busy link, its\n"
    "throughput as a share of its bandwidth; it prints the busiest links and each\n"
    "rank's idle gaps on stdout.  Stretches where the ranks only wait (and the host at\n"
    "most dispatches) that are longer than 50 typical ops are cut short: a narrow\n"
    "zig-zag break, labelled with the time it stands for.  Its width follows the\n"
    "events: a typical op is 10 px wide (1000 to 12000 px).\n"
    "  --from US    draw from this simulated time, in microseconds (default 0)\n"
    "  --to US      draw up to this time (default: the run's end)\n"
    "  --width PX   the plot's width in pixels, 100 to 100000 (default: from the events)\n"
    "  --linear     draw all of the time to scale, idle stretches too\n"
    "  --links N    the N busiest links (by busy time), 0 to 10000 (default 8);\n"
    "               only a JSON trace has them\n"
    "  --gaps       mark and print each rank's idle gaps (a JSON trace: always)\n"
    "  -h, --help   this help\n"
    "      --version  pldsim-timeline's version\n";

/* A finite number in [lo, hi], all of `s`; 0 or -1. */
static int parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Reads a text trace (--trace FILE.txt) into t and R; 0, or 2 after one
 * line on stderr naming path:line. */
static int read_text(FILE *in, const char *path, struct pld__trace *tp, struct pld__run *Rp)
{
    struct pld__trace t = *tp;
    struct pld__run R = *Rp;
    char line[1024], platform[128] = "?";
    int lineno = 0, maxrank = -1, rc = 0;
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
            fprintf(stderr, "pldsim-timeline: %s:%d: not a pldsim text trace line\n", path, lineno);
            rc = 2;
            break;
        }
        int r = strcmp(rank, "host") == 0 ? -1 : rank[0] == 'r' ? atoi(rank + 1) : -2;
        if (r < -1 || r >= PLD_MAX_RANKS) {
            fprintf(stderr, "pldsim-timeline: %s:%d: rank '%s'; expected host or r0 to r%d\n", path,
                    lineno, rank, PLD_MAX_RANKS - 1);
            rc = 2;
            break;
        }
        if (t.n == t.cap) {
            size_t c = t.cap ? 2 * t.cap : 1024;
            struct pld__event *ne = realloc(t.ev, c * sizeof *ne);
            if (!ne) {
                fputs("pldsim-timeline: out of memory\n", stderr);
                rc = 2;
                break;
            }
            t.ev = ne, t.cap = c;
        }
        int id = pld__op_by_trace_name(op);
        if (id < 0) {
            fprintf(stderr, "pldsim-timeline: %s:%d: unknown op '%s'\n", path, lineno, op);
            rc = 2;
            break;
        }
        struct pld__event *e = &t.ev[t.n];
        memset(e, 0, sizeof *e);
        e->id = (enum pld__op)id;
        e->t0 = t0 * 1e-9;
        e->t1 = t1 * 1e-9;
        e->rank = r;
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
    if (R.P < maxrank + 1)
        R.P = maxrank + 1;
    snprintf(R.platform_desc, sizeof R.platform_desc, "%s", platform);
    *tp = t, *Rp = R;
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"from", required_argument, NULL, 'f'},
                                         {"to", required_argument, NULL, 't'},
                                         {"width", required_argument, NULL, 'w'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {"linear", no_argument, NULL, 'l'},
                                         {"links", required_argument, NULL, 'k'},
                                         {"gaps", no_argument, NULL, 'g'},
                                         {0}};
    struct pld__svg_view view = {0, -1, 0, 0, NULL, 0, 0};
    double from_us = 0, to_us = -1, nlinks_arg = -1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'V':
            pld_print_version(argv[0]);
            return 0;
        case 'f':
            if (parse_number(optarg, 0, 1e15, &from_us) != 0)
                return usage_error("pldsim-timeline",
                                   "bad --from '%s'; expected a time in us from 0 to 1e15", optarg);
            break;
        case 't':
            if (parse_number(optarg, 0, 1e15, &to_us) != 0 || to_us <= 0)
                return usage_error("pldsim-timeline",
                                   "bad --to '%s'; expected a time in us above 0, at most 1e15",
                                   optarg);
            break;
        case 'w':
            if (parse_number(optarg, 100, 100000, &view.width) != 0)
                return usage_error("pldsim-timeline", "bad --width '%s'; expected 100 to 100000 px",
                                   optarg);
            break;
        case 'l':
            view.linear = 1;
            break;
        case 'k':
            if (parse_number(optarg, 0, 10000, &nlinks_arg) != 0 ||
                nlinks_arg != (double)(long)nlinks_arg)
                return usage_error("pldsim-timeline",
                                   "bad --links '%s'; expected a whole number of links, 0 to 10000",
                                   optarg);
            break;
        case 'g':
            view.gaps = 1;
            break;
        case ':':
            return usage_error("pldsim-timeline", "%s needs a value", argv[optind - 1]);
        default:
            return usage_error("pldsim-timeline", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (to_us >= 0 && to_us <= from_us) {
        fprintf(stderr, "pldsim-timeline: --to %g is not after --from %g (see --help)\n", to_us,
                from_us);
        return 2;
    }
    /* the axis steps by a round fraction of the window: a window finer
     * than the trace's 1 ps steps, or than what a double tells apart at
     * --to, has no steps to draw (and took forever trying) */
    double narrowest = fmax(1e-6, to_us * 1e-9);
    if (to_us >= 0 && to_us - from_us < narrowest) {
        fprintf(stderr,
                "pldsim-timeline: --from %.15g --to %.15g: a window %g us wide is narrower than a "
                "text trace resolves; expected at least %g us (see --help)\n",
                from_us, to_us, to_us - from_us, narrowest);
        return 2;
    }
    view.from = from_us * 1e-6;
    view.to = to_us >= 0 ? to_us * 1e-6 : -1;
    if (argc - optind != 2)
        return usage_error("pldsim-timeline",
                           argc - optind < 2 ? "expected IN (a text or JSON trace) and OUT.svg%s"
                                             : "expected only IN and OUT.svg%s",
                           "");
    argv += optind - 1; /* argv[1], argv[2]: the two files */
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "pldsim-timeline: cannot read %s\n", argv[1]);
        return 2;
    }
    struct pld__trace t;
    struct pld__run R;
    struct pld__link_series *links = NULL;
    size_t nlinks = 0;
    memset(&t, 0, sizeof t);
    memset(&R, 0, sizeof R);
    int rc = 0, json = timeline_is_json(in);
    if (json) {
        rc = timeline_read_json(in, argv[1], &t, &R, &links, &nlinks);
        view.gaps = 1;
    } else if (nlinks_arg > 0) {
        fprintf(stderr,
                "pldsim-timeline: --links %g: %s is a text trace, which holds no link counters; "
                "expected the JSON trace (--trace FILE.json)\n",
                nlinks_arg, argv[1]);
        rc = 2;
    } else {
        rc = read_text(in, argv[1], &t, &R);
    }
    fclose(in);
    if (rc)
        goto out;
    size_t drawn = nlinks_arg >= 0 ? (size_t)nlinks_arg : 8;
    view.links = links, view.nlinks = drawn < nlinks ? drawn : nlinks;
    /* nothing to draw: say so, rather than draw empty lanes */
    double tend = 0;
    for (size_t i = 0; i < t.n; i++)
        tend = fmax(tend, t.ev[i].t1);
    if (t.n == 0) {
        fprintf(stderr,
                "pldsim-timeline: %s holds no events; expected a pldsim text or JSON trace "
                "(written by --trace FILE.txt or FILE.json)\n",
                argv[1]);
        rc = 2;
        goto out;
    }
    /* in ns, to the trace's 1 ps steps */
    if (view.from > 0 && from_us * 1e3 >= tend * 1e9 - 5e-4) {
        fprintf(stderr,
                "pldsim-timeline: --from %g is past the end of %s, at %.3f us; expected a time "
                "before it (see --help)\n",
                from_us, argv[1], tend * 1e6);
        rc = 2;
        goto out;
    }
    /* a window's links: the most loaded in it, drawn and reported */
    double w_to = view.to >= 0 && view.to < tend ? view.to : tend;
    size_t carried = nlinks; /* the header lists the links that carried bytes */
    if (json && (view.from > 0 || w_to < tend)) {
        long c = timeline_rank_links(links, nlinks, view.from, w_to);
        if (c < 0) {
            fputs("pldsim-timeline: out of memory\n", stderr);
            rc = 2;
            goto out;
        }
        carried = (size_t)c; /* no lane for a link idle all through the window */
        if (view.nlinks > carried)
            view.nlinks = carried;
    }
    FILE *out = fopen(argv[2], "w");
    if (!out || pld__write_svg_view(out, &R, &t, &view) != 0 || fclose(out) != 0) {
        fprintf(stderr, "pldsim-timeline: cannot write %s\n", argv[2]);
        rc = 2;
    }
    /* the links view's words, once its picture is written */
    if (rc == 0 && (json || view.gaps) &&
        timeline_report(stdout, &R, &t, tend, view.from, w_to, links, view.nlinks, carried,
                        view.gaps) != 0) {
        fputs("pldsim-timeline: out of memory\n", stderr);
        rc = 2;
    }
out:
    timeline_free_links(links, nlinks);
    for (size_t i = 0; i < t.n; i++) {
        free((char *)t.ev[i].where);
        free((char *)t.ev[i].file);
    }
    free(t.ev);
    return rc;
}
