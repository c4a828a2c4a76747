/* check_whatif.c: contention and what-if properties.
 *  - Incast: P-1 ranks store S bytes into rank 0 at once.  On a star they
 *    share rank 0's port, max-min fairly: each takes 2a + (P-1) S/B.  On a
 *    full mesh each has its own link: a + S/B.
 *  - A shift all-to-all on a ring of odd P: in step k every rank sends to
 *    rank me+k, h = min(k, P-k) hops the same way round, so each link carries
 *    h flows and each flow gets B/h: the step takes h a + h S/B.
 *  - More bandwidth or less latency never makes a run slower.
 *  - busbw never exceeds the link rate on a ring or a star (pldsim-perf). */
#include "checktools.h"

#include <math.h>
#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S_BYTES 65536
static int P;
static double took[64];
static enum { INCAST, SHIFT } pattern;

struct args {
    int rank;
    pl_tensor x;
    pld_dtensor data;
};

static void kernel(const struct args *a)
{
    pl_tile t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, S_BYTES / 4));
    double t0 = pld_time();
    if (pattern == INCAST) {
        if (a->rank != 0)
            pld_tile_remote_store(t, a->data, .peer = 0, .offsets = PL_IDX(a->rank, 0));
    } else {
        for (int k = 1; k < P; k++)
            pld_tile_remote_store(t, a->data, .peer = (a->rank + k) % P,
                                  .offsets = PL_IDX(a->rank, 0));
    }
    took[a->rank] = pld_time() - t0;
}

static void per_device(const struct args *a)
{
    pl_incore(kernel, a);
}

static void host(const pl_tensor *x)
{
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(P, S_BYTES / 4), PL_FP32, .name = "data");
    for (int r = 0; r < P; r++) {
        struct args a = {r, *x, pld_window(b, PL_SHAPE(P, S_BYTES / 4), PL_FP32)};
        pld_dispatch(r, per_device, a);
    }
}

static void run(const char *kind, int p, const char *extra)
{
    char spec[128], list[16];
    P = p;
    /* the cores cost nothing of their own (push_lat=0): these cases test the
     * network's sharing alone */
    snprintf(spec, sizeof spec, "%s:%d,bw=25GBps,lat=1us,dispatch_lat=0,push_lat=0,push_bw=0%s",
             kind, p, extra);
    snprintf(list, sizeof list, "0-%d", p - 1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.no_data = 1;
    cfg.topology = spec;
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    pl_tensor x = pl_tensor_new(PL_SHAPE(1, S_BYTES / 4), PL_FP32, "x");
    ck_assert_int_eq(pld_run(&cfg, host, &x), 0);
    pl_tensor_free(&x);
}

static void assert_rel(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-6 * want, "simulated %.12g s, max-min fair share %.12g s",
                  got, want);
}

static const int incast_p[] = {3, 4, 8, 16};

/* One simulation per process: even cases on a star, odd ones on a mesh. */
START_TEST(incast_shares_the_receivers_port)
{
    pattern = INCAST;
    int p = incast_p[_i / 2], star = _i % 2 == 0;
    run(star ? "star" : "mesh", p, "");
    for (int r = 1; r < p; r++)
        assert_rel(took[r],
                   star ? 2e-6 + (p - 1) * (double)S_BYTES / 25e9 : 1e-6 + (double)S_BYTES / 25e9);
}
END_TEST

START_TEST(shift_all_to_all_on_a_ring_shares_each_link)
{
    pattern = SHIFT;
    int p = 5 + 2 * _i; /* 5, 7, 9: odd, so no step is a tie between directions */
    run("ring", p, "");
    double want = 0;
    for (int k = 1; k < p; k++) {
        int h = k < p - k ? k : p - k;
        want += h * 1e-6 + h * (double)S_BYTES / 25e9;
    }
    for (int r = 0; r < p; r++)
        assert_rel(took[r], want);
}
END_TEST

/* The simulated time of a tutorial run. */
static double step_time(const char *step, const char *args, const char *spec)
{
    struct cmd_result r = run_cmd("%s %s --topology %s", tutorial(step), args, spec);
    ck_assert_msg(r.status == 0, "%s %s --topology %s failed:\n%s", step, args, spec, r.err);
    const char *t = strstr(r.out, " time=");
    ck_assert_ptr_nonnull(t);
    double v = strtod(t + 6, NULL);
    cmd_result_free(&r);
    return v;
}

