/* topology.c: writes the SimGrid platform of a model for a device count.
 *
 * Devices are hosts dev0, dev1, ...; the host CPU is host "host" (no links:
 * dispatch costs are charged, not sent).  Every device link is duplex
 * (SPLITDUPLEX: each direction has the full bandwidth) unless duplex = no.
 *  - hccs, fattree, superpod: nodes of `node_size` devices, fully meshed inside; each
 *    device has a NIC link to its node's switch; switches meet at the
 *    fabric's switch, a hop of latency only (optionally through per-node
 *    uplinks of `uplink_bw`).
 *  - mesh: one link per device pair.
 *  - ring, torus2d, torus3d: links to the next device along each dimension,
 *    with wrap-around; shortest-path (Dijkstra) routing.
 *  - star: one link per device to a central switch (NVSwitch-like). */
#include "sim.h"

#include <string.h>

static const char *policy(const struct pld__model *m)
{
    return m->duplex ? "SPLITDUPLEX" : "SHARED";
}

/* The bandwidth and latency of the link between devices a and b. */
static void link_numbers(const struct pld__model *m, int a, int b, double *bw, double *lat)
{
    *bw = m->link_bw;
    *lat = m->link_lat;
    for (int i = 0; i < m->noverrides; i++) {
        const struct pld__link_override *o = &m->overrides[i];
        if ((o->a == a && o->b == b) || (o->a == b && o->b == a)) {
            if (o->bw > 0)
                *bw = o->bw;
            if (o->has_lat)
                *lat = o->lat;
        }
    }
}

/* A device's <prop>s keep a saved platform (PLDSIM_SAVE_PLATFORM) whole:
 * loaded back as FILE.xml it simulates the same devices.  The run that
 * generates it takes its device numbers from the model itself. */
static void write_host(FILE *out, const struct pld__model *m, int id, const char *in)
{
    struct pld__device d;
    pld__model_device(m, id, &d);
    fprintf(out, "%s<host id=\"dev%d\" speed=\"1Gf\">\n", in, id);
    for (int k = 0; pld__device_keys[k]; k++)
        fprintf(out, "%s  <prop id=\"%s\" value=\"%.17g\"/>\n", in, pld__device_keys[k],
                pld__device_get(&d, k));
    fprintf(out, "%s</host>\n", in);
}

static void write_link(FILE *out, const struct pld__model *m, const char *in, const char *id,
                       double bw, double lat, const char *pol)
{
    (void)m;
    fprintf(out,
            "%s<link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"%s\"/>\n",
            in, id, bw, lat, pol);
}

static void write_route(FILE *out, const struct pld__model *m, const char *in, const char *src,
                        const char *dst, const char *link)
{
    if (m->duplex)
        fprintf(out,
                "%s<route src=\"%s\" dst=\"%s\"><link_ctn id=\"%s\" direction=\"UP\"/></route>\n",
                in, src, dst, link);
    else
        fprintf(out, "%s<route src=\"%s\" dst=\"%s\"><link_ctn id=\"%s\"/></route>\n", in, src, dst,
                link);
}

/* A device-to-device link (pass 0) or the route over it (pass 1): the DTD
 * wants every link declared before the first route. */
static void dev_link(FILE *out, const struct pld__model *m, const char *in, int a, int b, int pass)
{
    char id[64], sa[32], sb[32];
    double bw, lat;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    link_numbers(m, a, b, &bw, &lat);
    snprintf(id, sizeof id, "link_%d_%d", a, b);
    snprintf(sa, sizeof sa, "dev%d", a);
    snprintf(sb, sizeof sb, "dev%d", b);
    if (pass == 0)
        write_link(out, m, in, id, bw, lat, policy(m));
    else
        write_route(out, m, in, sa, sb, id);
}

/* One node of the hccs/fattree kinds. */
static void write_node(FILE *out, const struct pld__model *m, int first, int count, int node,
                       int multi)
{
    const char *in = multi ? "    " : "  ";
    char id[64], src[32], dst[32];
    if (node == 0)
        fprintf(out, "%s<host id=\"host\" speed=\"1Gf\"/>\n", in);
    for (int i = first; i < first + count; i++)
        write_host(out, m, i, in);
    if (multi)
        fprintf(out, "%s<router id=\"node%d_switch\"/>\n", in, node);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = first; i < first + count; i++)
            for (int j = i + 1; j < first + count; j++)
                dev_link(out, m, in, i, j, pass);
        for (int i = first; multi && i < first + count; i++) {
            snprintf(id, sizeof id, "nic_%d", i);
            snprintf(src, sizeof src, "dev%d", i);
            snprintf(dst, sizeof dst, "node%d_switch", node);
            if (pass == 0)
                write_link(out, m, in, id, m->nic_bw, m->nic_lat, policy(m));
            else
                write_route(out, m, in, src, dst, id);
        }
    }
}

