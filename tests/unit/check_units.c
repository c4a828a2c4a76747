/* check_units.c: quantities with units, model files, and the platform the
 * a2a3 generator writes (internal functions, tested through src/ headers). */
#include "checktools.h"
#include "../../sim/sim.h"

#include <stdlib.h>
#include <string.h>

START_TEST(units_parse_to_si)
{
    double v;
    ck_assert_int_eq(pld__parse_bandwidth("56GBps", &v), 0);
    ck_assert(v == 56e9);
    ck_assert_int_eq(pld__parse_bandwidth("400Gbps", &v), 0);
    ck_assert(v == 50e9);
    ck_assert_int_eq(pld__parse_bandwidth("1.6TBps", &v), 0);
    ck_assert(v == 1.6e12);
    ck_assert_int_eq(pld__parse_time("1.5us", &v), 0);
    ck_assert(v == 1.5e-6);
    ck_assert_int_eq(pld__parse_time("500ns", &v), 0);
    ck_assert(v == 500e-9);
    ck_assert_int_eq(pld__parse_size("184KiB", &v), 0);
    ck_assert(v == 188416);
    ck_assert_int_eq(pld__parse_rate("128G", &v), 0);
    ck_assert(v == 128e9);
    ck_assert_int_eq(pld__parse_bandwidth("56", &v), 0);
    ck_assert(v == 56);
    ck_assert_int_eq(pld__parse_bandwidth("56GB", &v), -1);
    ck_assert_int_eq(pld__parse_time("fast", &v), -1);
    ck_assert_int_eq(pld__parse_time("-1us", &v), -1);
    ck_assert_int_eq(pld__parse_size("", &v), -1);
}
END_TEST

static int model_of(const char *name, struct pld__model *m)
{
    for (int i = 0; pld__builtin_models[i].name; i++)
        if (strcmp(pld__builtin_models[i].name, name) == 0)
            return pld__model_parse(pld__builtin_models[i].text, name, m);
    return -1;
}

START_TEST(non_finite_numbers_are_refused)
{
    /* SimGrid aborts the process on them, so no parser may let one through */
    double v = 1;
    static const char *const bandwidths[] = {"1e400GBps", "1e300TBps", "inf",
                                             "infGBps",   "nan",       "1e999"};
    for (size_t i = 0; i < sizeof bandwidths / sizeof bandwidths[0]; i++)
        ck_assert_msg(pld__parse_bandwidth(bandwidths[i], &v) == -1, "%s accepted", bandwidths[i]);
    ck_assert_int_eq(pld__parse_time("infs", &v), -1);
    ck_assert_int_eq(pld__parse_time("1e400us", &v), -1);
    ck_assert_int_eq(pld__parse_rate("inf", &v), -1);
    ck_assert_int_eq(pld__parse_size("1e400B", &v), -1);
    ck_assert_int_eq(pld__parse_count("inf", &v), -1);
    ck_assert_int_eq(pld__parse_count("0", &v), -1);
    ck_assert_int_eq(pld__parse_count("2.5", &v), -1);
    ck_assert_int_eq(pld__parse_count("48", &v), 0);
    ck_assert(v == 48);
    /* the largest finite values still parse */
    ck_assert_int_eq(pld__parse_bandwidth("1e300Bps", &v), 0);
}
END_TEST

START_TEST(builtin_models_parse)
{
    struct pld__model m;
    ck_assert_int_eq(model_of("a2a3", &m), 0);
    ck_assert_str_eq(m.name, "a2a3");
    ck_assert_int_eq(m.node_size, 8);
    ck_assert(m.link_bw == 56e9 && m.link_lat == 100e-9);
    ck_assert(m.dev.ub_bytes == 196608 && m.dev.ub_usable_bytes == 188416);
    /* fitted (docs/validation.md): the keys are there, and hold values a
     * 910B could have */
    ck_assert(m.dev.dispatch_lat > 100e-6 && m.dev.dispatch_lat < 1e-3);
    ck_assert(m.dev.push_lat > 0 && m.dev.pull_bw > 1e9 && m.dev.pull_bw < m.link_bw);
    double a2a3_core_bw = m.dev.hbm_bw;
    ck_assert_int_eq(model_of("a5", &m), 0);
    ck_assert(m.dev.ub_bytes == 248 * 1024.0 && m.dev.ub_usable_bytes == 240 * 1024.0);
    /* the 950's published 2 TB/s per chip over the 7 peers of an 8-mesh; a
     * core's GM rate is a2a3's (the same 1.6 TB/s HBM), not the chip's */
    ck_assert_int_eq(m.node_size, 8);
    ck_assert_double_eq_tol(m.link_bw * 7, 2e12, 1e7);
    ck_assert(m.dev.hbm_bw == a2a3_core_bw);
    ck_assert(m.dev.gm_read_bw == 4.62e12 && m.dev.gm_write_bw == 4.62e12);
}
END_TEST

