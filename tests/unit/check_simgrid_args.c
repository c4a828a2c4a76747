/* check_simgrid_args.c: SimGrid's own settings reach SimGrid, and nothing
 * SimGrid would abort on gets there.
 *  - --cfg=network/model:LV08 gives the run --network-model LV08 gives,
 *    and not the default's;
 *  - --log=... turns SimGrid's own logging back on;
 *  - --save-platform (and PLD_SAVE_PLATFORM, and the old
 *    PLDSIM_SAVE_PLATFORM with a note) writes an XML that, loaded back
 *    with --platform, gives the same run;
 *  - SimGrid's tracing writes a Paje trace;
 *  - each setting SimGrid would abort, crash, hang or run wrong on is one
 *    message, exit 2 (issue 28: every value is checked before SimGrid
 *    sees it, and a key pldsim does not list never reaches it);
 *  - a value in range still reaches SimGrid. */
#include "checktools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP "05_remote_load_store"

/* The simulated time a run's summary line reports, in us. */
static double sim_time(const struct cmd_result *r)
{
    const char *t = strstr(r->out, " time=");
    ck_assert_msg(t != NULL, "no summary line in:\n%s%s", r->out, r->err);
    return atof(t + 6);
}

static double run_time(const char *flags)
{
    struct cmd_result r = run_cmd("%s %s", tutorial(STEP), flags);
    ck_assert_msg(r.status == 0, "%s exited %d:\n%s", flags, r.status, r.err);
    double t = sim_time(&r);
    cmd_result_free(&r);
    return t;
}

START_TEST(cfg_sets_the_network_model)
{
    double cm02 = run_time(""), lv08 = run_time("--cfg=network/model:LV08"),
           flag = run_time("--network-model LV08");
    ck_assert_msg(lv08 == flag, "--cfg gave %.3f us, --network-model LV08 %.3f us", lv08, flag);
    ck_assert_msg(lv08 != cm02, "LV08 gave the default's %.3f us", cm02);
    /* and a later setting wins, as SimGrid's own command line does */
    ck_assert_msg(run_time("--cfg=network/model:LV08 --cfg=network/model:CM02") == cm02,
                  "the last --cfg did not win");
}
END_TEST

START_TEST(log_reaches_simgrid)
{
    struct cmd_result r = run_cmd("%s --log=root.thresh:verbose", tutorial(STEP));
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.err, "[log/VERBOSE]");
    cmd_result_free(&r);
    r = run_cmd("%s", tutorial(STEP));
    ck_assert_msg(!strstr(r.err, "VERBOSE"), "SimGrid chatters by default:\n%s", r.err);
    cmd_result_free(&r);
}
END_TEST

START_TEST(save_platform_writes_what_the_run_simulated)
{
    static const char *const how[] = {"%s --topology ring:2 -d 0,1 --save-platform %s",
                                      "PLD_SAVE_PLATFORM=%2$s %1$s --topology ring:2 -d 0,1",
                                      "PLDSIM_SAVE_PLATFORM=%2$s %1$s --topology ring:2 -d 0,1"};
    char path[] = "/tmp/pldsim-saved-XXXXXX.xml";
    int fd = mkstemps(path, 4);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct cmd_result a = run_cmd(how[_i], tutorial(STEP), path);
    ck_assert_msg(a.status == 0, "exit %d:\n%s", a.status, a.err);
    ck_assert_msg((_i == 2) == (strstr(a.err, "PLDSIM_SAVE_PLATFORM is deprecated") != NULL),
                  "the deprecation note is %s:\n%s", _i == 2 ? "missing" : "there", a.err);
    char *xml = slurp(path);
    ck_assert_contains(xml, "<platform version=");
    free(xml);
    struct cmd_result b = run_cmd("%s --platform %s -d 0,1", tutorial(STEP), path);
    ck_assert_msg(b.status == 0, "the saved platform does not load:\n%s", b.err);
    ck_assert_msg(sim_time(&a) == sim_time(&b), "generated %.3f us, saved and loaded %.3f us",
                  sim_time(&a), sim_time(&b));
    cmd_result_free(&a);
    cmd_result_free(&b);
    unlink(path);
}
END_TEST

START_TEST(tracing_writes_a_paje_trace)
{
    char path[] = "/tmp/pldsim-paje-XXXXXX.trace";
    int fd = mkstemps(path, 6);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct cmd_result r = run_cmd("%s --cfg=tracing:yes --cfg=tracing/filename:%s "
                                  "--cfg=tracing/platform:yes --cfg=tracing/platform/topology:no",
                                  tutorial(STEP), path);
    ck_assert_msg(r.status == 0, "exit %d:\n%s", r.status, r.err);
    char *trace = slurp(path);
    ck_assert_contains(trace, "#This file was generated using SimGrid");
    ck_assert_contains(trace, "%EventDef PajeDefineContainerType");
    ck_assert_contains(trace, "\"dev1\"");
    free(trace);
    cmd_result_free(&r);
    unlink(path);
}
END_TEST

