/* shmem_args.c: pldsim-shmem-perf's command line: the perftests' flags
 * with their defaults (NVSHMEM's perftest/common/utils.cu read_args and
 * perftest/README.md), pldsim's common flags through pld_parse_args, the
 * two PEs and the sweep.  Where the perftests let a bad value pass
 * silently (an unknown suffix, a negative number, an unknown datatype or
 * scope, an unknown option, after which they run anyway), this refuses it
 * in one line. */
#include "shmem.h"
#include "split_args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: pldsim-shmem-perf PROGRAM [options]    (or pldsim-shmem_put_bw [options] ...)\n"
          "  PROGRAM  shmem_put_bw, shmem_get_bw, shmem_put_latency, shmem_get_latency,\n"
          "           shmem_put_ping_pong_latency, shmem_put_signal_ping_pong_latency,\n"
          "           shmem_signal_ping_pong_latency\n"
          "The perftests' flags, with their meanings and defaults (numbers take k, m, g,\n"
          "t: 2^10...):\n"
          "  -b, --min_size N          smallest size in bytes (default 4)\n"
          "  -e, --max_size N          largest size and the buffer's (default 4m)\n"
          "  -f, --step N              multiply the size by N each step (default 2)\n"
          "  -n, --iters N             timed iterations per size (default 10)\n"
          "  -w, --warmup_iters N      untimed iterations per size first (default 5)\n"
          "  -c, --ctas N, -t, --threads_per_cta N  (default 32 and 256): the grid that\n"
          "                            shares a put; pld puts the whole size from one core\n"
          "  -s, --scope S             thread, warp, block or all_scopes (default)\n"
          "  -d, --datatype T, -o, --reduce_op OP, -a, --atomic_op OP, -i, --stride N,\n"
          "  -m, --mem_handle_type 0|1|2, --dir read|write, --issue on_stream|host,\n"
          "  --cudagraph, --mmap, --egm, --report_msgrate\n"
          "                            checked, and used by none of these programs\n"
          "      --bidir               both PEs move data; the figures are summed\n"
          "pldsim's own:\n"
          "      --chunk SIZE          a put or get stages through UB SIZE bytes at a time\n"
          "                            (default 16k)\n"
          "Exactly 2 PEs (devices 0,1 unless --devices says otherwise).  Bandwidth in\n"
          "GB/sec (10^9 B/s); latency in us per iteration, not halved, so a ping-pong's\n"
          "is the full round trip.  Times are simulated by pldsim, not measured.\n"
          "docs/shmem-perf.md has more.\n\n"
          "pldsim's common flags follow; here -d is the perftests' datatype, so give the\n"
          "devices as --devices.\n",
          out);
    pld_print_common_usage(out);
}

static int fail(const char *fmt, const char *arg)
{
    return usage_error(M.prog_name, fmt, arg);
}

/* A number as the perftests' atol_scaled reads one: a decimal, then at most
 * one of k, m, g, t (any case, binary), rounded up.  -1 if `v` is not one
 * or not within [lo, 2^50]. */
static int64_t parse_scaled(const char *v, int64_t lo)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !isfinite(x))
        return -1;
    if (*end) {
        const char *units = "kmgt";
        const char *u = strchr(units, *end | 0x20);
        if (!u || !*u || end[1])
            return -1;
        x *= ldexp(1.0, 10 * (int)(u - units + 1));
    }
    x = ceil(x);
    return x >= (double)lo && x <= 0x1p50 ? (int64_t)x : -1;
}

/* `v` one of the words of `list` (NULL-terminated)? */
static int one_of(const char *v, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(v, *list) == 0)
            return 1;
    return 0;
}

