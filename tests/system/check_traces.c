/* check_traces.c: the trace formats.
 *  - Perfetto JSON: valid JSON (our own strict parser); every slice has
 *    pid, tid, ts and dur >= 0; slices on one track nest monotonically
 *    (never partially overlap); every flow id has exactly one start and one
 *    end, the end bound to its enclosing slice; devices are named "dev r";
 *    under 100 bytes per event on average.
 *  - SVG timeline (step 10 at P=4): well-formed XML (xmllint), one lane per
 *    rank, transfer arrows, a time axis with units and a legend; the same
 *    picture from tools/pldsim-timeline and a text trace.  Its time axis:
 *    the idle stretches cut short, each break labelled with the time it
 *    hides, ticks in real time, to scale between breaks, the work taking
 *    most of the width; --linear (--trace-linear) all to scale.
 *  - The run summary. */
#include "checktools.h"
#include "timeline_read.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JSON is read with jansson (json_loads): strict, as the hand-written
 * parser this file had before. */

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- the JSON trace's rules ---- */

struct slice {
    long pid, tid;
    double ts, end;
};

static int cmp_slice(const void *pa, const void *pb)
{
    const struct slice *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end; /* outer first */
}

static const char *const json_runs[] = {
    "10_allreduce_ring -d 0-3",
    "16_putting_it_together -d 0-3",
    "15_all_to_all --mode builtin -d 0-4",
    "06_put_get --mode get",
};

START_TEST(perfetto_json_is_well_formed)
{
    char *path = write_temp(".json", "");
    struct cmd_result r = run_cmd("%s/tutorials/%s --trace %s", PLD_BUILDDIR, json_runs[_i], path);
    ck_assert_msg(r.status == 0, "%s failed:\n%s", json_runs[_i], r.err);
    char *text = slurp(path);
    size_t bytes = strlen(text);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    ck_assert_msg(root, "%s: invalid JSON near byte %d: %s", json_runs[_i], jerr.position,
                  jerr.text);
    json_t *evs = json_object_get(root, "traceEvents");
    ck_assert_ptr_nonnull(evs);
    ck_assert(json_is_array(evs));
    size_t nev = json_array_size(evs);
    ck_assert_msg((double)bytes / nev < 100, "%.1f bytes per event", (double)bytes / nev);

    struct slice *sl = calloc(nev, sizeof *sl);
    int nsl = 0, flows_s = 0, flows_f = 0, counters = 0, named = 0;
    long *flow_ids = calloc(nev, sizeof *flow_ids);
    int *flow_seen = calloc(nev, sizeof *flow_seen);
    double *flow_ts = calloc(nev * 2, sizeof *flow_ts); /* [2k] start, [2k+1] end */
    int nflow = 0;
    for (size_t i = 0; i < nev; i++) {
        json_t *e = json_array_get(evs, i);
        const char *ph = jstr(e, "ph");
        ck_assert_msg(ph, "event %zu has no ph", i);
        if (strcmp(ph, "X") == 0) {
            json_t *pid = json_object_get(e, "pid"), *tid = json_object_get(e, "tid"),
                   *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
            ck_assert_msg(pid && tid && ts && dur && json_number_value(dur) >= 0 &&
                              json_number_value(ts) >= 0,
                          "slice %zu lacks pid/tid/ts/dur", i);
            sl[nsl++] = (struct slice){(long)json_number_value(pid), (long)json_number_value(tid),
                                       json_number_value(ts),
                                       json_number_value(ts) + json_number_value(dur)};
        } else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
            json_t *id = json_object_get(e, "id");
            ck_assert_ptr_nonnull(id);
            if (strcmp(ph, "f") == 0) {
                const char *bp = jstr(e, "bp");
                ck_assert_msg(bp && strcmp(bp, "e") == 0, "flow end without bp:e");
            }
            int k = 0;
            while (k < nflow && flow_ids[k] != (long)json_number_value(id))
                k++;
            if (k == nflow)
                flow_ids[nflow++] = (long)json_number_value(id);
            flow_seen[k] |= strcmp(ph, "s") == 0 ? 1 : 2;
            json_t *ts = json_object_get(e, "ts");
            ck_assert_ptr_nonnull(ts);
            flow_ts[2 * k + (strcmp(ph, "s") != 0)] = json_number_value(ts);
            if (strcmp(ph, "s") == 0)
                flows_s++;
            else
                flows_f++;
        } else if (strcmp(ph, "C") == 0) {
            counters++;
        } else if (strcmp(ph, "M") == 0) {
            const char *name = jstr(json_object_get(e, "args"), "name");
            if (name && strncmp(name, "dev ", 4) == 0)
                named++;
        }
    }
    /* every flow has both ends, once */
    ck_assert_int_gt(nflow, 0);
    ck_assert_int_eq(flows_s, nflow);
    ck_assert_int_eq(flows_f, nflow);
    for (int k = 0; k < nflow; k++) {
        ck_assert_msg(flow_seen[k] == 3, "flow %ld lacks an end", flow_ids[k]);
        /* a notify->wait arrow never ends before the notify lands */
        ck_assert_msg(flow_ts[2 * k + 1] >= flow_ts[2 * k], "flow %ld ends at %.3f, before %.3f",
                      flow_ids[k], flow_ts[2 * k + 1], flow_ts[2 * k]);
    }
    ck_assert_int_gt(counters, 0);
    ck_assert_int_ge(named, 2);
    /* monotone nesting per track: a slice starts after the previous one on
     * its track ends, or lies wholly inside an open one */
    qsort(sl, (size_t)nsl, sizeof *sl, cmp_slice);
    double stack[256];
    int depth = 0;
    for (int i = 0; i < nsl; i++) {
        if (i && (sl[i].pid != sl[i - 1].pid || sl[i].tid != sl[i - 1].tid))
            depth = 0;
        while (depth && stack[depth - 1] <= sl[i].ts + 1e-9)
            depth--;
        ck_assert_msg(!depth || sl[i].end <= stack[depth - 1] + 1e-9,
                      "pid %ld tid %ld: slice [%.3f, %.3f] overlaps an open one ending %.3f",
                      sl[i].pid, sl[i].tid, sl[i].ts, sl[i].end, stack[depth - 1]);
        if (depth < 256)
            stack[depth++] = sl[i].end;
    }
    free(sl);
    free(flow_ids);
    free(flow_seen);
    free(flow_ts);
    json_decref(root);
    free(text);
    unlink(path);
    free(path);
    cmd_result_free(&r);
}
END_TEST