static const struct {
    const char *flags, *message;
} refused[] = {
    {"--cfg=bogus/key:1", "--cfg 'bogus/key:1': pldsim passes no SimGrid setting 'bogus/key'"},
    {"--cfg=network/model:ns-3",
     "--cfg 'network/model:ns-3': expected network/model one of CM02, LV08, SMPI, IB"},
    {"--cfg=cpu/model:fast", "expected cpu/model one of Cas01"},
    {"--cfg=network/TCP-gamma:abc",
     "expected network/TCP-gamma 0 or a number in [1, 1e+18] (bytes; 0 turns the window cap off)"},
    {"--cfg=nocolon", "--cfg 'nocolon': expected KEY:VALUE"},
    {"--cfg=contexts/factory:raw", "pldsim chooses SimGrid's contexts itself"},
    {"--log=%%%bad", "'%%%bad' is not a SimGrid log setting"},
    {"--log=root.thresh:loud", "unknown level 'loud'; expected trace, debug, verbose, info"},
    {"--cfg=tracing:yes --cfg=tracing/actor:yes",
     "SimGrid 3.32 aborts when it traces a split-duplex link"},
    {"--cfg=tracing:yes --cfg=tracing/filename:/nonexistent/x.trace",
     "--cfg 'tracing/filename:/nonexistent/x.trace': cannot write it: directory /nonexistent does "
     "not exist"},
    /* refused before the run now, exit 2 (issue 41): it failed after it */
    {"--save-platform /nonexistent/x.xml",
     "--save-platform '/nonexistent/x.xml': directory /nonexistent does not exist; expected a "
     "file to write the SimGrid platform to"},
    {"--save-platform ''", "--save-platform '': an empty name; expected a file to write the "
                           "SimGrid platform to"},
    {"--trace /tmp", "--trace '/tmp': it is a directory; expected a file to write the trace to"},
    {"--trace ''", "--trace '': an empty name; expected a file to write the trace to"},
    /* issue 28, class 3: values SimGrid takes and then aborts on (134),
     * crashes on (139), hangs on, or runs wrong with */
    {"--cfg=network/bandwidth-factor:0",
     "--cfg 'network/bandwidth-factor:0': expected network/bandwidth-factor a number in "
     "[1e-06, 1000000]"},
    {"--cfg=network/bandwidth-factor:-1", "expected network/bandwidth-factor a number"},
    {"--cfg=network/bandwidth-factor:nan", "expected network/bandwidth-factor a number"},
    {"--cfg=maxmin/precision:-1", "expected maxmin/precision a number in (0, 0.001]"},
    {"--cfg=maxmin/precision:1", "expected maxmin/precision a number in (0, 0.001]"},
    {"--cfg=surf/precision:0", "expected surf/precision a number in (0, 1e-06] (seconds)"},
    {"--cfg=network/latency-factor:-5", "expected network/latency-factor a number in [0, 1000000]"},
    {"--cfg=network/latency-factor:inf", "expected network/latency-factor a number"},
    {"--cfg=network/model:Constant", "expected network/model one of CM02, LV08, SMPI, IB"},
    {"--cfg=network/solver:bogus", "expected network/solver one of maxmin, fairbottleneck, bmf"},
    {"--cfg=bmf/max-iterations:0", "expected bmf/max-iterations a whole number in [1, 1000000000]"},
    {"--cfg=maxmin/concurrency-limit:0", "expected maxmin/concurrency-limit -1 or a whole number"},
    {"--cfg=tracing:maybe", "expected tracing yes or no"},
    {"--cfg=tracing/comment-file:/nonexistent", "cannot read it: No such file or directory"},
    {"--cfg=plugin:bogus", "expected plugin one of link_load, host_load, link_energy"},
    {"--cfg=debug/breakpoint:0", "pldsim does not pass it to SimGrid: it stops the process"},
    {"--cfg=cmonkey/time:0", "pldsim does not pass it to SimGrid: the chaos monkey"},
    {"--cfg=smpi/np:4", "pldsim does not pass it to SimGrid: it is for SMPI programs"},
    /* an old spelling SimGrid would map to a checked key */
    {"--cfg=network/latency_factor:-5",
     "pldsim passes no SimGrid setting 'network/latency_factor'"},
    {"--log=root.app:file:/nonexistent/x",
     "--log 'root.app:file:/nonexistent/x': cannot write /nonexistent/x: directory /nonexistent "
     "does not exist"},
    {"--log=root.app:file:/tmp", "cannot write /tmp: it is a directory"},
    {"--log=root.app:rollfile:abc:/tmp/x", "expected rollfile:BYTES:FILE"},
    {"--log=root.app:bogus", "unknown appender 'bogus'"},
    {"'--log=no_loc root.thresh:info'", "'no_loc' is not a SimGrid log setting"},
    {"--log=root.format:%m",
     "--log 'root.format:%m': unknown setting 'format'; expected thresh, app, fmt or add"},
    {"--log=a.b.thresh:info", "'a.b.thresh:info' is not a SimGrid log setting"},
    {"--log=root.fmt:%Q", "'%Q' is no layout sequence"},
    {"--log=root.fmt:%.-5m", "'%.-' is no layout sequence"},
    {"--log=root.add:maybe", "expected yes or no (on/off, 1/0) for additivity"},
    /* issue 41, class 6: a misspelt setting is named (it repeated the
     * whole word), and numbers past a double or not numbers at all */
    {"--log=root.thres:bogus",
     "--log 'root.thres:bogus': unknown setting 'thres'; expected thresh, app, fmt or add, as in "
     "CATEGORY.thresh:LEVEL (e.g. root.thresh:info)"},
    {"--cfg=network/latency-factor:abc",
     "--cfg 'network/latency-factor:abc': expected network/latency-factor a number in [0, "
     "1000000]"},
    {"--cfg=network/latency-factor:1e400",
     "--cfg 'network/latency-factor:1e400': expected network/latency-factor a number in"},
    {"--cfg=network/latency-factor:", "--cfg 'network/latency-factor:': expected"},
    {"--cfg=bmf/max-iterations:1e400",
     "--cfg 'bmf/max-iterations:1e400': expected bmf/max-iterations a whole number in [1, "
     "1000000000]"},
    {"--cfg=tracing/precision:99999999999999999999",
     "expected tracing/precision a whole number in [0, 17] (digits)"},
};