enum {
    OPT_BIDIR = 256,
    OPT_MSGRATE,
    OPT_DIR,
    OPT_ISSUE,
    OPT_GRAPH,
    OPT_MMAP,
    OPT_EGM,
    OPT_DEVICES,
    OPT_CHUNK
};
static const struct option long_opts[] = {
    {"min_size", required_argument, 0, 'b'},
    {"max_size", required_argument, 0, 'e'},
    {"step", required_argument, 0, 'f'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"ctas", required_argument, 0, 'c'},
    {"threads_per_cta", required_argument, 0, 't'},
    {"datatype", required_argument, 0, 'd'},
    {"reduce_op", required_argument, 0, 'o'},
    {"scope", required_argument, 0, 's'},
    {"atomic_op", required_argument, 0, 'a'},
    {"stride", required_argument, 0, 'i'},
    {"mem_handle_type", required_argument, 0, 'm'},
    {"bidir", no_argument, 0, OPT_BIDIR},
    {"report_msgrate", no_argument, 0, OPT_MSGRATE},
    {"dir", required_argument, 0, OPT_DIR},
    {"issue", required_argument, 0, OPT_ISSUE},
    {"cudagraph", no_argument, 0, OPT_GRAPH},
    {"mmap", no_argument, 0, OPT_MMAP},
    {"egm", no_argument, 0, OPT_EGM},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"chunk", required_argument, 0, OPT_CHUNK},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* The options that take a number: its least value and where it goes. */
static const struct {
    int c;
    int64_t lo;
    int64_t *to;
} number_opts[] = {
    {'b', 1, &M.minb},       {'e', 1, &M.maxb},        {'f', 2, &M.step},    {'n', 1, &M.iters},
    {'w', 0, &M.warmup},     {'c', 1, &M.ctas},        {'t', 1, &M.threads}, {'i', 1, &M.stride},
    {'m', 0, &M.mem_handle}, {OPT_CHUNK, 1, &M.chunk},
};

static int take_option(int c, const char *v, const char *flag, void *ctx)
{
    const char **devices = ctx;
    static const char *const types[] = {
        "int",  "long",  "longlong", "ulonglong", "size",   "ptrdiff", "float", "double",
        "uint", "int32", "int64",    "uint32",    "uint64", "fp16",    "bf16",  NULL};
    static const char *const scopes[] = {"thread", "warp", "block", "all_scopes", NULL};
    static const char *const reduce_ops[] = {"sum", "prod", "min", "max", "and", "or", "xor", NULL};
    static const char *const atomic_ops[] = {
        "inc", "fetch_inc", "add", "fetch_add", "and",          "fetch_and", "or", "fetch_or",
        "xor", "fetch_xor", "set", "swap",      "compare_swap", "fetch",     NULL};
    static const char *const dirs[] = {"read", "write", NULL};
    static const char *const issues[] = {"on_stream", "host", NULL};
    for (size_t k = 0; k < sizeof number_opts / sizeof number_opts[0]; k++)
        if (number_opts[k].c == c) {
            int64_t n = parse_scaled(v, number_opts[k].lo);
            char fmt[160];
            snprintf(fmt, sizeof fmt,
                     "%s '%%s': expected a number from %lld (k, m, g, t: 2^10...)%s", flag,
                     (long long)number_opts[k].lo,
                     c == 'f' ? "; the sizes grow by this factor" : "");
            if (n < 0 || (c == 'm' && n > 2))
                return fail(c == 'm' ? "-m/--mem_handle_type '%s': expected 0, 1 or 2" : fmt, v);
            *number_opts[k].to = n;
            return 0;
        }
    switch (c) {
    case 'd':
        if (!one_of(v, types))
            return fail("-d/--datatype '%s': expected int, long, longlong, ulonglong, size, "
                        "ptrdiff, float, double, uint, int32, int64, uint32, uint64, fp16 or bf16",
                        v);
        M.datatype = v;
        return 0;
    case 's':
        if (!one_of(v, scopes))
            return fail("-s/--scope '%s': expected thread, warp, block or all_scopes", v);
        M.scope = v;
        return 0;
    case 'o':
        if (!one_of(v, reduce_ops))
            return fail("-o/--reduce_op '%s': expected sum, prod, min, max, and, or or xor", v);
        M.reduce_op = v;
        return 0;
    case 'a':
        if (!one_of(v, atomic_ops))
            return fail("-a/--atomic_op '%s': expected an NVSHMEM atomic (inc, add, set, swap, "
                        "fetch_add, ...)",
                        v);
        M.atomic_op = v;
        return 0;
    case OPT_DIR:
        if (!one_of(v, dirs))
            return fail("--dir '%s': expected read or write", v);
        M.dir = v;
        return 0;
    case OPT_ISSUE:
        if (!one_of(v, issues))
            return fail("--issue '%s': expected on_stream or host", v);
        M.issue = v;
        return 0;
    case OPT_BIDIR:
        M.bidir = 1;
        return 0;
    case OPT_MSGRATE:
        M.msgrate = 1;
        return 0;
    case OPT_GRAPH:
        M.cudagraph = 1;
        return 0;
    case OPT_MMAP:
        M.mmap = 1;
        return 0;
    case OPT_EGM:
        M.egm = 1;
        return 0;
    case OPT_DEVICES:
        *devices = v;
        return 0;
    default:
        return 0;
    }
}