/* A model file whose name holds " < & (the platform's name in both
 * traces): the JSON still parses and the SVG is still XML. */
START_TEST(names_with_quotes_and_ampersands_are_escaped)
{
    NEED_TOOL("xmllint");
    const char *tmp = getenv("TMPDIR");
    char model[4096], json[4200], svg[4200];
    snprintf(model, sizeof model, "%s/pldtest-q\"<&%d.model", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    char *text = slurp(PLD_SRCDIR "/models/a2a3.model");
    FILE *f = fopen(model, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    free(text);
    snprintf(json, sizeof json, "%s.json", model);
    snprintf(svg, sizeof svg, "%s.svg", model);
    struct cmd_result r =
        run_cmd("%s/tutorials/05_remote_load_store --platform '%s' --trace '%s' && "
                "%s/tutorials/05_remote_load_store --platform '%s' --trace '%s' && "
                "xmllint --noout '%s'",
                PLD_BUILDDIR, model, json, PLD_BUILDDIR, model, svg, svg);
    ck_assert_msg(r.status == 0, "a run or xmllint failed:\n%s%s", r.out, r.err);
    cmd_result_free(&r);
    char *j = slurp(json);
    json_error_t jerr;
    json_t *root = json_loads(j, 0, &jerr);
    ck_assert_msg(root, "invalid JSON near byte %d: %s", jerr.position, jerr.text);
    const char *plat = jstr(json_object_get(root, "otherData"), "platform");
    ck_assert_ptr_nonnull(plat);
    ck_assert_contains(plat, "q\"<&"); /* decoded: the quote came through */
    ck_assert_contains(j, "q\\\"<&");  /* the raw string: the quote escaped */
    json_decref(root);
    free(j);
    /* and a plot's title */
    r = run_cmd(
        "%s/tools/pldsim-perf allreduce -g 8 -b 1K -e 4K -f 2 -n 1 --csv '%s.csv' >/dev/null && "
        "%s/tools/pldsim-plot -t 'mesh & ring <P=8>' -o '%s' '%s.csv' && xmllint --noout "
        "'%s' && grep -c 'mesh &amp; ring &lt;P=8&gt;' '%s'",
        PLD_BUILDDIR, model, PLD_BUILDDIR, svg, model, svg, svg);
    ck_assert_msg(r.status == 0, "the plot is not valid XML:\n%s%s", r.out, r.err);
    cmd_result_free(&r);
    snprintf(json, sizeof json, "%s.csv", model);
    unlink(json);
    unlink(model);
    snprintf(json, sizeof json, "%s.json", model);
    unlink(json);
    unlink(svg);
}
END_TEST

START_TEST(svg_timeline_of_step_10)
{
    NEED_TOOL("xmllint");
    char *svg = write_temp(".svg", ""), *txt = write_temp(".txt", ""),
         *svg2 = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s -d 0-3 --trace %s && %s -d 0-3 --trace %s && "
                                  "%s/tools/pldsim-timeline %s %s && xmllint --noout %s %s",
                                  tutorial("10_allreduce_ring"), svg, tutorial("10_allreduce_ring"),
                                  txt, PLD_BUILDDIR, txt, svg2, svg, svg2);
    ck_assert_msg(r.status == 0, "rendering or xmllint failed:\n%s%s", r.out, r.err);
    char *a = slurp(svg), *b = slurp(svg2);
    for (int k = 0; k < 2; k++) {
        const char *s = k ? b : a;
        ck_assert_contains(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
        for (int rank = 0; rank < 4; rank++) {
            char lane[32];
            snprintf(lane, sizeof lane, ">rank %d</text>", rank);
            ck_assert_contains(s, lane);
        }
        ck_assert_contains(s, ">host</text>");
        ck_assert_contains(s, "time (us)");
        ck_assert_contains(s, "data movement (remote load/store, put, get)");
        ck_assert_contains(s, "waiting");
        /* step 10 at P=4: 2(P-1) = 6 pulls per rank */
        ck_assert_int_eq(count_of(s, "marker-end=\"url(#arrow)\""), 24);
    }
    free(a);
    free(b);
    unlink(svg);
    unlink(txt);
    unlink(svg2);
    free(svg);
    free(txt);
    free(svg2);
    cmd_result_free(&r);
}
END_TEST

/* The picture tools take no unknown flag for a file name (issue 19). */
START_TEST(picture_tools_refuse_unknown_flags)
{
    static const struct {
        const char *cmd, *msg;
    } c[] = {
        {"pldsim-timeline --bogus", "pldsim-timeline: unknown option '--bogus' (see --help)"},
        {"pldsim-timeline in.txt",
         "pldsim-timeline: expected IN (a text or JSON trace) and OUT.svg (see --help)"},
        {"pldsim-timeline --from", "pldsim-timeline: --from needs a value (see --help)"},
        {"pldsim-timeline --from 1e400 a b", "pldsim-timeline: bad --from '1e400'"},
        {"pldsim-timeline --to nan a b", "pldsim-timeline: bad --to 'nan'"},
        {"pldsim-timeline --from 5 --to 5 a b", "pldsim-timeline: --to 5 is not after --from 5"},
        {"pldsim-timeline --width 1x a b", "pldsim-timeline: bad --width '1x'"},
        {"pldsim-plot --bogus -o x.svg", "pldsim-plot: unknown option '--bogus' (see --help)"},
        {"pldsim-plot -o", "pldsim-plot: -o needs a value (see --help)"},
        {"pldsim-plot a.csv", "pldsim-plot: -o OUT.svg is required (see --help)"},
        {"pldsim-plot -y speed -o x.svg a.csv", "pldsim-plot: bad -y 'speed'"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct cmd_result r = run_cmd("%s/tools/%s", PLD_BUILDDIR, c[i].cmd);
        ck_assert_msg(r.status == 2, "'%s' exited %d", c[i].cmd, r.status);
        ck_assert_contains(r.err, c[i].msg);
        ck_assert_msg(r.out[0] == '\0', "'%s' printed to stdout:\n%s", c[i].cmd, r.out);
        cmd_result_free(&r);
    }
    struct cmd_result r = run_cmd("%s/tools/pldsim-timeline --help", PLD_BUILDDIR);
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "usage: pldsim-timeline");
    ck_assert_contains(r.out, "--from US");
    ck_assert_contains(r.out, "--version");
    cmd_result_free(&r);
    r = run_cmd("%s/tools/pldsim-plot --help", PLD_BUILDDIR);
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "usage: pldsim-plot");
    ck_assert_contains(r.out, "--version");
    cmd_result_free(&r);
}
END_TEST

/* The x of every op <rect> (the ones with a <title>) of an SVG timeline,
 * and whether every arrow comes before the first op, so that the ops are
 * drawn over the arrows and no arrowhead hides one. */
static int ops_in_svg(const char *svg, double *xmin, double *xmax, int *arrows_first)
{
    int n = 0;
    const char *first_op = NULL, *last_arrow = NULL;
    *xmin = 1e300, *xmax = -1e300;
    for (const char *p = svg; (p = strstr(p, "<rect x=\"")); p++) {
        const char *end = strchr(p, '>');
        if (!end || strncmp(end + 1, "<title>", 7) != 0)
            continue;
        double x = atof(p + 9), w = atof(strstr(p, "width=\"") + 7);
        *xmin = fmin(*xmin, x), *xmax = fmax(*xmax, x + w);
        if (!first_op)
            first_op = p;
        n++;
    }
    for (const char *p = svg; (p = strstr(p, "marker-end=")); p++)
        last_arrow = p;
    *arrows_first = !last_arrow || (first_op && last_arrow < first_op);
    return n;
}

/* pldsim-timeline --from/--to draws only that window, across the whole
 * plot; the width follows the events; arrows are under the ops.  Step 10
 * at P=16: the ranks start one dispatch (a2a3: 277 us) apart, and the ring's
 * rounds run once the last one is there, from about 4.43 ms; the window is
 * 45 us of them. */
START_TEST(timeline_draws_a_window)
{
    char *txt = write_temp(".txt", ""), *all = write_temp(".svg", ""),
         *win = write_temp(".svg", "");
    struct cmd_result r =
        run_cmd("%s -d 0-15 --no-summary --trace %s && %s/tools/pldsim-timeline "
                "%s %s && %s/tools/pldsim-timeline --from 4470 --to 4515 %s %s",
                tutorial("10_allreduce_ring"), txt, PLD_BUILDDIR, txt, all, PLD_BUILDDIR, txt, win);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    char *a = slurp(all), *w = slurp(win);
    double xmin, xmax;
    int first;
    int na = ops_in_svg(a, &xmin, &xmax, &first);
    ck_assert_msg(first, "an arrow is drawn over the ops of the whole run");
    /* a typical op of step 10 is well under a microsecond of a 4.5 ms run:
     * the whole run takes the widest picture, 12000 px of plot */
    double width = atof(strstr(a, "width=\"") + 7);
    ck_assert_msg(width > 8000 && width < 12100, "the whole run is %g px wide", width);
    int nw = ops_in_svg(w, &xmin, &xmax, &first);
    ck_assert_msg(first, "an arrow is drawn over the ops of the window");
    ck_assert_msg(nw > 0 && nw < na / 2, "the window has %d of the run's %d ops", nw, na);
    /* the plot runs from x = 70 to 20 px short of the picture's width */
    double wwin = atof(strstr(w, "width=\"") + 7);
    ck_assert_msg(wwin >= 1090 && wwin < width, "the window is %g px wide", wwin);
    ck_assert_msg(xmin >= 70 - 0.05 && xmax <= wwin - 20 + 0.05, /* coordinates to 0.01 px */
                  "ops drawn outside the plot: %g..%g px", xmin, xmax);
    ck_assert_contains(w, "drawn from 4470.000 to 4515.000 us");
    ck_assert_contains(w, ">4470</text>");
    ck_assert_contains(w, ">4515</text>");
    free(a);
    free(w);
    unlink(txt), unlink(all), unlink(win);
    free(txt), free(all), free(win);
}
END_TEST

/* ---- the timeline's time axis: idle stretches cut short ---- */

/* One line of a text trace, times in us. */
struct tev {
    double t0, t1;
    char op[32];
};

static int read_text_trace(const char *path, struct tev **out)
{
    char *text = slurp(path);
    ck_assert_ptr_nonnull(text);
    int n = 0, cap = 256;
    struct tev *e = malloc(cap * sizeof *e);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char rank[16];
        if (line[0] == '#')
            continue;
        if (n == cap)
            e = realloc(e, (cap *= 2) * sizeof *e);
        ck_assert(sscanf(line, "%lf %lf %15s %31s", &e[n].t0, &e[n].t1, rank, e[n].op) == 4);
        e[n].t0 /= 1e3, e[n].t1 /= 1e3;
        n++;
    }
    free(text);
    *out = e;
    return n;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static int is_wait(const char *op)
{
    return strncmp(op, "wait_", 5) == 0;
}

/* The idle stretches of [from, to] us, as docs/traces.md defines them:
 * no op runs but waits and host dispatches, for more than 50 times the
 * median op (of the ops that take time, waits aside). */
static int idle_stretches(const struct tev *e, int n, double from, double to, double (*gap)[2])
{
    double *d = malloc(n * sizeof *d);
    int nd = 0, ng = 0;
    for (int i = 0; i < n; i++)
        if (e[i].t1 > e[i].t0 && !is_wait(e[i].op))
            d[nd++] = e[i].t1 - e[i].t0;
    qsort(d, nd, sizeof *d, cmp_double);
    double longer = 50 * d[nd / 2], end = from;
    free(d);
    /* the text trace is sorted by start */
    for (int i = 0; i <= n; i++) {
        if (i < n && (is_wait(e[i].op) || strcmp(e[i].op, "dispatch") == 0 || e[i].t1 < from ||
                      e[i].t0 > to))
            continue;
        double start = i < n ? fmax(e[i].t0, from) : to;
        if (start - end > longer) {
            gap[ng][0] = end, gap[ng][1] = start;
            ng++;
        }
        if (i < n)
            end = fmax(end, fmin(e[i].t1, to));
    }
    return ng;
}

/* The union of the x spans of the blocks that `pick` takes, in px. */
static double covered(const struct timeline *tl, int (*pick)(const struct tl_op *))
{
    double *iv = malloc(2 * tl->nops * sizeof *iv), sum = 0, end = -1;
    int n = 0;
    for (int i = 0; i < tl->nops; i++)
        if (pick(&tl->ops[i]))
            iv[2 * n] = tl->ops[i].x, iv[2 * n + 1] = tl->ops[i].x + tl->ops[i].w, n++;
    /* pairs sorted by start: qsort on the first double of each pair */
    qsort(iv, n, 2 * sizeof *iv, cmp_double);
    for (int i = 0; i < n; i++) {
        double a = fmax(iv[2 * i], end), b = iv[2 * i + 1];
        if (b > a)
            sum += b - a;
        end = fmax(end, b);
    }
    free(iv);
    return sum;
}

/* work: what a rank does other than waiting */
static int is_work(const struct tl_op *o)
{
    return o->lane > 0 && o->t0 >= 0 && !is_wait(o->op);
}

/* The ring's rounds: from the first pull on (step 10 pulls with
 * remote_load), what the ranks do other than waiting. */
static double first_pull;
static int is_round(const struct tl_op *o)
{
    return is_work(o) && o->t0 >= first_pull;
}

/* What the picture claims about time, checked against the trace: every
 * block inside the plot, the breaks exactly the idle stretches of
 * [from, to] (none when not `cut`) with labels that say their length, tick numbers that grow,
 * none inside a break, and between breaks one scale for ticks and blocks
 * alike.  Returns that scale, px per us. */
static double check_time_axis(const struct timeline *tl, const struct tev *e, int n, int cut,
                              double from, double to)
{
    double gap[64][2];
    int ng = cut ? idle_stretches(e, n, from, to, gap) : 0;
    ck_assert_int_eq(tl->nbreaks, ng);
    for (int i = 0; i < ng; i++) {
        const struct tl_break *b = &tl->breaks[i];
        ck_assert_msg(fabs(b->from - gap[i][0]) < 1e-3 && fabs(b->to - gap[i][1]) < 1e-3,
                      "break %d hides %.3f-%.3f us; the trace's idle stretch is %.3f-%.3f us", i,
                      b->from, b->to, gap[i][0], gap[i][1]);
        ck_assert_msg(fabs(b->label - (gap[i][1] - gap[i][0])) <= 1e-3 + 1e-9,
                      "break %d says %.3f us; it hides %.3f us", i, b->label,
                      gap[i][1] - gap[i][0]);
        ck_assert(b->x >= tl->plot_x0 - 0.01 && b->x + b->w <= tl->plot_x1 + 0.01);
    }
    for (int i = 0; i < tl->nops; i++)
        ck_assert_msg(
            tl->ops[i].x >= tl->plot_x0 - 0.01 && tl->ops[i].x + tl->ops[i].w <= tl->plot_x1 + 0.01,
            "%s at %.3f us is drawn at %.2f-%.2f px, outside the plot (%.0f-%.0f)", tl->ops[i].op,
            tl->ops[i].t0, tl->ops[i].x, tl->ops[i].x + tl->ops[i].w, tl->plot_x0, tl->plot_x1);
    ck_assert_int_ge(tl->nticks, 4);
    for (int k = 0; k < tl->nticks; k++) {
        const struct tl_tick *t = &tl->ticks[k];
        ck_assert_msg(k == 0 || (t->value > tl->ticks[k - 1].value && t->x > tl->ticks[k - 1].x),
                      "tick %g at %.2f px follows %g at %.2f px", t->value, t->x,
                      tl->ticks[k - 1].value, tl->ticks[k - 1].x);
        ck_assert_msg(t->value >= from - 1e-9 && t->value <= to + 1e-9, "tick %g", t->value);
        for (int i = 0; i < tl->nbreaks; i++)
            ck_assert_msg(t->x <= tl->breaks[i].x + 0.01 ||
                              t->x >= tl->breaks[i].x + tl->breaks[i].w - 0.01,
                          "tick %g is inside the break at %.2f px", t->value, tl->breaks[i].x);
    }
    /* (time, x) of every tick and of each block edge that lies between
     * breaks; the segment between breaks k-1 and k is number k */
    int np = 0, cap = tl->nticks + 2 * tl->nops;
    double(*pt)[3] = malloc(cap * sizeof *pt);
    for (int k = 0; k < tl->nticks; k++)
        pt[np][0] = tl->ticks[k].value, pt[np][1] = tl->ticks[k].x, np++;
    for (int i = 0; i < tl->nops; i++) {
        const struct tl_op *o = &tl->ops[i];
        if (o->t0 < 0)
            continue;
        if (o->t0 >= from)
            pt[np][0] = o->t0, pt[np][1] = o->x, np++;
        if (o->w > 0.6 && o->t1 <= to) /* narrower: widened to be seen */
            pt[np][0] = o->t1, pt[np][1] = o->x + o->w, np++;
    }
    double scale = -1;
    for (int seg = 0; seg <= ng; seg++) {
        double lo = seg ? gap[seg - 1][1] : from, hi = seg < ng ? gap[seg][0] : to;
        int a = -1, b = -1;
        for (int p = 0; p < np; p++)
            if (pt[p][0] >= lo - 1e-3 && pt[p][0] <= hi + 1e-3) {
                if (a < 0 || pt[p][0] < pt[a][0])
                    a = p;
                if (b < 0 || pt[p][0] > pt[b][0])
                    b = p;
            }
        if (a < 0 || pt[b][0] - pt[a][0] < 1)
            continue; /* too short to measure a scale on */
        double s = (pt[b][1] - pt[a][1]) / (pt[b][0] - pt[a][0]);
        if (scale < 0)
            scale = s;
        ck_assert_msg(fabs(s - scale) < 1e-3 * scale,
                      "%.3f-%.3f us is drawn at %.4f px/us, the part before at %.4f", lo, hi, s,
                      scale);
        /* each point against its own segment's scale: the titles give
         * times to the ns, so a scale measured on a short segment (1.7 us
         * at step 10's first round) is off by up to 6e-4, half a pixel
         * across a 9 us one; the segments agree to 1e-3 above */
        for (int p = 0; p < np; p++)
            if (pt[p][0] >= lo - 1e-3 && pt[p][0] <= hi + 1e-3)
                ck_assert_msg(fabs(pt[a][1] + (pt[p][0] - pt[a][0]) * s - pt[p][1]) < 0.25,
                              "%.3f us is drawn at %.2f px; to scale it would be at %.2f", pt[p][0],
                              pt[p][1], pt[a][1] + (pt[p][0] - pt[a][0]) * s);
    }
    ck_assert(scale > 0);
    free(pt);
    return scale;
}

/* Step 10 at P=4 on a2a3: 1116 us, of which each rank works about 2 us
 * once dispatched and the last one 9 us, the rest waiting for the host's
 * 277-us dispatches.  The default picture cuts those stretches short, so
 * the ring's rounds get most of the width; --linear (and
 * --trace-linear, PLD_TRACE_LINEAR for the library) draws time to scale,
 * the picture as it was. */
START_TEST(timeline_cuts_idle_stretches_short)
{
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", ""),
         *lin = write_temp(".svg", ""), *lib = write_temp(".svg", ""),
         *env = write_temp(".svg", ""), *direct = write_temp(".svg", "");
    /* the library draws what pldsim-timeline draws, cut or linear */
    const char *step = tutorial("10_allreduce_ring");
    struct cmd_result r =
        run_cmd("%s -d 0-3 --no-summary --trace %s && %s/tools/pldsim-timeline %s %s && "
                "%s/tools/pldsim-timeline --linear %s %s && %s -d 0-3 --no-summary --trace %s && "
                "%s -d 0-3 --no-summary --trace-linear --trace %s && "
                "PLD_TRACE_LINEAR=1 %s -d 0-3 --no-summary --trace %s && cmp %s %s && cmp %s %s && "
                "cmp %s %s",
                step, txt, PLD_BUILDDIR, txt, svg, PLD_BUILDDIR, txt, lin, step, direct, step, lib,
                step, env, svg, direct, lin, lib, lin, env);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    cmd_result_free(&r);
    struct tev *e;
    int n = read_text_trace(txt, &e);
    double end = 0;
    first_pull = 1e300;
    for (int i = 0; i < n; i++) {
        end = fmax(end, e[i].t1);
        if (strcmp(e[i].op, "remote_load") == 0)
            first_pull = fmin(first_pull, e[i].t0);
    }
    char *text = slurp(svg), *ltext = slurp(lin);
    struct timeline tl, ll;
    ck_assert_int_eq(timeline_read(text, &tl), 0);
    ck_assert_int_eq(timeline_read(ltext, &ll), 0);
    double plot = tl.plot_x1 - tl.plot_x0, lplot = ll.plot_x1 - ll.plot_x0;

    /* the host's four dispatches, the ranks' waits for them */
    ck_assert_int_eq(tl.nbreaks, 4);
    double scale = check_time_axis(&tl, e, n, 1, 0, end);
    ck_assert_contains(text, "4 idle stretches cut short");
    /* a median op (a load, 81 ns) is about 10 px, as in the linear rule */
    ck_assert_msg(scale > 9 / 0.0812 && scale < 11 / 0.0812, "%.1f px per us", scale);
    double work = covered(&tl, is_work) / plot, rounds = covered(&tl, is_round) / plot,
           lwork = covered(&ll, is_work) / lplot, lrounds = covered(&ll, is_round) / lplot;
    ck_assert_msg(work > 0.75, "the ranks' work takes %.1f%% of the width", 100 * work);
    ck_assert_msg(rounds > 0.5, "the ring's rounds take %.1f%% of the width", 100 * rounds);

    /* to scale: no break, the widest picture, and each block at its time */
    ck_assert_int_eq(ll.nbreaks, 0);
    ck_assert_msg(lwork < 0.05 && lrounds < 0.05, "linear: work %.1f%%, rounds %.1f%%", 100 * lwork,
                  100 * lrounds);
    ck_assert_double_eq_tol(lplot, 12000, 0.5);
    ck_assert(strstr(ltext, "idle stretches") == NULL);
    ck_assert_double_eq_tol(check_time_axis(&ll, e, n, 0, 0, end), lplot / end, 1e-3 * lplot / end);

    timeline_free(&tl), timeline_free(&ll);
    free(text), free(ltext), free(e);
    unlink(txt), unlink(svg), unlink(lin), unlink(lib), unlink(env), unlink(direct);
    free(txt), free(svg), free(lin), free(lib), free(env), free(direct);
}
END_TEST

/* --from/--to with the cut: the window's own idle stretches are cut,
 * from the window's start (the host's first dispatch, r0 waiting) to its
 * end (r1 waiting for r2). */
START_TEST(timeline_window_cuts_its_idle_stretches)
{
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s -d 0-3 --no-summary --trace %s && "
                                  "%s/tools/pldsim-timeline --from 250 --to 600 %s %s",
                                  tutorial("10_allreduce_ring"), txt, PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    cmd_result_free(&r);
    struct tev *e;
    int n = read_text_trace(txt, &e);
    char *text = slurp(svg);
    struct timeline tl;
    ck_assert_int_eq(timeline_read(text, &tl), 0);
    ck_assert_contains(text, "drawn from 250.000 to 600.000 us");
    ck_assert_int_eq(tl.nbreaks, 3);
    ck_assert_double_eq_tol(tl.breaks[0].from, 250, 1e-9);
    ck_assert_double_eq_tol(tl.breaks[2].to, 600, 1e-9);
    check_time_axis(&tl, e, n, 1, 250, 600);
    timeline_free(&tl);
    free(text), free(e);
    unlink(txt), unlink(svg);
    free(txt), free(svg);
}
END_TEST

START_TEST(timeline_tool_refuses_what_is_not_a_trace)
{
    char *bad = write_temp(".txt", "hello world\n");
    struct cmd_result r = run_cmd("%s/tools/pldsim-timeline %s /dev/null", PLD_BUILDDIR, bad);
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, ":1: not a pldsim text trace line");
    cmd_result_free(&r);
    unlink(bad);
    free(bad);
}
END_TEST

