/* check_timing.c: simulated times against closed forms.  A single transfer
 * of S bytes over one link of latency L and bandwidth B must take exactly
 * L + S/B (CM02 without TCP corrections), in either direction of a duplex
 * link, for several S, when the core moving them costs nothing itself; a
 * core's own pull and push costs add to that as docs/models.md says; the
 * generated a2a3 model must give its documented numbers inside a node and
 * across nodes. */
#include "checktools.h"
#include "../../src/model/model.h"

#include <math.h>
#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT 3e-6
#define BW  25e9

/* The link tests' devices: a core that moves bytes for free, so that a
 * transfer is the link's alone; the rest of the device is a2a3's. */
#define CORE_PROPS                                                                                 \
    "<prop id=\"signal_lat\" value=\"250ns\"/><prop id=\"pull_lat\" value=\"0\"/>"                 \
    "<prop id=\"pull_bw\" value=\"0\"/><prop id=\"push_lat\" value=\"0\"/>"                        \
    "<prop id=\"push_bw\" value=\"0\"/>"

static const char two_dev_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\">\n"
    "  <host id=\"dev0\" speed=\"1Gf\">" CORE_PROPS "</host>\n"
    "  <host id=\"dev1\" speed=\"1Gf\">" CORE_PROPS "</host>\n"
    "  <link id=\"l\" bandwidth=\"25GBps\" latency=\"3us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "  <route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\" direction=\"UP\"/></route>\n"
    "</zone>\n"
    "</platform>\n";

enum op { STORE, LOAD, NOTIFY, TENSOR_STORE };

/* What a rank measured: the duration of its one timed op. */
static double measured[2];
static double load_time[2]; /* and of its pl_load (stores only) */

struct rank_args {
    pl_tensor x;
    pld_dtensor data, sig, bar;
    int64_t elems;
    enum op op;
    int peer;
    int both;
};

static void timed_kernel(const struct rank_args *a)
{
    /* Only the store needs a source tile: loading one for the other ops
     * would take UB that a 128 KiB remote_load needs. */
    pl_tile t = {0};
    double l0 = pld_time();
    if (a->op == STORE)
        t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, a->elems));
    load_time[pld_rank(pld_get_comm_ctx(a->data))] = pld_time() - l0;
    /* When both ranks transfer, a barrier first lines them up (rank 1 is
     * dispatched later), so the two flows really are on the link together. */
    if (a->both)
        pld_tensor_barrier(a->bar);
    double t0 = pld_time();
    if (a->op == STORE)
        pld_tile_remote_store(t, a->data, .peer = a->peer, .offsets = PL_IDX(0, 0));
    else if (a->op == TENSOR_STORE)
        pld_tensor_remote_store(a->x, a->data, .peer = a->peer, .offsets = PL_IDX(0, 0));
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
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "bar");
    for (int r = 0; r < (h->both ? 2 : 1); r++) {
        struct rank_args a = {h->x,
                              pld_window(d, PL_SHAPE(1, h->elems), PL_FP32),
                              pld_window(s, PL_SHAPE(1, 1), PL_INT32),
                              pld_window(b, PL_SHAPE(2, 1), PL_INT32),
                              h->elems,
                              h->op,
                              1 - r,
                              h->both};
        pld_dispatch(r, per_device, a);
    }
}

static const char *topology; /* --topology for the next run_one, or NULL */
static struct pld__model A;  /* models/a2a3.model, as built in */

/* A push of b bytes by an a2a3 core over a quiet route of latency `lat`
 * and bandwidth `bw` (docs/models.md: push_lat + lat + b / min(bw,
 * push_bw)). */
static double a2a3_push(double lat, double bw, double b)
{
    double rate = A.dev.push_bw > 0 && A.dev.push_bw < bw ? A.dev.push_bw : bw;
    return A.dev.push_lat + lat + b / rate;
}

static void run_one(const char *platform, const char *devices, int64_t bytes, enum op op, int both)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.platform = platform;
    cfg.topology = topology;
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

START_TEST(notify_is_a_signal_write_and_a_four_byte_flow)
{
    /* signal_lat comes from the hosts' <prop> (250 ns) */
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", 256, NOTIFY, 0);
    assert_rel(measured[0], 250e-9 + LAT + 4.0 / BW);
    free(xml);
}
END_TEST

/* The tensor-level push is what upstream lowers it to: a GM load of the
 * tensor into UB (a2a3's device: hbm_lat + S / hbm_bw) and the remote store
 * of that tile. */