static const struct {
    const char *step, *args, *kind;
} mono[] = {
    {"11_allreduce_reveal", "--mode mesh -d 0-7", "mesh:8"},
    {"11_allreduce_reveal", "--mode ring -d 0-7", "ring:8"},
    {"11_allreduce_reveal", "--mode ring -d 0-7", "torus2d:2x4"},
    {"13_allgather", "--mode builtin -d 0-7", "star:8"},
    {"15_all_to_all", "--mode builtin -d 0-8", "ring:9"},
    {"16_putting_it_together", "-d 0-15", "fattree:nodes=4,per_node=4"},
};

START_TEST(more_bandwidth_or_less_latency_is_never_slower)
{
    static const char *const bws[] = {"10GBps", "25GBps", "56GBps", "200GBps"};
    static const char *const lats[] = {"4us", "2us", "1us", "250ns"};
    char spec[160];
    double prev = INFINITY;
    for (int i = 0; i < 4; i++) {
        snprintf(spec, sizeof spec, "%s,bw=%s,lat=1us", mono[_i].kind, bws[i]);
        double t = step_time(mono[_i].step, mono[_i].args, spec);
        ck_assert_msg(t <= prev, "%s: bandwidth %s gives %.3f us, slower than %.3f us", spec,
                      bws[i], t, prev);
        prev = t;
    }
    prev = INFINITY;
    for (int i = 0; i < 4; i++) {
        snprintf(spec, sizeof spec, "%s,bw=25GBps,lat=%s", mono[_i].kind, lats[i]);
        double t = step_time(mono[_i].step, mono[_i].args, spec);
        ck_assert_msg(t <= prev, "%s: latency %s gives %.3f us, slower than %.3f us", spec, lats[i],
                      t, prev);
        prev = t;
    }
}
END_TEST

/* pldsim-perf's busbw against the one link (ring) or port (star) per rank. */
static const struct {
    const char *args;
    double link;
} perf[] = {
    {"allreduce --mode ring -g 8 --topology ring:8,bw=56GBps", 56},
    {"allreduce --mode mesh -g 8 --topology star:8,bw=50GBps", 50},
    {"allgather -g 8 --topology star:8,bw=50GBps", 50},
    {"reduce_scatter -g 6 --topology ring:6,bw=20GBps", 20},
    {"broadcast -g 4 --topology star:4,bw=30GBps", 30},
};

START_TEST(busbw_never_exceeds_the_link_rate)
{
    char *csv = write_temp(".csv", "");
    struct cmd_result r = run_cmd("%s/tools/pldsim-perf %s -b 1K -e 4M -f 4 -n 1 -w 0 --csv %s",
                                  PLD_BUILDDIR, perf[_i].args, csv);
    ck_assert_msg(r.status == 0, "pldsim-perf %s failed:\n%s%s", perf[_i].args, r.out, r.err);
    ck_assert_contains(r.out, "# Avg bus bandwidth    : ");
    char *text = slurp(csv);
    int rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        /* ...,oop_busbw,oop_wrong,ip_time,ip_algbw,ip_busbw,ip_wrong */
        double v[16];
        int n = 0;
        char *p = line + 1;
        for (char *f = p; n < 16 && f; f = strchr(f, ',')) {
            if (*f == ',')
                f++;
            v[n++] = strtod(f, NULL);
        }
        ck_assert_int_eq(n, 16);
        ck_assert_msg(v[10] <= perf[_i].link && v[14] <= perf[_i].link,
                      "%s: busbw %.2f / %.2f GB/s above the %.0f GB/s link", perf[_i].args, v[10],
                      v[14], perf[_i].link);
        rows++;
    }
    ck_assert_int_ge(rows, 5);
    free(text);
    free(csv);
    cmd_result_free(&r);
}
END_TEST

/* pldsim-plot draws what it is given: one polyline per input with one
 * point per value, the legend's labels and the axis labels, as an SVG that
 * xmllint accepts; from a pldsim-perf CSV, and from "x y" pairs (--xy). */