START_TEST(model_errors_name_the_line)
{
    struct pld__model m;
    capture_stderr_begin();
    int rc = pld__model_parse("name = x\n\n# c\nwarp_speed = 9\n", "my.model", &m);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EPLATFORM);
    ck_assert_contains(err, "my.model:4: unknown key 'warp_speed'");
    free(err);
}
END_TEST

/* A UTF-8 byte order mark, which some editors write at the start of a
 * file, is skipped there: the file reads as the same model.  It hid the
 * first key ("my.model:1: expected 'key = value', got ''", the mark being
 * invisible); anywhere else it is named, with its line and column. */
START_TEST(a_byte_order_mark_is_skipped_at_the_start_and_named_elsewhere)
{
    const char *a2a3 = pld__builtin_model_text("a2a3");
    struct pld__model plain, marked;
    char *text = NULL;
    ck_assert_int_eq(pld__model_parse(a2a3, "a2a3.model", &plain), 0);
    ck_assert_int_ne(asprintf(&text, "\xEF\xBB\xBF%s", a2a3), -1);
    ck_assert_int_eq(pld__model_parse(text, "bom.model", &marked), 0);
    ck_assert_str_eq(marked.name, plain.name);
    ck_assert(marked.link_bw == plain.link_bw && marked.link_lat == plain.link_lat);
    free(text);
    /* a first line that is a key, and a mark inside a comment */
    ck_assert_int_eq(pld__model_parse("\xEF\xBB\xBFname = x\n# a \xEF\xBB\xBF note\nbase = a2a3\n"
                                      "link_bw = 56GBps\n",
                                      "bom.model", &marked),
                     0);
    ck_assert_str_eq(marked.name, "x");
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"name = x\n\xEF\xBB\xBF" /* not \\xBFba: hex escapes run on */ "base = a2a3\n",
         "bom.model:2: a UTF-8 byte order mark (U+FEFF) at column 1; expected 'key = value' in "
         "plain text (remove the mark; one at the very start of the file is allowed)"},
        {"name = x\nbase = \xEF\xBB\xBF"
         "a2a3\n",
         "bom.model:2: a UTF-8 byte order mark (U+FEFF) at column 8"},
        /* two marks: the first is the file's, the second is named */
        {"\xEF\xBB\xBF\xEF\xBB\xBFname = x\n",
         "bom.model:1: a UTF-8 byte order mark (U+FEFF) at column 1"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        capture_stderr_begin();
        int rc = pld__model_parse(bad[k].text, "bom.model", &marked);
        char *err = capture_stderr_end();
        ck_assert_int_eq(rc, PLD_EPLATFORM);
        ck_assert_contains(err, bad[k].msg);
        ck_assert_int_eq(count_lines_with(err, "pldsim:"), 1);
        free(err);
    }
}
END_TEST

/* A key given twice in a model file is refused at the second line, as
 * --topology refuses a repeated field: the file said two things and the
 * last one silently won.  A short name and its long one are the same key;
 * link and slow add one entry each, so they may repeat. */
START_TEST(a_key_given_twice_is_refused)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"name = x\nlink_bw = 56GBps\n# c\n\nlink_bw = 28GBps\n",
         "twice.model:5: 'link_bw' is given twice (first at line 2); give each key once"},
        {"bw = 56GBps\nlink_bw = 28GBps\n",
         "twice.model:2: 'link_bw' is given twice (first at line 1); give each key once"},
        {"hbm_bw = 1TBps\nname = x\nhbm_bw = 1TBps\n",
         "twice.model:3: 'hbm_bw' is given twice (first at line 1)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        struct pld__model m;
        capture_stderr_begin();
        int rc = pld__model_parse(bad[k].text, "twice.model", &m);
        char *err = capture_stderr_end();
        ck_assert_int_eq(rc, PLD_EPLATFORM);
        ck_assert_contains(err, bad[k].msg);
        ck_assert_int_eq(count_lines_with(err, "pldsim:"), 1);
        free(err);
    }
    /* link and slow repeat; each line adds one */
    struct pld__model m;
    char *text = NULL;
    ck_assert_int_ne(asprintf(&text,
                              "%s\nlink = 0-1:bw=1GBps\nlink = 1-2:bw=2GBps\n"
                              "slow = 0:2\nslow = 1:3\n",
                              pld__builtin_model_text("a2a3")),
                     -1);
    ck_assert_int_eq(pld__model_parse(text, "repeats.model", &m), 0);
    ck_assert_int_eq(m.noverrides, 2);
    ck_assert_int_eq(m.nslow, 2);
    free(text);
}
END_TEST