/* 33 --cfg (or --log) flags, one more than pldsim keeps: one line naming
 * the flag, the limit and what to do (it said "--cfg: at most 32 of
 * them"); 32 still run. */
START_TEST(one_flag_too_many_is_named)
{
    static const char *const flag[] = {"--cfg=network/crosstraffic:0", "--log=root.thresh:error"};
    char flags[2048] = "";
    for (int k = 0; k < 33; k++)
        snprintf(flags + strlen(flags), sizeof flags - strlen(flags), " %s", flag[_i]);
    struct cmd_result r = run_cmd("%s %s", tutorial(STEP), flags);
    ck_assert_msg(r.status == 2, "exit %d:\n%s", r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    char want[160];
    snprintf(want, sizeof want, "pldsim: %.5s '%s': more than 32 %.5s flags; expected at most 32",
             flag[_i], flag[_i] + 6, flag[_i]);
    ck_assert_contains(r.err, want);
    ck_assert_msg(r.out[0] == '\0', "it ran:\n%s", r.out);
    cmd_result_free(&r);
    *strrchr(flags, ' ') = '\0'; /* 32 */
    r = run_cmd("%s %s", tutorial(STEP), flags);
    ck_assert_msg(r.status == 0, "32 %s flags: exit %d:\n%s", flag[_i], r.status, r.err);
    cmd_result_free(&r);
}
END_TEST

/* A value in range still reaches SimGrid: a latency factor of 2 makes
 * the run slower than the default's 1, by the step's one latency. */
START_TEST(checked_values_still_reach_simgrid)
{
    double base = run_time(""), slow = run_time("--cfg=network/latency-factor:2");
    ck_assert_msg(slow > base, "latency-factor 2 gave %.3f us, the default %.3f us", slow, base);
    ck_assert_msg(run_time("--cfg=network/TCP-gamma:0 --cfg=maxmin/concurrency-limit:-1 "
                           "--cfg=surf/precision:1e-9 --cfg=maxmin/precision:1e-5 "
                           "--log=root.fmt:%10.3m%n --log=root.app:stderr") == base,
                  "SimGrid's defaults, given explicitly, changed the run");
}
END_TEST

START_TEST(what_simgrid_would_abort_on_is_refused)
{
    struct cmd_result r = run_cmd("%s %s", tutorial(STEP), refused[_i].flags);
    ck_assert_msg(r.status == 2, "%s: exit %d:\n%s", refused[_i].flags, r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    ck_assert_contains(r.err, refused[_i].message);
    cmd_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("simgrid_args");
    TCase *tc = tcase_create("passthrough");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cfg_sets_the_network_model);
    tcase_add_test(tc, log_reaches_simgrid);
    tcase_add_loop_test(tc, save_platform_writes_what_the_run_simulated, 0, 3);
    tcase_add_test(tc, tracing_writes_a_paje_trace);
    tcase_add_test(tc, checked_values_still_reach_simgrid);
    tcase_add_loop_test(tc, one_flag_too_many_is_named, 0, 2);
    tcase_add_loop_test(tc, what_simgrid_would_abort_on_is_refused, 0,
                        (int)(sizeof refused / sizeof refused[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