START_TEST(pldsim_plot_draws_its_inputs)
{
    NEED_TOOL("xmllint");
    char *csv = write_temp(".csv", "");
    struct cmd_result r =
        run_cmd("%s/tools/pldsim-perf allreduce --mode ring -g 4 -b 1K -e 64K -f 4 -n 1 "
                "--csv %s",
                PLD_BUILDDIR, csv);
    ck_assert_int_eq(r.status, 0);
    cmd_result_free(&r);
    char *xy = write_temp(".txt", "# P wall_s\n8 0.07\n16 0.10\n32 0.25\n64 0.40\n");
    char *svg = write_temp(".svg", "");
    r = run_cmd(
        "%s/tools/pldsim-plot -o %s %s=ring-P4 && %s/tools/pldsim-plot --xy --xlabel "
        "'devices P' --ylabel 'wall s' -o %s.xy.svg %s=pldsim && xmllint --noout %s %s.xy.svg",
        PLD_BUILDDIR, svg, csv, PLD_BUILDDIR, svg, xy, svg, svg);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    char *a = slurp(svg), xyname[4200];
    snprintf(xyname, sizeof xyname, "%s.xy.svg", svg);
    char *b = slurp(xyname);
    ck_assert_int_eq(count_lines_with(a, "<circle "), 5); /* 1K, 4K, 16K, 64K, the legend */
    ck_assert_contains(a, ">ring-P4</text>");
    ck_assert_contains(a, ">size (bytes, log scale)</text>");
    ck_assert_int_eq(count_lines_with(b, "<circle "), 5);
    ck_assert_contains(b, ">pldsim</text>");
    ck_assert_contains(b, ">devices P</text>");
    ck_assert_contains(b, ">wall s</text>");
    unlink(xyname);
    free(a);
    free(b);
    free(csv);
    free(xy);
    free(svg);
    cmd_result_free(&r);
    r = run_cmd("%s/tools/pldsim-plot --xy -o /dev/null /nonexistent.txt=x", PLD_BUILDDIR);
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "cannot read /nonexistent.txt");
    cmd_result_free(&r);
}
END_TEST

/* The table: nccl-tests' columns, a verified #wrong with --check, the
 * closing lines; and the header says the times are simulated. */
static const char *const colls[] = {"allreduce --mode ring", "allreduce --op max --dtype half",
                                    "broadcast --root 2",    "allgather",
                                    "reduce_scatter",        "all_to_all"};

/* Six near-identical series stay apart: each has its own marker shape and
 * dash pattern (in the legend too); and the tick labels of a y axis from 1k
 * to 10M share one style (no 1e+06 next to 100000). */
START_TEST(plot_series_stay_apart)
{
    char *files[6], args[6 * 300] = "";
    for (int k = 0; k < 6; k++) {
        char text[256];
        snprintf(text, sizeof text, "1 %g\n4 %g\n16 %g\n64 %g\n", 1000.0 + k, 20000.0 + k,
                 400000.0 + k, 9000000.0 + k);
        files[k] = write_temp(".txt", text);
        size_t n = strlen(args);
        snprintf(args + n, sizeof args - n, " %s=s%d", files[k], k);
    }
    char *svg = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s/tools/pldsim-plot --xy -o %s%s", PLD_BUILDDIR, svg, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cmd_result_free(&r);
    char *a = slurp(svg);
    /* each series: a polyline, then its markers; pairs (marker, dash) differ */
    char seen[6][64];
    int n = 0;
    for (const char *p = a; (p = strstr(p, "<polyline ")); p++) {
        const char *dash = strstr(p, "stroke-dasharray=\""), *end = strchr(p, '>');
        const char *m = strstr(end, "class=\"m");
        ck_assert_ptr_nonnull(m);
        snprintf(seen[n], sizeof seen[n], "%c/%.*s", m[8],
                 dash && dash < end ? (int)strcspn(dash + 18, "\"") : 0,
                 dash && dash < end ? dash + 18 : "");
        for (int j = 0; j < n; j++)
            ck_assert_msg(strcmp(seen[j], seen[n]) != 0, "series %d and %d share %s", j, n,
                          seen[n]);
        n++;
    }
    ck_assert_int_eq(n, 6);
    for (int k = 0; k < 6; k++) /* each marker shape appears in the legend as well */
        ck_assert_int_eq(count_lines_with(a, (char[]){'m', (char)('0' + k), '"', 0}) >= 5, 1);
    /* the y ticks: 1k 10k 100k 1M 10M, never an exponent */
    ck_assert_contains(a, ">1k</text>");
    ck_assert_contains(a, ">100k</text>");
    ck_assert_contains(a, ">1M</text>");
    ck_assert_contains(a, ">10M</text>");
    ck_assert_msg(strstr(a, "e+") == NULL && strstr(a, "e-0") == NULL,
                  "a tick label in exponent form");
    free(a);
    unlink(svg);
    free(svg);
    for (int k = 0; k < 6; k++) {
        unlink(files[k]);
        free(files[k]);
    }
}
END_TEST