START_TEST(tensor_remote_store_is_a_load_then_a_remote_store)
{
    char *xml = write_temp(".xml", two_dev_xml);
    run_one(xml, "0,1", sizes[_i], TENSOR_STORE, 0);
    double s = (double)sizes[_i];
    assert_rel(measured[0], A.dev.hbm_lat + s / A.dev.hbm_bw + LAT + s / BW);
    free(xml);
}
END_TEST

/* A core's own costs (docs/models.md): a pull of S bytes takes pull_lat +
 * L + S / min(B, pull_bw), a push push_lat + L + S / min(B, push_bw); a
 * rate of 0 is no limit, and a rate above the link's leaves the link's. */
/* `props` goes into both hosts, after a2a3's signal_lat of 250 ns */
static const char rates_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"z\" routing=\"Full\">\n"
    "  <host id=\"dev0\" speed=\"1Gf\"><prop id=\"signal_lat\" value=\"250ns\"/>%s</host>\n"
    "  <host id=\"dev1\" speed=\"1Gf\"><prop id=\"signal_lat\" value=\"250ns\"/>%s</host>\n"
    "  <link id=\"l\" bandwidth=\"25GBps\" latency=\"3us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "  <route src=\"dev0\" dst=\"dev1\"><link_ctn id=\"l\" direction=\"UP\"/></route>\n"
    "</zone>\n"
    "</platform>\n";

START_TEST(a_core_pulls_and_pushes_at_its_own_rates)
{
    static const struct {
        const char *pull_lat, *pull_bw, *push_lat, *push_bw;
        enum op op;
        double lat, rate; /* the core's fixed cost and rate for this op */
    } c[] = {
        {"200ns", "5GBps", "0", "0", LOAD, 200e-9, 5e9},
        {"200ns", "100GBps", "0", "0", LOAD, 200e-9, BW}, /* the link is slower */
        {"0", "0", "400ns", "2GBps", STORE, 400e-9, 2e9},
        {"0", "0", "400ns", "0", STORE, 400e-9, BW}, /* no rate of its own */
    };
    int k = _i / 4;
    char props[512], xml[4096];
    snprintf(props, sizeof props,
             "<prop id=\"pull_lat\" value=\"%s\"/><prop id=\"pull_bw\" value=\"%s\"/>"
             "<prop id=\"push_lat\" value=\"%s\"/><prop id=\"push_bw\" value=\"%s\"/>",
             c[k].pull_lat, c[k].pull_bw, c[k].push_lat, c[k].push_bw);
    snprintf(xml, sizeof xml, rates_xml, props, props);
    char *path = write_temp(".xml", xml);
    double s = (double)sizes[_i % 4];
    run_one(path, "0,1", sizes[_i % 4], c[k].op, 0);
    assert_rel(measured[0], c[k].lat + LAT + s / c[k].rate);
    free(path);
}
END_TEST

/* models/a2a3.model's own links: inside a node one HCCS link; across nodes
 * two NIC hops at the NIC's bandwidth plus the fabric hop; a2a3's core
 * pushes the bytes. */
START_TEST(a2a3_inside_a_node)
{
    run_one("a2a3sim", "0,1", 65536, STORE, 0);
    assert_rel(measured[0], a2a3_push(A.link_lat, A.link_bw, 65536));
}
END_TEST

