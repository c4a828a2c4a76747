/* gin_args.c: pldsim-gin-perf's command line: the GIN suite's flags with
 * its defaults, its checks and their messages (nccl-tests'
 * src/device_api/gin/utils/args.cc), pldsim's common flags through
 * pld_parse_args, the two devices and the sweep.  A flag the suite takes
 * but pld has no counterpart for is refused in one line that says why. */
#include "gin.h"
#include "split_args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* --help; also on stderr when no program is named. */
static void usage(FILE *out)
{
    fputs("usage: pldsim-gin-perf PROGRAM [options]    (or pldsim-ginPutBW_perf [options] ...)\n"
          "  PROGRAM  ginPutBW_perf, ginGetBW_perf, ginSignalBW_perf, ginPutLatency_ping_perf,\n"
          "           ginPutLatency_pingPong_perf, ginGetLatency_ping_perf,\n"
          "           ginSignalLatency_ping_perf, ginSignalLatency_pingPong_perf\n"
          "The GIN suite's flags, with its meanings and defaults:\n"
          "  -b, --minbytes SIZE       smallest size (default 4; K, M, G: 2^10...)\n"
          "  -e, --maxbytes SIZE       largest size and the buffer's (default 4M)\n"
          "  -f N                      multiply the size by N each step (default 2)\n"
          "  -i SIZE                   add SIZE each step instead (default 0: use -f)\n"
          "  -w N                      warm-up iterations per size (default 50)\n"
          "  -n, --iters N             timed iterations per size (default 500)\n"
          "  -c, --num_ctas N          CTAs (default 1; only 1 here: see below)\n"
          "  -t, --num_threads N       threads per CTA (default 1; only 1 here)\n"
          "      --gin_op OP           put programs: put (default), put_signal; put_counter\n"
          "                            is refused (pld has no local completion counter)\n"
          "      --gin_rsm R           thread, cta or gpu (default gpu); named in the\n"
          "                            opening line, no effect on pld's calls\n"
          "      --gin_tx_depth N      queue depth (default 1024); pld's calls are\n"
          "                            synchronous, so no effect\n"
          "      --gin_skip_credit_check, --gin_strong_signal, --gin_ag, --gin_bd\n"
          "                            as the suite takes them; --gin_bd runs both ranks\n"
          "                            and sums their figures, the others change nothing\n"
          "      --local_mem_type, --remote_mem_type device (host is refused: pld's\n"
          "                            windows are device memory)\n"
          "pldsim's own:\n"
          "      --chunk SIZE          a put or get stages through UB SIZE bytes at a time\n"
          "                            (default 16K; pto-isa's TGET kernel uses 4K)\n"
          "      --sdma                puts go on an SDMA engine (put_async), each waited\n"
          "                            before the next, as the suite's flush waits\n"
          "Exactly 2 ranks (devices 0,1 unless --devices says otherwise).  Bandwidth in\n"
          "MiB/s (2^20 B/s), message rate in 10^6 messages/s, latency in us as the\n"
          "suite reports it: the time per iteration over 2.  Times are simulated by\n"
          "pldsim, not measured.  docs/gin-perf.md has more.\n\n"
          "pldsim's common flags follow (give the devices as --devices).\n",
          out);
    pld_print_common_usage(out);
}

/* The suite's refusals are "Error: ..." on stderr; here they carry the
 * program's name too, in one line, and the usage status. */
static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: Error: ", G.prog_name);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* A size as the suite reads one: a whole number, then at most one of
 * K, M, G (any case, binary).  -1 after a refusal naming `label`. */
static int64_t parse_gin_size(const char *v, const char *label)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    char what[96];
    snprintf(what, sizeof what, "%s: '%%s'", label);
    if (end == v || errno) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "invalid value for %s", what);
        return fail(fmt, v), -1;
    }
    long long unit = 1;
    if (*end) {
        unit = (*end == 'K' || *end == 'k')   ? 1LL << 10
               : (*end == 'M' || *end == 'm') ? 1LL << 20
               : (*end == 'G' || *end == 'g') ? 1LL << 30
                                              : 0;
        if (!unit || end[1]) {
            char fmt[160];
            snprintf(fmt, sizeof fmt, "malformed value for %s (only K/M/G suffixes are recognised)",
                     what);
            return fail(fmt, v), -1;
        }
    }
    if (n < 0) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%s must be non-negative (got %%s)", label);
        return fail(fmt, v), -1;
    }
    if (n > (1LL << 50) / unit) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "value for %s is too large: '%%s'", label);
        return fail(fmt, v), -1;
    }
    return n * unit;
}