START_TEST(pldsim_perf_prints_the_nccl_tests_table)
{
    struct cmd_result r = run_cmd("%s/tools/pldsim-perf %s -g 4 -b 64 -e 4K -f 4 -n 2 --check",
                                  PLD_BUILDDIR, colls[_i]);
    ck_assert_msg(r.status == 0, "%s: exit %d\n%s%s", colls[_i], r.status, r.out, r.err);
    ck_assert_contains(r.out, "times SIMULATED by pldsim");
    ck_assert_contains(r.out, "# nThread 1 nGpus 4 minBytes 64 maxBytes 4096 step: 4(factor) "
                              "warmup iters: 1 iters: 2 agg iters: 1 validation: 1 graph: 0");
    ck_assert_contains(r.out, "platform a2a3sim");
    ck_assert_contains(r.out, "out-of-place");
    ck_assert_contains(r.out, "in-place");
    ck_assert_contains(r.out,
                       "#       size         count      type   redop    root     time   algbw "
                       "  busbw  #wrong     time   algbw   busbw  #wrong \n");
    ck_assert_contains(r.out,
                       "#        (B)    (elements)                               (us)  (GB/s) "
                       " (GB/s)             (us)  (GB/s)  (GB/s)         \n");
    ck_assert_contains(r.out, "# Out of bounds values : 0 OK");
    ck_assert_contains(r.out, "# Avg bus bandwidth    : ");
    /* 64, 256, 1K, 4K: four rows, each with #wrong 0 twice */
    int rows = 0;
    for (const char *p = r.out; (p = strchr(p, '\n')); p++)
        if (p[1] == ' ') {
            rows++;
            ck_assert_msg(strstr(p + 1, "      0 ") != NULL, "row without #wrong 0: %.120s", p + 1);
        }
    ck_assert_int_eq(rows, 4);
    cmd_result_free(&r);
}
END_TEST

/* The oop and ip times (us) of every row of a pldsim-perf CSV, in order,
 * into t (two per row); returns how many. */
static int csv_times(const char *path, double *t, int max)
{
    char *text = slurp(path);
    int n = 0;
    for (char *line = strchr(text, '\n'); line && line[1] && n + 2 <= max;
         line = strchr(line + 1, '\n')) {
        char *f = line + 1;
        for (int col = 0; col < 13 && f; col++, f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL)
            if (col == 8 || col == 12)
                t[n++] = strtod(f, NULL);
    }
    free(text);
    return n;
}

/* Issue 30: by default the calls of a row stop once they repeat, and the
 * rest are derived; the table equals a run of every call in one
 * simulation per size, one at a time (--all-iterations -j 1) to 6
 * significant digits.  Broadcast
 * repeats with period 2 (its out-of-place calls take turns between two
 * windows), -z 3 derives the excluded barriers too, and -j 2 runs each
 * size in a process of its own. */
static const char *const repeating[] = {
    "allreduce -g 4 -b 1K -e 1M -f 8 -n 12 -w 2",
    "broadcast -g 4 -b 1K -e 1M -f 8 -n 12 -w 2",
    "allreduce --mode ring -g 8 -b 4K -e 256K -f 8 -n 9 -z 3",
    "alltoall_perf -g 3 -b 3K -e 96K -f 4 -n 10 -w 0",
};

/* The "pldsim-perf: M of N timed calls" line of a run's stderr: 1, and M
 * and N, when there is one.  sscanf counts the numbers it read, not the
 * words after them, so a slow run's progress line ("pldsim-perf: 3 of 4
 * sizes done", under a sanitizer on a busy machine) must not pass for it. */
static int timed_calls(const char *err, long long *made, long long *all)
{
    for (const char *l = strstr(err, "pldsim-perf: "); l; l = strstr(l + 1, "pldsim-perf: ")) {
        int end = 0;
        if (sscanf(l, "pldsim-perf: %lld of %lld timed calls%n", made, all, &end) == 2 && end)
            return 1;
    }
    return 0;
}

