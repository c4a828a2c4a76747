/* check_links_view.c: pldsim-timeline's links view (issue 54, item 3):
 *  - from a JSON trace, each link's row of the report holds the summary's
 *    bytes and busy time, and a link that carries its transfers alone is
 *    at full rate for exactly its bytes over its bandwidth;
 *  - the picture has a lane per link drawn, named, and well-formed XML;
 *  - each rank's idle gaps match a trace written by hand, whose gaps are
 *    known: a wait between two ops, ops that overlap, a rank with none;
 *  - what it cannot take is one line and exit 2. */
#include "checktools.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The report's row for `name`: its numbers, or 0 when there is none. */
static int link_row(const char *report, const char *name, double *gbps, double *bytes, double *busy,
                    double *full, double *util)
{
    for (const char *p = report; (p = strstr(p, name)); p++) {
        if (p != report && p[-1] != '\n')
            continue;
        char n[64];
        if (sscanf(p, "%63s %lf %lf %lf %lf %lf%%", n, gbps, bytes, busy, full, util) == 6 &&
            strcmp(n, name) == 0)
            return 1;
    }
    return 0;
}

/* A sendrecv of 1 MiB each way, twice, on mesh:2 at 10 GB/s: a link per
 * direction, every transfer alone on its link. */
START_TEST(links_view_holds_its_closed_forms)
{
    NEED_TOOL("xmllint");
    char *json = write_temp(".json", ""), *sum = write_temp(".json", ""),
         *svg = write_temp(".svg", "");
    struct cmd_result r =
        run_cmd("%s/tools/pldsim-perf sendrecv_perf -b 1M -e 1M -n 2 -w 0 -g 2 "
                "--topology mesh:2,bw=10GBps,lat=1us --trace %s --summary-json %s",
                PLD_BUILDDIR, json, sum);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    r = run_cmd("%s/tools/pldsim-timeline %s %s && xmllint --noout %s", PLD_BUILDDIR, json, svg,
                svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_contains(r.out, "most loaded links (2 carried bytes), by bytes over bandwidth:");
    json_error_t err;
    json_t *doc = json_load_file(sum, 0, &err), *links = json_object_get(doc, "links");
    ck_assert_msg(doc, "invalid JSON: %s", err.text);
    double end = json_number_value(json_object_get(json_object_get(doc, "run"), "end_time_us"));
    ck_assert_int_eq(json_array_size(links), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *l = json_array_get(links, i);
        const char *name = json_string_value(json_object_get(l, "name"));
        double bytes = json_number_value(json_object_get(l, "bytes")),
               busy = json_number_value(json_object_get(l, "busy_us"));
        double g, b, bu, full, util;
        ck_assert_msg(link_row(r.out, name, &g, &b, &bu, &full, &util), "no row for %s:\n%s", name,
                      r.out);
        ck_assert_msg(g == 10 && b == bytes, "%s: %g GB/s, %.0f bytes; the summary: %.0f", name, g,
                      b, bytes);
        ck_assert_msg(bytes > 4 * 1048576.0, "%s carried %.0f bytes", name, bytes);
        ck_assert_msg(fabs(bu - busy) <= 5e-4, "%s: busy %.3f us, the summary %.6f", name, bu,
                      busy);
        /* alone on its link: at full rate for bytes / bandwidth, to the
         * counters' nanosecond */
        double want = bytes / 10e9 * 1e6;
        ck_assert_msg(fabs(full - want) <= 0.01, "%s: full %.3f us, bytes/bw %.3f us", name, full,
                      want);
        ck_assert_msg(fabs(util - 100 * want / end) <= 0.05, "%s: util %.1f %%, want %.2f %%", name,
                      util, 100 * want / end);
    }
    char *s = slurp(svg);
    ck_assert_contains(s, ">link_0_1_UP</text>");
    ck_assert_contains(s, ">link_0_1_DOWN</text>");
    ck_assert_contains(s, "a link's throughput as a share of its bandwidth");
    ck_assert_contains(s, "a rank's idle gap: none of its ops but waits run");
    ck_assert_contains(s, "<title>rank 1 idle ");
    free(s);
    json_decref(doc);
    cmd_result_free(&r);

    /* a window of the run: the counters' part in it, never more than the
     * run's; a window that is the whole run reports the run's totals */
    r = run_cmd("%s/tools/pldsim-timeline --from 600 --to 700 %s %s", PLD_BUILDDIR, json, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_contains(r.out, "most loaded links in the window 600.000-700.000 us");
    for (int d = 0; d < 2; d++) {
        double g, b, bu, full, util;
        ck_assert(link_row(r.out, d ? "link_0_1_DOWN" : "link_0_1_UP", &g, &b, &bu, &full, &util));
        ck_assert_msg(b >= 0 && b <= 10e9 * 100e-6 * 1.001 && bu <= 100.0005 && full <= bu + 5e-4,
                      "window: %.0f bytes, busy %.3f, full %.3f", b, bu, full);
        /* alone on its link: whatever flows in the window flows at 10 GB/s */
        ck_assert_msg(fabs(b - full * 1e4) <= 20, "window: %.0f bytes, at full rate %.3f us", b,
                      full);
    }
    cmd_result_free(&r);

    /* --links 1: one lane, one row, and the report says it left some out */
    r = run_cmd("%s/tools/pldsim-timeline --links 1 %s %s", PLD_BUILDDIR, json, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_contains(r.out, "(2 carried bytes; the ones drawn)");
    ck_assert_int_eq(count_of(r.out, "link_0_1_"), 1);
    s = slurp(svg);
    ck_assert_int_eq(count_of(s, "\">link_0_1_"), 1);
    free(s);
    cmd_result_free(&r);
    /* --links 0: the ranks alone, with their gaps */
    r = run_cmd("%s/tools/pldsim-timeline --links 0 %s %s", PLD_BUILDDIR, json, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    s = slurp(svg);
    ck_assert_int_eq(count_of(s, "\">link_0_1_"), 0);
    ck_assert_contains(s, "<title>rank 1 idle ");
    free(s);
    cmd_result_free(&r);
    unlink(json), unlink(sum), unlink(svg);
    free(json), free(sum), free(svg);
}
END_TEST

/* A trace whose gaps are known (ns):
 *  r0: load [0, 1000], wait [1000, 3000], load [3000, 4000]: one gap, 2 us, waiting;
 *  r1: load [0, 2500] with a store inside it [1500, 2000], then load
 *      [2600, 4000]: one gap of 0.1 us (the store ends inside the load);
 *  r2: nothing: one gap, the whole run. */
static const char hand_trace[] = "# pldsim text trace v1: platform hand, P=3\n"
                                 "0.000 1000.000 r0 load - - - - - a.c:1\n"
                                 "0.000 2500.000 r1 load - - - - - a.c:1\n"
                                 "1000.000 3000.000 r0 wait_ge - - - - - a.c:2\n"
                                 "1500.000 2000.000 r1 store - - - - - a.c:3\n"
                                 "2600.000 4000.000 r1 load - - - - - a.c:4\n"
                                 "3000.000 4000.000 r0 load - - - - - a.c:5\n";

START_TEST(idle_gaps_hold_their_closed_form)
{
    char *txt = write_temp(".txt", hand_trace), *svg = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s/tools/pldsim-timeline --gaps %s %s", PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "most loaded links") == NULL, "a text trace has no links:\n%s",
                  r.out);
    ck_assert_contains(r.out, "idle gaps per rank (none of its ops but waits run), of 4.000 us:");
    static const struct {
        int rank, gaps;
        double idle, longest, from, to;
        const char *rest;
    } want[] = {
        {0, 1, 2.0, 2.0, 1.0, 3.0, ", waiting; then load"},
        {1, 1, 0.1, 0.1, 2.5, 2.6, "; then load"},
        {2, 1, 4.0, 4.0, 0.0, 4.0, "; to the run's end (before its first op)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char row[256];
        snprintf(row, sizeof row, "\n%-6d %6d %12.3f %6.1f%% %12.3f  %.3f-%.3f%s\n", want[i].rank,
                 want[i].gaps, want[i].idle, 100 * want[i].idle / 4.0, want[i].longest,
                 want[i].from, want[i].to, want[i].rest);
        ck_assert_msg(strstr(r.out, row) != NULL, "no row\n%s\nin\n%s", row + 1, r.out);
    }
    char *s = slurp(svg);
    ck_assert_contains(s,
                       "<title>rank 0 idle 2.000 us (1.000-3.000 us), waiting; then load</title>");
    ck_assert_contains(s, "<title>rank 1 idle 0.100 us (2.500-2.600 us); then load</title>");
    ck_assert_contains(s, "<title>rank 2 idle 4.000 us (0.000-4.000 us)</title>");
    ck_assert_contains(s, "a rank's idle gap: none of its ops but waits run");
    free(s);
    cmd_result_free(&r);

    /* a window: each gap's part in it, out of the window's 1.5 us */
    r = run_cmd("%s/tools/pldsim-timeline --gaps --from 2 --to 3.5 %s %s", PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_contains(r.out, "idle gaps per rank (none of its ops but waits run) in the window "
                              "2.000-3.500 us, of 1.500 us:");
    ck_assert_contains(r.out, "\n0           1        1.000   66.7%        1.000  2.000-3.000, "
                              "waiting; then load\n");
    ck_assert_contains(r.out, "\n2           1        1.500  100.0%        1.500  2.000-3.500; to "
                              "the run's end (before its first op)\n");
    cmd_result_free(&r);

    /* without --gaps, a text trace draws what --trace FILE.svg draws:
     * no gap, and nothing on stdout */
    r = run_cmd("%s/tools/pldsim-timeline %s %s", PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0 && r.out[0] == '\0', "exit %d, stdout:\n%s", r.status, r.out);
    s = slurp(svg);
    ck_assert_msg(strstr(s, " idle ") == NULL, "a gap drawn without --gaps");
    free(s);
    cmd_result_free(&r);
    unlink(txt), unlink(svg);
    free(txt), free(svg);
}
END_TEST

/* What the links view cannot take: one line naming the flag or the file's
 * line, exit 2, nothing on stdout. */
static const struct {
    const char *flags, *input;
    const char *message; /* %s: the input's path, where it is named */
} refused[] = {
    {"--links 3", "text",
     "--links 3: %s is a text trace, which holds no link counters; "
     "expected the JSON trace (--trace FILE.json)"},
    {"--links 1.5", "json", "bad --links '1.5'; expected a whole number of links, 0 to 10000"},
    {"--links -1", "json", "bad --links '-1'"},
    {"--links 10001", "json", "bad --links '10001'"},
    {"--links x", "json", "bad --links 'x'"},
    {"--links ''", "json", "bad --links ''"},
    {"", "badline", "%s:4: not a pldsim JSON trace line; expected one trace event per line"},
    {"", "badop", "%s:3: not a pldsim JSON trace line; expected a pld op's name"},
    {"", "noP", "%s:1: not a pldsim JSON trace line; expected a pldsim JSON trace's header"},
};

START_TEST(links_view_refuses_what_it_cannot_take)
{
    const char *in = refused[_i].input;
    const char *text =
        !strcmp(in, "text") ? hand_trace
        : !strcmp(in, "badline")
            ? "{\"otherData\":{\"platform\":\"p\",\"P\":1},\n\"traceEvents\":[\n"
              "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"load\"},"
              "\nnot json\n]}\n"
        : !strcmp(in, "badop")
            ? "{\"otherData\":{\"platform\":\"p\",\"P\":1},\n\"traceEvents\":[\n"
              "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"fly\"}\n]}\n"
        : !strcmp(in, "noP") ? "{\"otherData\":{\"platform\":\"p\"},\n\"traceEvents\":[\n]}\n"
                             : "{\"otherData\":{\"platform\":\"p\",\"P\":1},\n"
                               "\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":0,\"tid\":1,"
                               "\"ts\":0,\"dur\":1,\"name\":\"load\"}\n]}\n";
    char *path = write_temp(!strcmp(in, "text") ? ".txt" : ".json", text);
    struct cmd_result r =
        run_cmd("%s/tools/pldsim-timeline %s %s /dev/null", PLD_BUILDDIR, refused[_i].flags, path);
    /* a message names the input file where it holds %s */
    char want[512];
    snprintf(want, sizeof want, refused[_i].message, path);
    ck_assert_msg(r.status == 2, "'%s' on %s exited %d:\n%s", refused[_i].flags, in, r.status,
                  r.err);
    ck_assert_contains(r.err, want);
    ck_assert_msg(r.out[0] == '\0', "stdout:\n%s", r.out);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "more than one line:\n%s",
                  r.err);
    cmd_result_free(&r);
    unlink(path);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("links_view");
    TCase *tc = tcase_create("view");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, links_view_holds_its_closed_forms);
    tcase_add_test(tc, idle_gaps_hold_their_closed_form);
    tcase_add_loop_test(tc, links_view_refuses_what_it_cannot_take, 0,
                        (int)(sizeof refused / sizeof refused[0]));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