/* A whole number as the suite reads one into *out; 2 after a refusal. */
static int parse_gin_int(const char *v, const char *label, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end || errno || n < INT_MIN || n > INT_MAX) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "invalid integer for %s: '%%s'", label);
        return fail(fmt, v);
    }
    *out = (int)n;
    return 0;
}

enum {
    OPT_OP = 256,
    OPT_RSM,
    OPT_DEPTH,
    OPT_SKIP,
    OPT_STRONG,
    OPT_AG,
    OPT_BD,
    OPT_LOCAL,
    OPT_REMOTE,
    OPT_DEVICES,
    OPT_CHUNK,
    OPT_SDMA
};
static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"iters", required_argument, 0, 'n'},
    {"num_ctas", required_argument, 0, 'c'},
    {"num_threads", required_argument, 0, 't'},
    {"gin_op", required_argument, 0, OPT_OP},
    {"gin_rsm", required_argument, 0, OPT_RSM},
    {"gin_tx_depth", required_argument, 0, OPT_DEPTH},
    {"gin_skip_credit_check", no_argument, 0, OPT_SKIP},
    {"gin_strong_signal", no_argument, 0, OPT_STRONG},
    {"gin_ag", no_argument, 0, OPT_AG},
    {"gin_bd", no_argument, 0, OPT_BD},
    {"local_mem_type", required_argument, 0, OPT_LOCAL},
    {"remote_mem_type", required_argument, 0, OPT_REMOTE},
    {"devices", required_argument, 0, OPT_DEVICES}, /* -d/--device's other name */
    {"chunk", required_argument, 0, OPT_CHUNK},
    {"sdma", no_argument, 0, OPT_SDMA},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* What the command line said, checked against each other afterwards. */
struct cmd {
    int op_given, step_given;
    const char *devices;
};

static int take_option(int c, const char *v, const char *flag, void *ctx)
{
    struct cmd *cmd = ctx;
    (void)flag;
    switch (c) {
    case 'b':
        return (G.minb = parse_gin_size(v, "-b/--minbytes")) < 0 ? 2 : 0;
    case 'e':
        return (G.maxb = parse_gin_size(v, "-e/--maxbytes")) < 0 ? 2 : 0;
    case 'i':
        cmd->step_given = 1;
        return (G.stepb = parse_gin_size(v, "-i")) < 0 ? 2 : 0;
    case 'f': {
        int f;
        if (parse_gin_int(v, "-f", &f))
            return 2;
        G.factor = f;
        return 0;
    }
    case 'w':
        return parse_gin_int(v, "-w", &G.warmup);
    case 'n':
        return parse_gin_int(v, "-n/--iters", &G.iters);
    case 'c':
        return parse_gin_int(v, "-c/--num_ctas", &G.ctas);
    case 't':
        return parse_gin_int(v, "-t/--num_threads", &G.threads);
    case OPT_DEPTH:
        return parse_gin_int(v, "--gin_tx_depth", &G.tx_depth);
    case OPT_OP: {
        static const char *const ops[] = {"put", "put_signal", "put_counter"};
        for (int k = 0; k < 3; k++)
            if (strcmp(v, ops[k]) == 0) {
                G.op = (enum gin_op)k;
                cmd->op_given = 1;
                return 0;
            }
        return fail("invalid value for --gin_op: '%s' (expected put, put_signal, or put_counter)",
                    v);
    }
    case OPT_RSM:
        if (strcmp(v, "thread") && strcmp(v, "cta") && strcmp(v, "gpu"))
            return fail("invalid value for --gin_rsm: '%s' (expected thread, cta, or gpu)", v);
        G.rsm = v;
        return 0;
    case OPT_DEVICES:
        cmd->devices = v;
        return 0;
    case OPT_CHUNK:
        if ((G.chunk = parse_gin_size(v, "--chunk")) < 0)
            return 2;
        return G.chunk > 0 ? 0 : fail("--chunk must be positive%s", "");
    case OPT_SDMA:
        G.sdma = 1;
        return 0;
    case OPT_SKIP:
        G.skip_credit = 1;
        return 0;
    case OPT_STRONG:
        G.strong = 1;
        return 0;
    case OPT_AG:
        G.aggregate = 1;
        return 0;
    case OPT_BD:
        G.bidir = 1;
        return 0;
    case OPT_LOCAL:
    case OPT_REMOTE: {
        const char *which = c == OPT_LOCAL ? "--local_mem_type" : "--remote_mem_type";
        char fmt[128];
        if (strcmp(v, "device") == 0)
            return 0;
        if (strcmp(v, "host") == 0) {
            snprintf(fmt, sizeof fmt, "%s host: pld's windows are device memory%%s", which);
            return fail(fmt, "");
        }
        snprintf(fmt, sizeof fmt, "invalid value for %s: '%%s' (expected device or host)", which);
        return fail(fmt, v);
    }
    default:
        return 0;
    }
}