/* Issue 28, class 4: what pldsim-timeline cannot draw is one line, exit 2,
 * and no picture: a window finer than the trace resolves (it looped
 * forever), --from past the trace's end (an empty picture), and a file
 * with no events (an SVG and exit 0). */
static const struct {
    const char *flags, *input, *message;
} undrawable[] = {
    {"--to 1e-15", "trace", "--from 0 --to 1e-15: a window 1e-15 us wide is narrower than"},
    {"--to 1e-300", "trace", "a window 1e-300 us wide is narrower than a text trace resolves"},
    {"--from 5 --to 5.000000000000001", "trace", "expected at least 1e-06 us"},
    {"--from 1e9 --to 1000000000.5", "trace", "expected at least 1 us"},
    {"--from 1000", "trace", "--from 1000 is past the end of"},
    {"", "/dev/null", "/dev/null holds no events; expected a pldsim text or JSON trace"},
    {"", "header", "holds no events; expected a pldsim text or JSON trace"},
    /* issue 41, class 6: every degenerate range is one line naming the
     * flag and the accepted form (1e400 said "more than 0", which it is) */
    {"--to 1e-12", "trace", "--from 0 --to 1e-12: a window 1e-12 us wide is narrower than"},
    {"--from 5 --to 5", "trace", "--to 5 is not after --from 5"},
    {"--from 6 --to 5", "trace", "--to 5 is not after --from 6"},
    {"--from -1", "trace", "bad --from '-1'; expected a time in us from 0 to 1e15"},
    {"--to -1", "trace", "bad --to '-1'; expected a time in us above 0, at most 1e15"},
    {"--to 0", "trace", "bad --to '0'; expected a time in us above 0"},
    {"--from nan", "trace", "bad --from 'nan'; expected a time in us from 0 to 1e15"},
    {"--to nan", "trace", "bad --to 'nan'; expected a time in us above 0"},
    {"--from inf", "trace", "bad --from 'inf'; expected a time in us from 0 to 1e15"},
    {"--to inf", "trace", "bad --to 'inf'; expected a time in us above 0"},
    {"--to -inf", "trace", "bad --to '-inf'; expected a time in us above 0"},
    {"--to 1e400", "trace", "bad --to '1e400'; expected a time in us above 0, at most 1e15"},
    {"--from 2e15", "trace", "bad --from '2e15'; expected a time in us from 0 to 1e15"},
};