START_TEST(a2a3_across_nodes)
{
    run_one("a2a3sim", "0,8", 65536, STORE, 0);
    assert_rel(measured[0], a2a3_push(2 * A.nic_lat + A.fabric_lat, A.nic_bw, 65536));
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

/* --topology: routes and link numbers as the spec says.  S = 64 KiB. */
static const struct {
    const char *spec, *devices;
    int both;
    double want; /* closed form, s */
} topo[] = {
    /* a full mesh: one direct link */
    {"mesh:8,bw=56GBps,lat=1.5us", "0,5", 0, 1.5e-6 + 65536 / 56e9},
    /* a ring of 8: 0 -> 3 is three hops forward, 0 -> 6 two hops back */
    {"ring:8,bw=25GBps,lat=1us", "0,3", 0, 3e-6 + 65536 / 25e9},
    {"ring:8,bw=25GBps,lat=1us", "0,6", 0, 2e-6 + 65536 / 25e9},
    /* a 4x4 torus: device 0 -> 10 (coordinates (2,2)) is 2 + 2 hops */
    {"torus2d:4x4,bw=25GBps,lat=1us", "0,10", 0, 4e-6 + 65536 / 25e9},
    /* a 2x2x4 torus: 0 -> 15 is (1,1,3): 1 + 1 + 1 (wrapping) hops */
    {"torus3d:2x2x4,bw=25GBps,lat=1us", "0,15", 0, 3e-6 + 65536 / 25e9},
    /* a star: up to the switch and down again */
    {"star:8,bw=450GBps,lat=300ns", "2,7", 0, 600e-9 + 65536 / 450e9},
    /* two nodes of a fat tree: NIC, fabric, NIC; the NIC is the bottleneck */
    {"fattree:nodes=2,per_node=4,nic=25GBps,nic_lat=1us,fabric_lat=0.5us", "1,6", 0,
     2.5e-6 + 65536 / 25e9},
    /* a SuperPoD: nodes of 8 on HCCS links inside, NIC, the second-level
     * switch (the node's uplink and fabric_lat), NIC between them; the
     * second level is non-blocking unless told (the NIC bounds), or is
     * the bottleneck when told so; 8 nodes, devices 1 and 57 */
    {"superpod:64,bw=56GBps,lat=1.5us", "0,5", 0, 1.5e-6 + 65536 / 56e9},
    {"superpod:64,nic=25GBps,nic_lat=1us,fabric_lat=0.5us", "1,57", 0, 2.5e-6 + 65536 / 25e9},
    {"superpod:64,nic=25GBps,nic_lat=1us,fabric_lat=0.5us,uplink=10GBps", "1,57", 0,
     2.5e-6 + 65536 / 10e9},
    /* both ways at once on shared links: the two flows halve each uplink */
    {"superpod:64,nic=25GBps,nic_lat=1us,fabric_lat=0.5us,uplink=10GBps,duplex=no", "1,57", 1,
     2.5e-6 + 2 * 65536 / 10e9},
    /* a per-link override on the one link used */
    {"ring:4,bw=25GBps,lat=1us,link=0-1:bw=5GBps:lat=3us", "0,1", 0, 3e-6 + 65536 / 5e9},
    /* duplex links carry both directions at full rate; shared ones do not */
    {"mesh:2,bw=25GBps,lat=1us", "0,1", 1, 1e-6 + 65536 / 25e9},
    {"mesh:2,bw=25GBps,lat=1us,duplex=no", "0,1", 1, 1e-6 + 2 * 65536 / 25e9},
};

/* (the stores are pushes by a2a3 cores: push_lat more, push_bw is none) */
START_TEST(topology_specs_route_and_time_as_written)
{
    topology = topo[_i].spec;
    run_one("a2a3sim", topo[_i].devices, 65536, STORE, topo[_i].both);
    ck_assert(A.dev.push_bw == 0);
    assert_rel(measured[0], A.dev.push_lat + topo[_i].want);
    if (topo[_i].both)
        assert_rel(measured[1], A.dev.push_lat + topo[_i].want);
}
END_TEST

/* A straggler's compute takes `factor` times as long (here its GM load,
 * hbm_lat + S / hbm_bw with a2a3's numbers); its transfers do not change. */
START_TEST(a_straggler_computes_slower)
{
    topology = "mesh:2,bw=25GBps,lat=1us,slow=1:3";
    run_one("a2a3sim", "0,1", 4096, STORE, 1);
    double gm = A.dev.hbm_lat + 4096 / A.dev.hbm_bw;
    assert_rel(load_time[0], gm);
    assert_rel(load_time[1], 3 * gm);
    /* a push's fixed cost is the core's, not compute: a straggler pays it
     * at the nominal rate */
    assert_rel(measured[0], a2a3_push(1e-6, 25e9, 4096));
    assert_rel(measured[1], a2a3_push(1e-6, 25e9, 4096));
}
END_TEST

int main(void)
{
    const char *text = pld__builtin_model_text("a2a3");
    if (!text || pld__model_parse(text, "a2a3", &A) != 0)
        return 1;
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("closed_forms");
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    tcase_add_loop_test(tc, remote_store_takes_latency_plus_size_over_bandwidth, 0, n);
    tcase_add_loop_test(tc, remote_load_uses_the_other_direction_at_the_same_cost, 0, n);
    tcase_add_loop_test(tc, duplex_link_carries_both_directions_without_sharing, 0, n);
    tcase_add_loop_test(tc, tensor_remote_store_is_a_load_then_a_remote_store, 0, n);
    tcase_add_test(tc, notify_is_a_signal_write_and_a_four_byte_flow);
    tcase_add_loop_test(tc, a_core_pulls_and_pushes_at_its_own_rates, 0, 4 * 4);
    tcase_add_test(tc, a2a3_inside_a_node);
    tcase_add_test(tc, a2a3_across_nodes);
    tcase_add_test(tc, lv08_is_selectable_and_differs);
    tcase_add_loop_test(tc, topology_specs_route_and_time_as_written, 0,
                        (int)(sizeof topo / sizeof topo[0]));
    tcase_add_test(tc, a_straggler_computes_slower);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