/* The checks of args.cc and of the program's capabilities, in its order. */
static int check_settings(const struct cmd *cmd)
{
    char a[32], b[32];
    if (G.minb <= 0)
        return fail("--minbytes must be positive%s", "");
    if (G.maxb <= 0)
        return fail("--maxbytes must be positive%s", "");
    snprintf(a, sizeof a, "%lld", (long long)G.minb);
    snprintf(b, sizeof b, "%lld", (long long)G.maxb);
    if (G.minb > G.maxb) {
        char fmt[96];
        snprintf(fmt, sizeof fmt, "--minbytes (%%s) must be <= --maxbytes (%s)", b);
        return fail(fmt, a);
    }
    if (G.minb % 4)
        return fail("--minbytes (%s) must be a multiple of sizeof(int) (4)", a);
    if (G.maxb % 4)
        return fail("--maxbytes (%s) must be a multiple of sizeof(int) (4)", b);
    if (G.stepb % 4) {
        snprintf(a, sizeof a, "%lld", (long long)G.stepb);
        return fail("-i stepbytes (%s) must be a multiple of sizeof(int) (4)", a);
    }
    if (!G.stepb && G.factor <= 1)
        return fail("-f size factor must be > 1 when -i is not specified%s", "");
    if (G.warmup < 0)
        return fail("-w warmup_iters must be >= 0%s", "");
    if (G.iters <= 0)
        return fail("-n/--iters must be > 0%s", "");
    if (G.ctas <= 0)
        return fail("-c/--num_ctas must be > 0%s", "");
    if (G.threads <= 0)
        return fail("-t/--num_threads must be > 0%s", "");
    if (G.tx_depth <= 0)
        return fail("--gin_tx_depth must be > 0%s", "");
    const struct gin_prog *p = G.prog;
    if (p->throughput && strcmp(G.rsm, "thread") == 0)
        return fail("--gin_rsm thread is not supported by throughput tests (expected cta or "
                    "gpu)%s",
                    "");
    if (cmd->op_given && !p->op_mask)
        return fail("--gin_op is only supported by the put benchmarks%s", "");
    if (p->op_mask && !(p->op_mask & (1u << G.op)))
        return fail("--gin_op %s is not supported by this benchmark (accepted: put put_signal)",
                    G.op == GIN_PUT_COUNTER ? "put_counter" : "put");
    if (!p->op_mask)
        G.op = p->fixed_op;
    if (G.strong && G.op != GIN_SIGNAL && G.op != GIN_PUT_SIGNAL)
        return fail("--gin_strong_signal is only supported by the signal tests and by put tests "
                    "run with --gin_op put_signal%s",
                    "");
    if (!p->throughput && G.aggregate)
        return fail("--gin_ag is only supported by throughput tests%s", "");
    if (!p->throughput && G.bidir)
        return fail("--gin_bd is only supported by throughput (bandwidth) tests%s", "");
    if (!p->throughput && (G.ctas != 1 || G.threads != 1))
        return fail("Setting > 1 cta or thread is only supported by throughput tests%s", "");
    if (G.aggregate && G.threads % 32) {
        snprintf(a, sizeof a, "%d", G.threads);
        return fail("--gin_ag requires -t/--num_threads to be a multiple of 32 (got %s)", a);
    }
    /* what the suite takes and pld cannot do */
    if (G.op == GIN_PUT_COUNTER)
        return fail("--gin_op put_counter: pld has no local completion counter (its put "
                    "returns once the bytes have landed)%s",
                    "");
    if (p->ping_pong && G.op == GIN_PUT)
        return fail("--gin_op put: the suite's plain ping-pong polls the payload's last int, "
                    "and pld waits only on INT32 signal cells; run --gin_op put_signal%s",
                    "");
    if (G.ctas != 1 || G.threads != 1)
        return fail("-c and -t above 1: a pld kernel issues its puts one after another, "
                    "from one core%s",
                    "");
    if (G.sdma && G.op != GIN_PUT && G.op != GIN_PUT_SIGNAL)
        return fail("--sdma: pld's SDMA engine takes puts (put_async); it has no get or "
                    "signal of its own%s",
                    "");
    return 0;
}

