/* pldsim-gin-perf: nccl-tests' device-API GIN programs (ginPutBW_perf,
 * ginPutLatency_pingPong_perf, ...) on pld's put, get, notify and wait,
 * with the suite's flags, sweep and tables, so that a user of that suite
 * reads pld's one-sided figures in the form they know.  Usage:
 *
 *   pldsim-gin-perf PROGRAM [GIN flags] [pldsim flags]
 *   pldsim-ginPutBW_perf [GIN flags] [pldsim flags]    (installed link)
 *
 * The suite (src/device_api/gin: README.md, utils/common.cc) times -n
 * iterations of rank 0's kernel (and rank 1's with --gin_bd) after -w
 * untimed ones and a barrier, size by size.  Bandwidth is
 * messages x size / 2^20 per second, the message rate messages / 10^6 per
 * second, and the latency the time per iteration over 2, for ping and
 * ping-pong alike.  Times here are simulated.  docs/gin-perf.md has the
 * details and the mapping to pld's calls. */
#include "gin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gin_state G;

#define PUT_OPS ((1u << GIN_PUT) | (1u << GIN_PUT_SIGNAL) | (1u << GIN_PUT_COUNTER))
const struct gin_prog gin_progs[] = {
    {"ginPutBW_perf", "GIN %s BANDWIDTH/MESSAGE RATE", 1, 0, GIN_PUT, PUT_OPS},
    {"ginGetBW_perf", "GIN GET BANDWIDTH/MESSAGE RATE", 1, 0, GIN_GET, 0},
    {"ginSignalBW_perf", "GIN SIGNAL MESSAGE RATE", 1, 0, GIN_SIGNAL, 0},
    {"ginPutLatency_ping_perf", "GIN %s PING LATENCY", 0, 0, GIN_PUT, PUT_OPS},
    {"ginPutLatency_pingPong_perf", "GIN %s PING-PONG LATENCY", 0, 1, GIN_PUT,
     (1u << GIN_PUT) | (1u << GIN_PUT_SIGNAL)},
    {"ginGetLatency_ping_perf", "GIN GET PING LATENCY", 0, 0, GIN_GET, 0},
    {"ginSignalLatency_ping_perf", "GIN SIGNAL PING LATENCY", 0, 0, GIN_SIGNAL, 0},
    {"ginSignalLatency_pingPong_perf", "GIN SIGNAL PING-PONG LATENCY", 0, 1, GIN_SIGNAL, 0},
    {NULL, NULL, 0, 0, 0, 0},
};

/* The opening line: the program's name and the settings that shape it. */
static void print_opening(void)
{
    static const char *const op_names[] = {"PUT", "PUT_SIGNAL", "PUT_COUNTER"};
    char title[96];
    snprintf(title, sizeof title, G.prog->title, op_names[G.op <= GIN_PUT_COUNTER ? G.op : 0]);
    printf("# %s: rsm=%s%s%s%s%s, local mem type=device, remote mem type=device", title, G.rsm,
           G.strong ? ", strong_signal" : "", G.skip_credit ? ", skip_credit_check" : "",
           G.aggregate ? ", aggregate_requests" : "", G.bidir ? ", bidirectional" : "");
    if (G.prog->throughput)
        printf(", ctas=%d, threads=%d", G.ctas, G.threads);
    printf("\n");
}

static void print_table(void)
{
    if (G.prog->throughput)
        printf("%12s  %14s  %18s  %20s\n", "Size(B)", "Num_Messages", "Bandwidth(MiB/s)",
               "Message_Rate(MPPS)");
    else
        printf("%12s  %8s  %14s\n", "Size(B)", "Iters", "Latency(us)");
    for (int k = 0; k < G.nsizes; k++) {
        double s = G.elapsed[k];
        if (!G.prog->throughput) {
            printf("%12zu  %8d  %14.3f\n", (size_t)G.sizes[k], G.iters, s * 1e6 / G.iters / 2);
            continue;
        }
        double messages = (double)G.iters * G.ctas * G.threads;
        double payload = G.op == GIN_SIGNAL ? 0 : (double)G.sizes[k];
        double mib = s > 0 ? messages * payload / 1048576.0 / s : 0;
        double mpps = s > 0 ? messages / 1e6 / s : 0;
        if (G.bidir) { /* the suite sums both ranks' figures */
            double s1 = G.elapsed1[k];
            mib += s1 > 0 ? messages * payload / 1048576.0 / s1 : 0;
            mpps += s1 > 0 ? messages / 1e6 / s1 : 0;
            messages *= 2;
        }
        printf("%12zu  %14.0f  %18.3f  %20.3f\n", (size_t)G.sizes[k], messages, mib, mpps);
    }
}

int main(int argc, char **argv)
{
    pld_config cfg;
    int rc = gin_setup(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    G.elapsed = calloc((size_t)G.nsizes, sizeof *G.elapsed);
    G.elapsed1 = calloc((size_t)G.nsizes, sizeof *G.elapsed1);
    if (!G.elapsed || !G.elapsed1) {
        fprintf(stderr, "%s: out of memory for %d sizes\n", G.prog_name, G.nsizes);
        return 1;
    }
    fprintf(stderr, "%s: 2 ranks on the %s backend%s%s; times are %s\n", G.prog_name, cfg.backend,
            cfg.topology ? ", topology " : "", cfg.topology ? cfg.topology : "",
            strcmp(cfg.backend, "sim") == 0 ? "simulated" : "measured");
    rc = pld_run(&cfg, gin_host, NULL);
    if (rc)
        return pld_exit_code(rc); /* pld_run has said why */
    print_opening();
    print_table();
    return 0;
}