START_TEST(pldsim_perf_derives_repeating_calls)
{
    char *fast = write_temp(".csv", ""), *full = write_temp(".csv", "");
    struct cmd_result a =
        run_cmd("%s/tools/pldsim-perf %s -j 2 --csv %s", PLD_BUILDDIR, repeating[_i], fast);
    struct cmd_result b = run_cmd("%s/tools/pldsim-perf %s -j 1 --all-iterations --csv %s",
                                  PLD_BUILDDIR, repeating[_i], full);
    ck_assert_msg(a.status == 0 && b.status == 0, "%s: exit %d, %d\n%s%s", repeating[_i], a.status,
                  b.status, a.err, b.err);
    long long made, all, made_b, all_b;
    int la = timed_calls(a.err, &made, &all), lb = timed_calls(b.err, &made_b, &all_b);
    ck_assert_msg(la && lb, "%s: no count of calls:\n%s", repeating[_i], a.err);
    ck_assert_msg(made < all / 2, "%s: %lld of %lld calls simulated", repeating[_i], made, all);
    ck_assert_contains(a.err, "are derived (--all-iterations simulates all)");
    ck_assert_contains(a.out, "calls that repeat the ones before them (to 1e-9) are derived");
    ck_assert_contains(b.out, "every timed call is simulated");
    ck_assert_contains(a.out, "each size is a simulation of its own");
    ck_assert_msg(made_b == all_b && all_b == all, "%s: --all-iterations made %lld of %lld",
                  repeating[_i], made_b, all_b);
    ck_assert_contains(b.out, "each size is a simulation of its own (its -w warm-up calls, then "
                              "its rows), 1 at once (-j)");
    double ta[64], tb[64];
    int na = csv_times(fast, ta, 64), nb = csv_times(full, tb, 64);
    ck_assert_int_eq(na, nb);
    ck_assert_int_ge(na, 4);
    for (int i = 0; i < na; i++)
        ck_assert_msg(fabs(ta[i] - tb[i]) <= 1e-6 * tb[i] && tb[i] > 0,
                      "%s: time %d is %.9g us derived, %.9g us in full", repeating[_i], i, ta[i],
                      tb[i]);
    unlink(fast);
    unlink(full);
    free(fast);
    free(full);
    cmd_result_free(&a);
    cmd_result_free(&b);
}
END_TEST

/* Sizes are independent simulations: the table is the same, byte for
 * byte, whatever -j; a run that must be one (--trace) says it ignores -j;
 * and a failing size's message is said once, with its exit status. */
START_TEST(pldsim_perf_jobs_change_nothing_but_the_wall_time)
{
    const char *args = "allreduce -g 4 -b 256 -e 64K -f 4 -n 4";
    char *one = write_temp(".csv", ""), *three = write_temp(".csv", "");
    char *trace = write_temp(".txt", "");
    struct cmd_result a = run_cmd("%s/tools/pldsim-perf %s -j 1 --csv %s", PLD_BUILDDIR, args, one);
    struct cmd_result b =
        run_cmd("%s/tools/pldsim-perf %s --jobs 3 --csv %s", PLD_BUILDDIR, args, three);
    ck_assert_msg(a.status == 0 && b.status == 0, "exit %d, %d\n%s%s", a.status, b.status, a.err,
                  b.err);
    ck_assert_contains(b.out, "each size is a simulation of its own (its -w warm-up calls, then "
                              "its rows), 3 at once (-j)");
    char *ta = slurp(one), *tb = slurp(three);
    ck_assert_str_eq(ta, tb);
    free(ta);
    free(tb);
    struct cmd_result t =
        run_cmd("%s/tools/pldsim-perf %s -j 2 --trace %s", PLD_BUILDDIR, args, trace);
    ck_assert_msg(t.status == 0, "exit %d\n%s", t.status, t.err);
    ck_assert_contains(t.err, "-j 2 ignored: one simulation for the whole sweep, as --trace "
                              "records one run");
    ck_assert_contains(t.out, "the sweep is one simulation");
    struct cmd_result f =
        run_cmd("%s/tools/pldsim-perf %s -j 2 --platform /nonexistent/p.xml", PLD_BUILDDIR, args);
    ck_assert_int_eq(f.status, 2);
    const char *msg = "cannot read platform file /nonexistent/p.xml";
    const char *first = strstr(f.err, msg);
    ck_assert_msg(first && !strstr(first + 1, msg), "said %s times:\n%s", first ? "2 or more" : "0",
                  f.err);
    ck_assert_msg(!strstr(f.out, "Out of bounds"), "a table after a failure:\n%s", f.out);
    for (char **p = (char *[]){one, three, trace, NULL}; *p; p++) {
        unlink(*p);
        free(*p);
    }
    cmd_result_free(&a);
    cmd_result_free(&b);
    cmd_result_free(&t);
    cmd_result_free(&f);
}
END_TEST