START_TEST(timeline_refuses_what_it_cannot_draw)
{
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", "");
    const char *in = undrawable[_i].input;
    struct cmd_result r = run_cmd("%s --no-summary --trace %s", tutorial("06_put_get"), txt);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
    if (strcmp(in, "header") == 0) { /* the trace's two comment lines alone */
        r = run_cmd("head -2 %s > %s.h && mv %s.h %s", txt, txt, txt, txt);
        cmd_result_free(&r);
    }
    unlink(svg);
    r = run_cmd("timeout 30 %s/tools/pldsim-timeline %s %s %s", PLD_BUILDDIR, undrawable[_i].flags,
                strcmp(in, "/dev/null") == 0 ? in : txt, svg);
    ck_assert_msg(r.status == 2, "%s: exit %d:\n%s", undrawable[_i].flags, r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    ck_assert_contains(r.err, undrawable[_i].message);
    ck_assert_msg(access(svg, F_OK) != 0, "%s: a picture was written", undrawable[_i].flags);
    cmd_result_free(&r);
    unlink(txt);
    free(txt), free(svg);
}
END_TEST

START_TEST(run_summary)
{
    struct cmd_result r = run_cmd("%s -d 0-3 --summary", tutorial("10_allreduce_ring"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "== run summary: a2a3sim, P=4,");
    ck_assert_contains(r.out, "rank      busy (us) waiting (us)    idle (us)     sent (B) received "
                              "(B) device wall (us)");
    /* each rank sends its 6 chunks of 16 floats plus 12 four-byte signals */
    ck_assert_int_eq(count_lines_with(r.out, "          408          408"), 4);
    /* rank 0 is dispatched first and waits for the others: its one
     * dispatch is the longest */
    ck_assert_contains(r.out, "device wall: ");
    ck_assert_contains(r.out, " us (r0's longest of 1 dispatch); host dispatching ");
    ck_assert_contains(r.out, "r0 -> r1                408");
    ck_assert_contains(r.out, "critical path: ");
    cmd_result_free(&r);
}
END_TEST

/* --summary-json read back with jansson: what a user would check first.
 * Step 10 is a ring allreduce of N = 64 floats at P = 4: each rank sends
 * 2(P-1) chunks of N/P floats, each followed by one 4-byte signal, all to
 * its right neighbour. */
/* The per-link counters against their closed forms.  Step 6 at P = 2 on
 * mesh:2 (a link per direction): every transfer is alone on its link, so a
 * link is busy for its bytes over its bandwidth; and a link's bytes are
 * those of the routes that cross it.  Step 15's all_to_all at P = 4 on a
 * star shares each device's links: busy time can only be longer. */
static void check_links(const char *cmd_fmt, const char *prog, int solo)
{
    char *path = write_temp(".json", "");
    struct cmd_result r = run_cmd(cmd_fmt, prog, path);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    ck_assert_msg(doc, "invalid JSON: %s at line %d", err.text, err.line);
    json_t *links = json_object_get(doc, "links"), *routes = json_object_get(doc, "routes");
    ck_assert(json_array_size(links) > 0);
    for (size_t i = 0; i < json_array_size(links); i++) {
        json_t *l = json_array_get(links, i);
        const char *name = json_string_value(json_object_get(l, "name"));
        double bytes = json_number_value(json_object_get(l, "bytes")),
               bw = json_number_value(json_object_get(l, "bandwidth_GBps")) * 1e9,
               busy = json_number_value(json_object_get(l, "busy_us")) * 1e-6;
        double want = bytes / bw;
        if (solo)
            ck_assert_msg(fabs(busy - want) <= 1e-9 * want, "%s: busy %.17g s, bytes/bw %.17g s",
                          name, busy, want);
        else
            ck_assert_msg(busy >= want * (1 - 1e-9), "%s: busy %.17g s < bytes/bw %.17g s", name,
                          busy, want);
        double routed = 0;
        for (size_t k = 0; k < json_array_size(routes); k++) {
            json_t *rt = json_array_get(routes, k), *names = json_object_get(rt, "links");
            for (size_t j = 0; j < json_array_size(names); j++)
                if (strcmp(json_string_value(json_array_get(names, j)), name) == 0)
                    routed += json_number_value(json_object_get(rt, "bytes"));
        }
        ck_assert_msg(routed == bytes, "%s: %.17g bytes, routes crossing it %.17g", name, bytes,
                      routed);
    }
    json_decref(doc);
    unlink(path);
    free(path);
}

/* The Perfetto trace's link counters: on mesh:2 at 10 GB/s every transfer
 * is alone on its link, so each link's counter peaks at the link's 10 GB/s
 * and ends at 0. */
static void check_link_counter_tracks(void)
{
    char *path = write_temp(".json", "");
    struct cmd_result r =
        run_cmd("%s --topology mesh:2,bw=10GBps,lat=1us --trace %s", tutorial("06_put_get"), path);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    ck_assert_msg(doc, "invalid JSON: %s at line %d", err.text, err.line);
    json_t *ev = json_object_get(doc, "traceEvents");
    int links_pid = -1, counters = 0;
    double peak[2] = {0, 0}, last[2] = {-1, -1};
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i), *args = json_object_get(e, "args");
        const char *ph = json_string_value(json_object_get(e, "ph")),
                   *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(ph, "M") == 0 && strcmp(name, "process_name") == 0 &&
            strcmp(json_string_value(json_object_get(args, "name")), "links") == 0)
            links_pid = (int)json_integer_value(json_object_get(e, "pid"));
        if (strcmp(ph, "C") != 0 || json_integer_value(json_object_get(e, "pid")) != links_pid)
            continue;
        int up = strcmp(name, "link_0_1_UP GB/s") == 0,
            down = strcmp(name, "link_0_1_DOWN GB/s") == 0;
        ck_assert_msg(up || down, "unexpected link counter '%s'", name);
        double v = json_number_value(json_object_get(args, "v"));
        if (v > peak[down])
            peak[down] = v;
        last[down] = v;
        counters++;
    }
    ck_assert_msg(links_pid >= 0 && counters > 0, "no link counters (pid %d)", links_pid);
    for (int d = 0; d < 2; d++) {
        ck_assert_msg(fabs(peak[d] - 10.0) < 1e-9, "link %d peaks at %.17g GB/s", d, peak[d]);
        ck_assert_msg(last[d] == 0, "link %d ends at %.17g GB/s", d, last[d]);
    }
    json_decref(doc);
    unlink(path);
    free(path);
}