static void write_nodes(FILE *out, const struct pld__model *m, int ndev)
{
    int nodes = (ndev + m->node_size - 1) / m->node_size;
    if (nodes == 1) {
        fprintf(out, "<zone id=\"%s\" routing=\"Full\">\n", m->name);
        write_node(out, m, 0, ndev, 0, 0);
        fprintf(out, "</zone>\n");
        return;
    }
    /* The nodes meet at one switch, the fabric's: a route goes up to it
     * and down from it, so the top zone holds 2 routes a node where a full
     * table of node pairs held N(N-1)/2 (2 M lines at 2048 nodes, for a
     * SuperPoD of 16384 devices), and SimGrid's Dijkstra, cached per
     * source, finds the same links in the same order: the up link of the
     * source's node, the fabric hop (latency only), the down link of the
     * destination's.  Without uplinks the way down is a fat pipe of no
     * latency (SimGrid forbids an empty route), which neither shares nor
     * adds time. */
    fprintf(out, "<zone id=\"%s\" routing=\"DijkstraCache\">\n", m->name);
    for (int n = 0; n < nodes; n++) {
        int first = n * m->node_size;
        int count = ndev - first < m->node_size ? ndev - first : m->node_size;
        fprintf(out, "  <zone id=\"node%d\" routing=\"Full\">\n", n);
        write_node(out, m, first, count, n, 1);
        fprintf(out, "  </zone>\n");
    }
    fprintf(out, "  <zone id=\"fabric_zone\" routing=\"None\">\n"
                 "    <router id=\"fabric_switch\"/>\n"
                 "  </zone>\n");
    write_link(out, m, "  ", "fabric", 1e15, m->fabric_lat, "FATPIPE");
    if (m->uplink_bw > 0)
        for (int n = 0; n < nodes; n++) {
            char id[32];
            snprintf(id, sizeof id, "uplink_%d", n);
            write_link(out, m, "  ", id, m->uplink_bw, 0, policy(m));
        }
    else
        write_link(out, m, "  ", "fabric_down", 1e15, 0, "FATPIPE");
    const char *up = m->duplex ? " direction=\"UP\"" : "",
               *down = m->duplex ? " direction=\"DOWN\"" : "";
    for (int n = 0; n < nodes; n++) {
        fprintf(out,
                "  <zoneRoute src=\"node%d\" dst=\"fabric_zone\" gw_src=\"node%d_switch\" "
                "gw_dst=\"fabric_switch\" symmetrical=\"NO\">",
                n, n);
        if (m->uplink_bw > 0)
            fprintf(out, "<link_ctn id=\"uplink_%d\"%s/>", n, up);
        fprintf(out, "<link_ctn id=\"fabric\"/></zoneRoute>\n");
        fprintf(out,
                "  <zoneRoute src=\"fabric_zone\" dst=\"node%d\" gw_src=\"fabric_switch\" "
                "gw_dst=\"node%d_switch\" symmetrical=\"NO\">",
                n, n);
        if (m->uplink_bw > 0)
            fprintf(out, "<link_ctn id=\"uplink_%d\"%s/>", n, down);
        else
            fprintf(out, "<link_ctn id=\"fabric_down\"/>");
        fprintf(out, "</zoneRoute>\n");
    }
    fprintf(out, "</zone>\n");
}

/* ring, torus2d, torus3d: neighbours along each dimension, with wrap. */
static void write_torus(FILE *out, const struct pld__model *m, const int dims[3], int nd)
{
    int n = 1;
    for (int k = 0; k < nd; k++)
        n *= dims[k];
    fprintf(out, "<zone id=\"%s\" routing=\"DijkstraCache\">\n", m->name);
    fprintf(out, "  <host id=\"host\" speed=\"1Gf\"/>\n");
    for (int i = 0; i < n; i++)
        write_host(out, m, i, "  ");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int coord[3], rest = i, stride = 1;
            for (int k = 0; k < nd; k++) {
                coord[k] = rest % dims[k];
                rest /= dims[k];
            }
            for (int k = 0; k < nd; k++) {
                /* the next device along dimension k; a size-2 dimension has
                 * one link, a size-1 dimension none */
                int next = (coord[k] + 1) % dims[k];
                int j = i + (next - coord[k]) * stride;
                if (dims[k] > 2 || (dims[k] == 2 && coord[k] == 0))
                    dev_link(out, m, "  ", i, j, pass);
                stride *= dims[k];
            }
        }
    fprintf(out, "</zone>\n");
}