/* --check sees a wrong result: with the test hook one element of rank 0's
 * first checked call is off by one, and the run says so (its row's
 * out-of-place #wrong is 1, the in-place one 0, the total FAILED) and fails. */
START_TEST(pldsim_perf_check_counts_a_wrong_element)
{
    struct cmd_result r = run_cmd("PLDSIM_PERF_TEST_CORRUPT=1 %s/tools/pldsim-perf %s -g 4 -b 64 "
                                  "-e 256 -f 4 -n 1 -c 1",
                                  PLD_BUILDDIR, colls[_i]);
    ck_assert_msg(r.status == 1, "%s: exit %d\n%s%s", colls[_i], r.status, r.out, r.err);
    ck_assert_contains(r.out, "# Out of bounds values : 1 FAILED");
    const char *row = strstr(r.out, "\n          64 ");
    ck_assert_msg(row != NULL, "no 64-byte row:\n%s", r.out);
    char tok[13][32];
    ck_assert_int_eq(sscanf(row, "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s",
                            tok[0], tok[1], tok[2], tok[3], tok[4], tok[5], tok[6], tok[7], tok[8],
                            tok[9], tok[10], tok[11], tok[12]),
                     13);
    ck_assert_str_eq(tok[8], "1");
    ck_assert_str_eq(tok[12], "0");
    ck_assert_msg(strstr(r.out, "\n         256 ") != NULL, "no 256-byte row:\n%s", r.out);
    cmd_result_free(&r);
}
END_TEST

/* A long simulation reports progress on stderr when asked (PLD_PROGRESS; by
 * default only on a terminal), and nothing else changes: stdout, exit. */
START_TEST(long_runs_report_progress_when_asked)
{
    struct cmd_result quiet = run_cmd("%s -d 0-63 --mode ring", tutorial("11_allreduce_reveal"));
    struct cmd_result loud =
        run_cmd("PLD_PROGRESS=0.000001 %s -d 0-63 --mode ring", tutorial("11_allreduce_reveal"));
    ck_assert_int_eq(quiet.status, 0);
    ck_assert_int_eq(loud.status, 0);
    ck_assert_msg(!strstr(quiet.err, " s wall: simulated "), "progress off a terminal:\n%s",
                  quiet.err);
    /* thousands of transfers: a line every 1024 once the interval passed */
    ck_assert_msg(strstr(loud.err, "[pldsim] ") && strstr(loud.err, " s wall: simulated ") &&
                      strstr(loud.err, " transfers ("),
                  "no progress line:\n%s", loud.err);
    ck_assert_str_eq(quiet.out, loud.out);
    cmd_result_free(&quiet);
    cmd_result_free(&loud);
    /* a bad value is refused, not ignored (tests/system/check_errors.c
     * holds the message to one line) */
    struct cmd_result bad = run_cmd("PLD_PROGRESS=soon %s", tutorial("01_hello_rank"));
    ck_assert_int_eq(bad.status, 2);
    ck_assert_contains(bad.err, "PLD_PROGRESS 'soon': expected seconds");
    cmd_result_free(&bad);
}
END_TEST

START_TEST(pldsim_perf_refuses_bad_arguments)
{
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"allsum", "unknown collective 'allsum'"},
        {"allreduce --mode star", "bad --mode 'star'; expected mesh or ring"},
        {"allreduce -b 1X", "bad size '1X' for -b"},
        {"allreduce --op avg", "bad --op 'avg'"},
        {"allreduce --topology ring:4,bw=x", "bad value 'x' for bw"},
        {"allreduce -j 0", "bad job count '0' for -j; expected 1 to 4096"},
        {"allreduce --jobs many", "bad job count 'many' for -j"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cmd_result r = run_cmd("%s/tools/pldsim-perf %s", PLD_BUILDDIR, bad[i].args);
        ck_assert_int_eq(r.status, 2);
        ck_assert_contains(r.err, bad[i].msg);
        cmd_result_free(&r);
    }
}
END_TEST