static char *platform_text(int ndev)
{
    struct pld__model m;
    ck_assert_int_eq(model_of("a2a3", &m), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int dims[3], nd;
    ck_assert_int_eq(pld__model_devices(&m, ndev, dims, &nd), ndev);
    ck_assert_int_eq(pld__platform_write(f, &m, ndev, dims, nd), 0);
    fclose(f);
    return buf;
}

START_TEST(one_node_is_a_full_mesh)
{
    char *x = platform_text(8);
    ck_assert_int_eq(count_lines_with(x, "<host id=\"dev"), 8);
    ck_assert_int_eq(count_lines_with(x, "<link id=\"link_"), 28); /* 8*7/2 pairs */
    ck_assert_int_eq(count_lines_with(x, "<route "), 28);
    ck_assert_int_eq(count_lines_with(x, "zoneRoute"), 0);
    ck_assert_contains(x, "bandwidth=\"56000000000Bps\" latency=\"9.9999999999999995e-08s\"");
    ck_assert_contains(x, "<prop id=\"ub_usable_bytes\" value=\"188416\"/>");
    free(x);
}
END_TEST

START_TEST(more_devices_fill_more_nodes)
{
    char *x = platform_text(20); /* nodes of 8, 8 and 4 */
    ck_assert_int_eq(count_lines_with(x, "<host id=\"dev"), 20);
    ck_assert_int_eq(count_lines_with(x, "<link id=\"link_"), 28 + 28 + 6);
    ck_assert_int_eq(count_lines_with(x, "<link id=\"nic_"), 20);
    /* each node reaches the fabric's switch and back: 2 routes a node,
     * not one per pair of nodes */
    ck_assert_int_eq(count_lines_with(x, "<zoneRoute"), 2 * 3);
    ck_assert_contains(x, "<zoneRoute src=\"node2\" dst=\"fabric_zone\"");
    ck_assert_contains(x, "<zoneRoute src=\"fabric_zone\" dst=\"node2\"");
    ck_assert_contains(x, "<route src=\"dev19\" dst=\"node2_switch\">");
    free(x);
}
END_TEST

/* A value for device key number k that no other key has: a trust label
 * is one of four (0-3), any other key takes 1000 + k. */
static int key_value(int k)
{
    return strncmp(pld__device_keys[k], "trust_", 6) == 0 ? k % 4 : 1000 + k;
}

/* The one key list drives the struct, the parser, the platform writer and
 * the per-device numbers the ranks get: every key set through the parser
 * reads back from its field, appears in the written platform with its
 * value, and a straggler changes its device's speed_factor only. */
START_TEST(every_device_key_is_parsed_written_and_read)
{
    struct pld__model m;
    ck_assert_int_eq(model_of("a2a3", &m), 0);
    int n = 0;
    for (int k = 0; pld__device_keys[k]; k++, n++) {
        char v[32];
        snprintf(v, sizeof v, "%d", key_value(k));
        ck_assert_int_eq(pld__device_set(&m.dev, pld__device_keys[k], v), 1);
        ck_assert(pld__device_get(&m.dev, k) == key_value(k));
    }
    ck_assert_int_eq(n, (int)(sizeof(struct pld__device) / sizeof(double)));
    ck_assert_int_eq(pld__device_set(&m.dev, "warp_speed", "1"), 0);
    ck_assert_int_eq(pld__device_set(&m.dev, "hbm_bw", "fast"), -1);
    m.slow[0].device = 1;
    m.slow[0].factor = 2.5;
    m.nslow = 1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int dims[3], nd;
    ck_assert_int_eq(pld__model_devices(&m, 2, dims, &nd), 2);
    ck_assert_int_eq(pld__platform_write(f, &m, 2, dims, nd), 0);
    fclose(f);
    for (int k = 0; pld__device_keys[k]; k++) {
        char want[96];
        snprintf(want, sizeof want, "<prop id=\"%s\" value=\"%d\"/>", pld__device_keys[k],
                 key_value(k));
        ck_assert_int_eq(count_lines_with(buf, want),
                         strcmp(pld__device_keys[k], "speed_factor") == 0 ? 1 : 2);
    }
    ck_assert_contains(buf, "<prop id=\"speed_factor\" value=\"2.5\"/>");
    free(buf);
    struct pld__device d0, d1;
    pld__model_device(&m, 0, &d0);
    pld__model_device(&m, 1, &d1);
    ck_assert(d1.speed_factor == 2.5 && d0.speed_factor == m.dev.speed_factor);
    d1.speed_factor = d0.speed_factor;
    ck_assert_int_eq(memcmp(&d0, &d1, sizeof d0), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, units_parse_to_si);
    tcase_add_test(tc, non_finite_numbers_are_refused);
    tcase_add_test(tc, builtin_models_parse);
    tcase_add_test(tc, model_errors_name_the_line);
    tcase_add_test(tc, a_key_given_twice_is_refused);
    tcase_add_test(tc, a_byte_order_mark_is_skipped_at_the_start_and_named_elsewhere);
    tcase_add_test(tc, one_node_is_a_full_mesh);
    tcase_add_test(tc, more_devices_fill_more_nodes);
    tcase_add_test(tc, every_device_key_is_parsed_written_and_read);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