int shmem_setup(int argc, char **argv, pld_config *cfg)
{
    pld_config_init(cfg);
    cfg->summary = 0;
    cfg->no_data = 1; /* the perftests check no data */
    M.minb = 4;
    M.maxb = 4 << 20;
    M.step = 2;
    M.iters = 10;
    M.warmup = 5;
    M.ctas = 32;
    M.threads = 256;
    M.stride = 1;
    M.datatype = "int";
    M.reduce_op = "sum";
    M.scope = "all_scopes";
    M.atomic_op = "inc";
    M.dir = "write";
    M.issue = "on_stream";
    M.chunk = 16384;
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int first = 1;
    static char name[80];
    M.prog_name = "pldsim-shmem-perf";
    for (int pass = 0; pass < 2 && !M.prog; pass++) {
        const char *want = pass == 0 ? base : argc > 1 && argv[1][0] != '-' ? argv[1] : "";
        if (strncmp(want, "pldsim-", 7) == 0)
            want += 7;
        for (const struct shmem_prog *p = shmem_progs; p->name; p++)
            if (strcmp(want, p->name) == 0)
                M.prog = p;
        if (pass == 1 && *want) {
            if (!M.prog)
                return fail("unknown program '%s'; expected shmem_put_bw, shmem_get_bw, "
                            "shmem_put_latency, shmem_get_latency, shmem_put_ping_pong_latency, "
                            "shmem_put_signal_ping_pong_latency or "
                            "shmem_signal_ping_pong_latency",
                            argv[1]);
            first = 2;
        }
    }
    snprintf(name, sizeof name, "pldsim-%s", M.prog ? M.prog->name : "shmem-perf");
    M.prog_name = name;
    const char *devices = NULL;
    int help = 0, rc = split_args(argc, argv, first, "-:hb:e:f:n:w:c:t:d:o:s:a:i:m:", long_opts,
                                  take_option, &devices, cfg, &help, M.prog_name,
                                  "unknown option '%s'", "unexpected argument '%s'");
    if (rc < 0 && help) {
        usage(stdout);
        rc = 0;
    }
    if (rc < 0 && !M.prog) {
        usage(stderr);
        rc = 2;
    }
    if (rc >= 0)
        return rc;
    if (M.minb > M.maxb) /* the perftests assert it */
        return fail("-b/--min_size is larger than -e/--max_size%s", "");
    enum shmem_kind k = M.prog->kind;
    int flags = k == SHMEM_PP_PUT || k == SHMEM_PP_PUT_SIG || k == SHMEM_PP_SIG;
    if (flags && (M.iters > INT32_MAX - 1 || M.warmup > INT32_MAX - 1))
        return fail("%s: a ping-pong's flag is pld's INT32 cell, set to the round's number; "
                    "give fewer than 2^31 - 1 iterations",
                    "-n or -w");
    if (M.bidir && M.prog->kind != SHMEM_PUT_BW && M.prog->kind != SHMEM_GET_BW)
        return fail("--bidir: only shmem_put_bw and shmem_get_bw move data both ways%s", "");
    if (devices && pld_config_set_devices(cfg, devices))
        return 2;
    if (cfg->ndevices != 2) {
        char got[16];
        snprintf(got, sizeof got, "%d", cfg->ndevices);
        return fail("This test requires exactly two processes (got %s)", got);
    }
    int cap = 64;
    if (!(M.sizes = malloc((size_t)cap * sizeof *M.sizes)))
        return fail("out of memory%s", "");
    for (int64_t s = M.minb; s <= M.maxb; s *= M.step) {
        if (M.nsizes == cap && !(M.sizes = realloc(M.sizes, (size_t)(cap *= 2) * sizeof *M.sizes)))
            return fail("out of memory%s", "");
        M.sizes[M.nsizes++] = s;
        /* the signal ping-pong moves no data: one row, whatever the sizes */
        if (s > M.maxb / M.step || M.prog->kind == SHMEM_PP_SIG)
            break;
    }
    return -1;
}