START_TEST(link_counters_hold_their_closed_forms)
{
    check_link_counter_tracks();
    check_links("%s --topology mesh:2,bw=10GBps,lat=1us --summary-json %s", tutorial("06_put_get"),
                1);
    check_links("%s -d 0-3 --topology star:4,bw=10GBps,lat=1us --summary-json %s",
                tutorial("15_all_to_all"), 0);
}
END_TEST

START_TEST(run_summary_json)
{
    enum { P = 4, N = 64 };
    char *path = write_temp(".json", "");
    struct cmd_result r =
        run_cmd("%s -d 0-3 --summary-json %s", tutorial("10_allreduce_ring"), path);
    ck_assert_msg(r.status == 0, "%s", r.err);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    ck_assert_msg(doc, "invalid JSON: %s at line %d", err.text, err.line);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "pldsim-summary/1");
    json_t *run = json_object_get(doc, "run");
    ck_assert_int_eq(json_integer_value(json_object_get(run, "P")), P);
    ck_assert_str_eq(json_string_value(json_object_get(run, "backend")), "sim");
    double end = json_number_value(json_object_get(run, "end_time_us"));
    ck_assert(end > 0);

    /* busy + wait + idle is the run's end, rank by rank */
    json_t *ranks = json_object_get(doc, "ranks");
    ck_assert_int_eq(json_array_size(ranks), P);
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        json_t *rk = json_array_get(ranks, i);
        double sum = json_number_value(json_object_get(rk, "busy_us")) +
                     json_number_value(json_object_get(rk, "wait_us")) +
                     json_number_value(json_object_get(rk, "idle_us"));
        ck_assert_msg(fabs(sum - end) <= 1e-9 * end, "rank %zu: %.17g != %.17g", i, sum, end);
        ck_assert_int_eq(json_integer_value(json_object_get(rk, "sent_bytes")),
                         2 * (P - 1) * (N / P * 4 + 4));
    }

    /* the device wall, as upstream's runtime measures it: each rank ran one
     * dispatch, which started when the host's serial dispatches reached it
     * ((r + 1) dispatch costs) and ended by the run's end; the rank's wall
     * is that span, and the run's the largest of them */
    json_t *host = json_object_get(doc, "host");
    ck_assert_int_eq(json_integer_value(json_object_get(host, "dispatches")), P);
    double per_dispatch = json_number_value(json_object_get(host, "busy_us")) / P, most = 0;
    ck_assert(per_dispatch > 0);
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        json_t *rk = json_array_get(ranks, i), *ds = json_object_get(rk, "dispatches");
        ck_assert_int_eq(json_array_size(ds), 1);
        json_t *d = json_array_get(ds, 0);
        double t0 = json_number_value(json_object_get(d, "start_us")),
               t1 = json_number_value(json_object_get(d, "end_us")),
               w = json_number_value(json_object_get(d, "device_wall_us"));
        ck_assert_str_eq(json_string_value(json_object_get(d, "function")), "per_device");
        ck_assert_double_eq_tol(t0, (double)(i + 1) * per_dispatch, 1e-9 * end);
        ck_assert(t1 > t0 && t1 <= end * (1 + 1e-12));
        ck_assert_double_eq_tol(w, t1 - t0, 1e-9 * end);
        ck_assert_double_eq_tol(json_number_value(json_object_get(rk, "device_wall_us")), w,
                                1e-9 * end);
        if (w > most)
            most = w;
    }
    ck_assert_double_eq_tol(json_number_value(json_object_get(run, "device_wall_us")), most,
                            1e-9 * end);
    /* the device wall leaves out the host's time before the first dispatch
     * landed */
    ck_assert(most <= end - per_dispatch + 1e-9 * end);

    /* one route per rank, to its right neighbour, with the closed form */
    json_t *routes = json_object_get(doc, "routes");
    ck_assert_int_eq(json_array_size(routes), P);
    for (size_t i = 0; i < json_array_size(routes); i++) {
        json_t *rt = json_array_get(routes, i);
        long from = (long)json_integer_value(json_object_get(rt, "from"));
        ck_assert_int_eq(json_integer_value(json_object_get(rt, "to")), (from + 1) % P);
        ck_assert_double_eq(json_number_value(json_object_get(rt, "bytes")),
                            2 * (P - 1) * (N / P * 4 + 4));
        double u = json_number_value(json_object_get(rt, "peak_util"));
        ck_assert(u > 0 && u <= 1);
    }

    /* the critical path: contiguous (each segment starts on the path where
     * the one before it ended), and it ends at the run's end */
    json_t *cp = json_object_get(doc, "critical_path");
    json_t *segs = json_object_get(cp, "segments");
    ck_assert(json_array_size(segs) > 0);
    ck_assert_int_eq(json_integer_value(json_object_get(cp, "events")), json_array_size(segs));
    double prev_end = json_number_value(json_object_get(cp, "start_us"));
    for (size_t i = 0; i < json_array_size(segs); i++) {
        json_t *s = json_array_get(segs, i);
        double from = json_number_value(json_object_get(s, "on_path_from_us"));
        double e = json_number_value(json_object_get(s, "end_us"));
        ck_assert_msg(fabs(from - prev_end) <= 1e-9 * end || i == 0,
                      "segment %zu starts at %.17g, the one before ended at %.17g", i, from,
                      prev_end);
        ck_assert(e >= from);
        prev_end = e;
    }
    ck_assert_msg(fabs(prev_end - end) <= 1e-9 * end, "path ends at %.17g, the run at %.17g",
                  prev_end, end);
    ck_assert_double_eq_tol(json_number_value(json_object_get(cp, "end_us")), end, 1e-9 * end);
    json_decref(doc);
    cmd_result_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* A rank with several dispatches: the host builtin allreduce between a
 * publish and a consume dispatch (bench/pldsim-measured, the measured
 * program).  Each rank's dispatches come in order and do not overlap; its
 * device wall is the longest, and the run's the largest over ranks: the
 * clock upstream's runtime reports for this program. */