/* Issue 28, classes 7 and 8: pldsim-plot checks every row it reads.  A
 * header alone, a non-numeric or NaN value, a row of 3 columns, a size of
 * -1, 0 or 1e400 exited 2 with no message or were drawn; each is now one
 * line naming FILE:LINE and what was expected, exit 2, and no picture. */
#define PLOT_HEADER                                                                                \
    "collective,mode,P,size_B,count,type,redop,root,oop_time_us,oop_algbw_GBps,oop_busbw_GBps,"    \
    "oop_wrong,ip_time_us,ip_algbw_GBps,ip_busbw_GBps,ip_wrong\n"
#define PLOT_ROW(size, time)                                                                       \
    "allreduce,mesh,4," size ",256,float,sum,-1,14.6,0.07,0.1,N/A," time ",0.07,0.1,N/A\n"
static const struct {
    const char *flags, *text, *message;
} bad_plots[] = {
    {"", PLOT_HEADER, ":1: a header and no rows; expected one row per size"},
    {"", PLOT_HEADER PLOT_ROW("1024", "13.6") PLOT_ROW("big", "13.8"),
     ":3: size_B 'big': expected a whole number of bytes from 1 to 1125899906842624"},
    {"", PLOT_HEADER PLOT_ROW("1024", "nan"), ":2: ip_time_us 'nan': expected a finite number"},
    {"-y busbw", PLOT_HEADER "allreduce,mesh,4,1024,256,float,sum,-1,14.6,0.07,x,N/A,1,2,x,N/A\n",
     ":2: ip_busbw_GBps 'x': expected a finite number, 0 or more"},
    {"", PLOT_HEADER "allreduce,mesh,4\n", ":2: 3 columns; expected 16, as the header has"},
    {"", PLOT_HEADER PLOT_ROW("-1", "13.6"), ":2: size_B '-1': expected a whole number of bytes"},
    {"", PLOT_HEADER PLOT_ROW("0", "13.6"), ":2: size_B '0': expected a whole number of bytes"},
    {"", PLOT_HEADER PLOT_ROW("1e400", "13.6"), ":2: size_B '1e400': expected a whole number"},
    {"", PLOT_HEADER PLOT_ROW("1024", "-3"), ":2: ip_time_us '-3': expected a finite number"},
    {"", "collective,mode,P\n", ":1: not pldsim-perf's header; expected the 16 columns"},
    {"--xy", "# P wall\n8 0.07\n16 inf\n", ":3: '16 inf': expected \"x y\", two finite numbers"},
    {"--xy", "8 0.07\n16 0.1 7\n", ":2: '16 0.1 7': expected \"x y\""},
    {"--xy", "# only a comment\n", "has no \"x y\" lines; expected one point a line"},
    /* issue 41, class 6: no value a log axis cannot take is drawn or
     * dropped unsaid; each refusal names FILE:LINE of its row */
    {"", PLOT_HEADER PLOT_ROW("1024", "13.6") PLOT_ROW("2048", "inf"),
     ":3: ip_time_us 'inf': expected a finite number, 0 or more"},
    {"", PLOT_HEADER PLOT_ROW("1024", "13.6") PLOT_ROW("2048", "-inf"),
     ":3: ip_time_us '-inf': expected a finite number, 0 or more"},
    {"", PLOT_HEADER PLOT_ROW("1024", "1e400"),
     ":2: ip_time_us '1e400': expected a finite number, 0 or more"},
    {"-y busbw",
     PLOT_HEADER "allreduce,mesh,4,1024,256,float,sum,-1,14.6,0.07,0.1,N/A,13.6,0.07,0,N/A\n"
                 "allreduce,mesh,4,2048,512,float,sum,-1,14.6,0.07,0.1,N/A,13.6,0.07,0,N/A\n",
     ":2: every row's ip_busbw_GBps is 0 (lines 2, 3): nothing to draw on a log axis"},
    {"--xy", "8 0.07\n16 -1\n", ":2: '16 -1': expected \"x y\", two finite numbers above 0"},
    {"--xy", "8 0.07\n0 1\n", ":2: '0 1': expected \"x y\", two finite numbers above 0"},
    {"--xy", "8 0.07\n16 0\n", ":2: '16 0': expected \"x y\", two finite numbers above 0"},
    {"--xy", "8 0.07\n-inf 1\n", ":2: '-inf 1': expected \"x y\", two finite numbers"},
    {"--xy", "8 0.07\n16 1e400\n", ":2: '16 1e400': expected \"x y\", two finite numbers"},
};

