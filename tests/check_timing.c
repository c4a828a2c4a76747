/* check_timing.c: simulated times against closed forms.  A single transfer
 * of S bytes over one link of latency L and bandwidth B must take exactly
 * L + S/B (CM02 without TCP corrections), in either direction of a duplex
 * link, for several S; the generated a2a3 model must give its documented
 * numbers inside a node and across nodes. */
#include "checktools.h"

#include <math.h>
#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT 3e-6
#define BW  25e9

static const char two_dev_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\">\n"
    "  <host id=\"dev0\" speed=\"1Gf\"/>\n"
    "  <host id=\"dev1\" speed=\"1Gf\"/>\n"
    "  <link id=\"l\" bandwidth=\"25GBps\" latency=\"3us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "  <route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\" direction=\"UP\"/></route>\n"
    "</zone>\n"
    "</platform>\n";

enum op { STORE, LOAD, NOTIFY };

/* What a rank measured: the duration of its one timed op. */
static double measured[2];

struct rank_args {
    pl_tensor x;
    pld_dtensor data, sig;
    int64_t elems;
    enum op op;
    int peer;
};

static void timed_kernel(const struct rank_args *a)
{
    /* Only the store needs a source tile: loading one for the other ops
     * would take UB that a 128 KiB remote_load needs. */
    pl_tile t = {0};
    if (a->op == STORE) t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, a->elems));
    double t0 = pld_time();
    if (a->op == STORE)
        pld_tile_remote_store(t, a->data, .peer = a->peer, .offsets = PL_IDX(0, 0));
    else if (a->op == LOAD)
        (void)pld_tile_remote_load(a->data, .peer = a->peer, .offsets = PL_IDX(0, 0),
                                   .shape = PL_SHAPE(1, a->elems));
    else
        pld_system_notify(a->sig, .peer = a->peer, .offsets = PL_IDX(0, 0), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
    pld_comm_ctx c = pld_get_comm_ctx(a->data);
    measured[pld_rank(c)] = pld_time() - t0;
}

static void per_device(const struct rank_args *a)
{
    pl_incore(timed_kernel, a);
}

struct host_args {
    pl_tensor x;
    int64_t elems;
    enum op op;
    int both; /* both ranks transfer at once, towards each other */
};

static void host(const struct host_args *h)
{
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, h->elems), PL_FP32, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(1, 1), PL_INT32, .name = "sig");
    for (int r = 0; r < (h->both ? 2 : 1); r++) {
        struct rank_args a = {h->x,
                              pld_window(d, PL_SHAPE(1, h->elems), PL_FP32),
                              pld_window(s, PL_SHAPE(1, 1), PL_INT32),
                              h->elems,
                              h->op,
                              1 - r};
        pld_dispatch(r, per_device, a);
    }
}

static void run_one(const char *platform, const char *devices, int64_t bytes, enum op op, int both)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.platform = platform;
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, devices), 0);
    struct host_args h = {pl_tensor_new(PL_SHAPE(1, bytes / 4), PL_FP32, "x"), bytes / 4, op, both};
    measured[0] = measured[1] = -1;
    ck_assert_int_eq(pld_run(&cfg, host, &h), 0);
    pl_tensor_free(&h.x);
}

static void assert_rel(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * want,
                  "simulated %.15g s, closed form %.15g s (rel %g)", got, want,
                  fabs(got - want) / want);
}

static const int64_t sizes[] = {256, 4096, 65536, 131072};

START_TEST(remote_store_takes_latency_plus_size_over_bandwidth)
{
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", sizes[_i], STORE, 0);
    assert_rel(measured[0], LAT + (double)sizes[_i] / BW);
    free(xml);
}
END_TEST

START_TEST(remote_load_uses_the_other_direction_at_the_same_cost)
{
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", sizes[_i], LOAD, 0);
    assert_rel(measured[0], LAT + (double)sizes[_i] / BW);
    free(xml);
}
END_TEST

START_TEST(duplex_link_carries_both_directions_without_sharing)
{
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", sizes[_i], STORE, 1);
    assert_rel(measured[0], LAT + (double)sizes[_i] / BW);
    assert_rel(measured[1], LAT + (double)sizes[_i] / BW);
    free(xml);
}
END_TEST

START_TEST(notify_is_a_four_byte_flow)
{
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", 256, NOTIFY, 0);
    assert_rel(measured[0], LAT + 4.0 / BW);
    free(xml);
}
END_TEST

/* models/a2a3.model: link 56 GB/s, 1 us inside a node; across nodes two NIC
 * hops of 1 us at 25 GB/s plus the 0.5 us fabric hop. */
START_TEST(a2a3_inside_a_node)
{
    run_one("a2a3sim", "0,1", 65536, STORE, 0);
    assert_rel(measured[0], 1e-6 + 65536.0 / 56e9);
}
END_TEST

START_TEST(a2a3_across_nodes)
{
    run_one("a2a3sim", "0,8", 65536, STORE, 0);
    assert_rel(measured[0], 2.5e-6 + 65536.0 / 25e9);
}
END_TEST

START_TEST(lv08_is_selectable_and_differs)
{
    /* LV08 multiplies latency by 13.01 and bandwidth by 0.97 (SimGrid docs;
     * shared/simgrid-notes.md section 5.1). */
    char *xml = write_temp(".xml", two_dev_xml);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.platform = xml;
    cfg.summary = 0;
    cfg.network_model = "LV08";
    struct host_args h = {pl_tensor_new(PL_SHAPE(1, 1024), PL_FP32, "x"), 1024, STORE, 0};
    ck_assert_int_eq(pld_run(&cfg, host, &h), 0);
    assert_rel(measured[0], 13.01 * LAT + 4096.0 / (0.97 * BW));
    pl_tensor_free(&h.x);
    free(xml);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("closed_forms");
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    tcase_add_loop_test(tc, remote_store_takes_latency_plus_size_over_bandwidth, 0, n);
    tcase_add_loop_test(tc, remote_load_uses_the_other_direction_at_the_same_cost, 0, n);
    tcase_add_loop_test(tc, duplex_link_carries_both_directions_without_sharing, 0, n);
    tcase_add_test(tc, notify_is_a_four_byte_flow);
    tcase_add_test(tc, a2a3_inside_a_node);
    tcase_add_test(tc, a2a3_across_nodes);
    tcase_add_test(tc, lv08_is_selectable_and_differs);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