static void write_star(FILE *out, const struct pld__model *m, int n)
{
    fprintf(out, "<zone id=\"%s\" routing=\"DijkstraCache\">\n", m->name);
    fprintf(out, "  <host id=\"host\" speed=\"1Gf\"/>\n");
    for (int i = 0; i < n; i++)
        write_host(out, m, i, "  ");
    fprintf(out, "  <router id=\"switch\"/>\n");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            char id[32], src[32];
            double bw, lat;
            link_numbers(m, i, -1, &bw, &lat);
            snprintf(id, sizeof id, "port_%d", i);
            snprintf(src, sizeof src, "dev%d", i);
            if (pass == 0)
                write_link(out, m, "  ", id, bw, lat, policy(m));
            else
                write_route(out, m, "  ", src, "switch", id);
        }
    fprintf(out, "</zone>\n");
}

/* Picks dims for a torus of n devices when the spec gives none: the most
 * nearly square (or cubic) factorisation. */
static int auto_dims(int n, int nd, int dims[3])
{
    if (nd == 1) {
        dims[0] = n;
        return 1;
    }
    int best = 0;
    for (int a = 1; a * a <= n; a++) {
        if (n % a)
            continue;
        if (nd == 2) {
            dims[0] = a;
            dims[1] = n / a;
            best = 1;
            continue;
        }
        for (int b = a; a * b * b <= n; b++)
            if ((n / a) % b == 0) {
                dims[0] = a;
                dims[1] = b;
                dims[2] = n / a / b;
                best = 1;
            }
    }
    return best ? nd : -1;
}

int pld__model_devices(const struct pld__model *m, int needed, int dims[3], int *nd)
{
    int want = strcmp(m->topology, "torus3d") == 0   ? 3
               : strcmp(m->topology, "torus2d") == 0 ? 2
                                                     : 1;
    int n = 1;
    if (m->ndims) {
        if (m->ndims != want)
            return pld__config_error(PLD_EUSAGE,
                                     "topology %s takes %d dimension%s, got %d (e.g. %s)",
                                     m->topology, want, want > 1 ? "s" : "", m->ndims,
                                     want == 3   ? "2x2x4"
                                     : want == 2 ? "4x4"
                                                 : "16");
        memcpy(dims, m->dims, sizeof m->dims);
    } else if (auto_dims(needed, want, dims) < 0) {
        return pld__config_error(PLD_EUSAGE, "cannot shape %d devices as a %s", needed,
                                 m->topology);
    }
    *nd = want;
    for (int k = 0; k < want; k++)
        n *= dims[k];
    if (n < needed)
        return pld__config_error(PLD_EDEVICES,
                                 "topology %s holds %d devices (ids 0..%d); device id %d was "
                                 "asked for",
                                 m->topology, n, n - 1, needed - 1);
    if (n > m->max_devices)
        return pld__config_error(PLD_EDEVICES,
                                 "model %s holds at most %d devices; %d were asked for", m->name,
                                 m->max_devices, n);
    /* what names a device must name one the platform has */
    for (int i = 0; i < m->nslow; i++)
        if (m->slow[i].device >= n)
            return pld__config_error(PLD_EUSAGE,
                                     "slow=%d:... names device %d, but the platform holds "
                                     "devices 0..%d",
                                     m->slow[i].device, m->slow[i].device, n - 1);
    for (int i = 0; i < m->noverrides; i++)
        if (m->overrides[i].a >= n || m->overrides[i].b >= n)
            return pld__config_error(PLD_EUSAGE,
                                     "link=%d-%d:... names a device past the platform's "
                                     "devices 0..%d",
                                     m->overrides[i].a, m->overrides[i].b, n - 1);
    return n;
}

int pld__platform_write(FILE *out, const struct pld__model *m, int ndev, const int dims[3], int nd)
{
    fprintf(out, "<?xml version='1.0'?>\n"
                 "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                 "<platform version=\"4.1\">\n");
    fprintf(out, "<!-- generated by pldsim from model %s (%s) for %d devices -->\n", m->name,
            m->topology, ndev);
    if (strcmp(m->topology, "hccs") == 0 || strcmp(m->topology, "fattree") == 0 ||
        strcmp(m->topology, "superpod") == 0) {
        write_nodes(out, m, ndev);
    } else if (strcmp(m->topology, "mesh") == 0) {
        struct pld__model one = *m;
        one.node_size = ndev;
        write_nodes(out, &one, ndev);
    } else if (strcmp(m->topology, "star") == 0) {
        write_star(out, m, ndev);
    } else {
        write_torus(out, m, dims, nd);
    }
    fprintf(out, "</platform>\n");
    return ferror(out) ? -1 : 0;
}