/* The suite's sweep: from -b, plus -i or times -f, while at most -e and
 * growing. */
static int make_sweep(void)
{
    int cap = 64;
    G.sizes = malloc((size_t)cap * sizeof *G.sizes);
    if (!G.sizes)
        return fail("out of memory%s", "");
    for (int64_t s = G.minb; s <= G.maxb;) {
        if (G.nsizes == cap) {
            int64_t *more =
                cap < (1 << 20) ? realloc(G.sizes, (size_t)(2 * cap) * sizeof *more) : NULL;
            if (!more)
                return fail("more than 2^20 sizes from -b to -e%s; use a larger -i or -f", "");
            G.sizes = more;
            cap *= 2;
        }
        G.sizes[G.nsizes++] = s;
        /* the next size would pass -e: stop before computing it, which
         * could overflow */
        if (G.stepb ? s > G.maxb - G.stepb : s > G.maxb / G.factor)
            break;
        s = G.stepb ? s + G.stepb : s * G.factor;
    }
    /* a signal cell is INT32: every notify of the run adds 1 to one */
    int notifies = G.op == GIN_SIGNAL || G.op == GIN_PUT_SIGNAL;
    if (notifies && (double)G.nsizes * ((double)G.warmup + G.iters) * 2 > (double)INT32_MAX)
        return fail("%s: the run's notifies would overflow pld's INT32 signal cell; give "
                    "fewer sizes or iterations",
                    "-n and -w");
    return 0;
}

int gin_setup(int argc, char **argv, pld_config *cfg)
{
    pld_config_init(cfg);
    cfg->summary = 0;
    cfg->no_data = 1; /* the suite checks no data */
    G.minb = 4;
    G.maxb = 4 << 20;
    G.factor = 2;
    G.warmup = 50;
    G.iters = 500;
    G.ctas = G.threads = 1;
    G.tx_depth = 1024;
    G.rsm = "gpu";
    G.chunk = 16384;
    G.op = GIN_PUT;
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (strncmp(base, "pldsim-", 7) == 0)
        base += 7;
    int first = 1;
    static char name[80];
    for (const struct gin_prog *p = gin_progs; p->name; p++)
        if (strcmp(base, p->name) == 0)
            G.prog = p;
    if (!G.prog && argc > 1 && argv[1][0] != '-') {
        const char *want = strncmp(argv[1], "pldsim-", 7) == 0 ? argv[1] + 7 : argv[1];
        for (const struct gin_prog *p = gin_progs; p->name; p++)
            if (strcmp(want, p->name) == 0)
                G.prog = p;
        first = 2;
        if (!G.prog) {
            G.prog_name = "pldsim-gin-perf";
            return fail("unknown program '%s'; expected ginPutBW_perf, ginGetBW_perf, "
                        "ginSignalBW_perf, ginPutLatency_ping_perf, ginPutLatency_pingPong_perf, "
                        "ginGetLatency_ping_perf, ginSignalLatency_ping_perf or "
                        "ginSignalLatency_pingPong_perf",
                        argv[1]);
        }
    }
    snprintf(name, sizeof name, "pldsim-%s", G.prog ? G.prog->name : "gin-perf");
    G.prog_name = name;
    struct cmd cmd = {0};
    int help = 0, rc = split_args(argc, argv, first, "-:hb:e:f:i:w:n:c:t:", long_opts, take_option,
                                  &cmd, cfg, &help, G.prog_name, "Error: unknown option '%s'",
                                  "Error: unexpected positional argument: '%s'");
    if (rc < 0 && help) {
        usage(stdout);
        rc = 0;
    }
    if (rc < 0 && !G.prog) {
        usage(stderr);
        rc = 2;
    }
    if (rc >= 0)
        return rc;
    if ((rc = check_settings(&cmd)) != 0)
        return rc;
    if (cmd.devices && pld_config_set_devices(cfg, cmd.devices))
        return 2;
    if (cfg->ndevices != 2) {
        char got[16];
        snprintf(got, sizeof got, "%d", cfg->ndevices);
        return fail("GIN perf benchmarks require exactly 2 MPI ranks (got %s)", got);
    }
    return make_sweep() ? 2 : -1;
}