START_TEST(pldsim_plot_refuses_bad_rows)
{
    char *in = write_temp(".csv", bad_plots[_i].text), *svg = write_temp(".svg", "");
    unlink(svg);
    struct cmd_result r = run_cmd("timeout 30 %s/tools/pldsim-plot %s -o %s %s", PLD_BUILDDIR,
                                  bad_plots[_i].flags, svg, in);
    ck_assert_msg(r.status == 2, "case %d: exit %d:\n%s", _i, r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    ck_assert_contains(r.err, "pldsim-plot: ");
    ck_assert_contains(r.err, in);
    ck_assert_contains(r.err, bad_plots[_i].message);
    ck_assert_msg(access(svg, F_OK) != 0, "case %d: a picture was written", _i);
    cmd_result_free(&r);
    unlink(in);
    free(in), free(svg);
}
END_TEST

/* A run at P=1 takes no time in place: pldsim-plot leaves those rows out
 * and says so, and draws the others. */
START_TEST(pldsim_plot_says_what_it_leaves_out)
{
    char *in =
             write_temp(".csv", PLOT_HEADER PLOT_ROW("1024", "0.000000") PLOT_ROW("4096", "13.8")),
         *svg = write_temp(".svg", "");
    struct cmd_result r = run_cmd("%s/tools/pldsim-plot -o %s %s", PLD_BUILDDIR, svg, in);
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* the note names the row by FILE:LINE, as a refusal does */
    char want[4200];
    snprintf(want, sizeof want, "%s:2: 1 row with ip_time_us 0 left out (a log axis has no 0)", in);
    ck_assert_contains(r.err, want);
    char *a = slurp(svg);
    ck_assert_int_eq(count_lines_with(a, "<circle "), 2); /* 4096, the legend */
    free(a);
    cmd_result_free(&r);
    unlink(in), unlink(svg);
    free(in), free(svg);
    in = write_temp(".csv", PLOT_HEADER PLOT_ROW("1024", "0") PLOT_ROW("2048", "13.6")
                                PLOT_ROW("4096", "0") PLOT_ROW("8192", "-0"));
    svg = write_temp(".svg", "");
    r = run_cmd("%s/tools/pldsim-plot -o %s %s", PLD_BUILDDIR, svg, in);
    ck_assert_msg(r.status == 0, "%s", r.err);
    snprintf(want, sizeof want,
             "%s:2: 3 rows with ip_time_us 0 left out (a log axis has no 0): lines 2, 4, 5", in);
    ck_assert_contains(r.err, want);
    cmd_result_free(&r);
    unlink(in), unlink(svg);
    free(in), free(svg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("whatif");
    TCase *tc = tcase_create("whatif");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, incast_shares_the_receivers_port, 0, 8);
    tcase_add_loop_test(tc, shift_all_to_all_on_a_ring_shares_each_link, 0, 3);
    tcase_add_loop_test(tc, more_bandwidth_or_less_latency_is_never_slower, 0,
                        (int)(sizeof mono / sizeof mono[0]));
    tcase_add_loop_test(tc, busbw_never_exceeds_the_link_rate, 0,
                        (int)(sizeof perf / sizeof perf[0]));
    tcase_add_loop_test(tc, pldsim_perf_prints_the_nccl_tests_table, 0, 6);
    tcase_add_loop_test(tc, pldsim_perf_check_counts_a_wrong_element, 0, 6);
    tcase_add_test(tc, pldsim_perf_refuses_bad_arguments);
    tcase_add_loop_test(tc, pldsim_perf_derives_repeating_calls, 0,
                        sizeof repeating / sizeof repeating[0]);
    tcase_add_test(tc, pldsim_perf_jobs_change_nothing_but_the_wall_time);
    tcase_add_test(tc, long_runs_report_progress_when_asked);
    tcase_add_test(tc, pldsim_plot_draws_its_inputs);
    tcase_add_test(tc, plot_series_stay_apart);
    tcase_add_loop_test(tc, pldsim_plot_refuses_bad_rows, 0,
                        (int)(sizeof bad_plots / sizeof bad_plots[0]));
    tcase_add_test(tc, pldsim_plot_says_what_it_leaves_out);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