START_TEST(device_wall_of_several_dispatches)
{
    enum { P = 4 };
    char *path = write_temp(".json", "");
    struct cmd_result r =
        run_cmd("%s/bench/pldsim-measured allreduce --where host --count 4096 -d 0-%d "
                "--summary-json %s",
                PLD_BUILDDIR, P - 1, path);
    ck_assert_msg(r.status == 0, "%s", r.err);
    double printed = strtod(strstr(r.out, "device_wall_us=") + 15, NULL);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    ck_assert_msg(doc, "invalid JSON: %s", err.text);
    json_t *ranks = json_object_get(doc, "ranks");
    static const char *const fns[] = {"publish_orch", "builtin pld_tensor_allreduce",
                                      "consume_orch"};
    double most = 0;
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        json_t *rk = json_array_get(ranks, i), *ds = json_object_get(rk, "dispatches");
        ck_assert_int_eq(json_array_size(ds), 3);
        double longest = 0, prev_end = 0;
        for (size_t k = 0; k < 3; k++) {
            json_t *d = json_array_get(ds, k);
            ck_assert_str_eq(json_string_value(json_object_get(d, "function")), fns[k]);
            double t0 = json_number_value(json_object_get(d, "start_us")),
                   t1 = json_number_value(json_object_get(d, "end_us")),
                   w = json_number_value(json_object_get(d, "device_wall_us"));
            ck_assert_msg(t0 >= prev_end, "rank %zu: dispatch %zu starts before the last ends", i,
                          k);
            ck_assert_double_eq_tol(w, t1 - t0, 1e-9 * t1);
            prev_end = t1;
            longest = w > longest ? w : longest;
        }
        ck_assert_double_eq_tol(json_number_value(json_object_get(rk, "device_wall_us")), longest,
                                1e-9 * longest);
        /* the builtin waits for the last rank: it is the long one */
        ck_assert_double_eq_tol(
            json_number_value(json_object_get(json_array_get(ds, 1), "device_wall_us")), longest,
            1e-9 * longest);
        most = longest > most ? longest : most;
    }
    double run = json_number_value(json_object_get(json_object_get(doc, "run"), "device_wall_us"));
    ck_assert_double_eq_tol(run, most, 1e-9 * most);
    ck_assert_double_eq_tol(printed, most, 1e-9 * most); /* pld_last_run_stats agrees */
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(doc, "host"), "dispatches")), 3 * P);
    json_decref(doc);
    cmd_result_free(&r);
    unlink(path);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("traces");
    TCase *tc = tcase_create("formats");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, perfetto_json_is_well_formed, 0,
                        (int)(sizeof json_runs / sizeof json_runs[0]));
    tcase_add_test(tc, names_with_quotes_and_ampersands_are_escaped);
    tcase_add_test(tc, svg_timeline_of_step_10);
    tcase_add_test(tc, timeline_tool_refuses_what_is_not_a_trace);
    tcase_add_test(tc, picture_tools_refuse_unknown_flags);
    tcase_add_test(tc, timeline_draws_a_window);
    tcase_add_test(tc, timeline_cuts_idle_stretches_short);
    tcase_add_test(tc, timeline_window_cuts_its_idle_stretches);
    tcase_add_loop_test(tc, timeline_refuses_what_it_cannot_draw, 0,
                        (int)(sizeof undrawable / sizeof undrawable[0]));
    tcase_add_test(tc, run_summary);
    tcase_add_test(tc, run_summary_json);
    tcase_add_test(tc, link_counters_hold_their_closed_forms);
    tcase_add_test(tc, device_wall_of_several_dispatches);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
