/* hccl_args.c: pldsim-hccl-test's command line: hccl_test's flags with its
 * defaults and its checks (CANN oam-tools' docs/zh/hccl_test/
 * cmdline_options_desc.md), pldsim's own, and the common ones passed on to
 * pld_parse_args; then the devices and hccl_test's sweep of sizes. */
#include "hccl.h"
#include "size_arg.h"
#include "split_args.h"
#include "usage_error.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* --help; also on stderr when no program is named. */
static void usage(FILE *out)
{
    fputs("usage: pldsim-hccl-test PROGRAM [options]    (or pldsim-all_reduce_test [options] ...)\n"
          "  PROGRAM  all_reduce_test, all_gather_test, reduce_scatter_test, broadcast_test,\n"
          "           alltoall_test (hccl_test's reduce_test, scatter_test, alltoallv_test,\n"
          "           alltoallvc_test, all_gatherv_test and reduce_scatterv_test are refused:\n"
          "           pld has no such builtin)\n"
          "hccl_test's flags, with its meanings and defaults:\n"
          "  -b, --minbytes SIZE       smallest data size (default 64M; K, M, G: 2^10...)\n"
          "  -e, --maxbytes SIZE       largest data size (default 64M)\n"
          "  -i, --stepbytes N         add N bytes each step (default (e - b) / 10)\n"
          "  -f, --stepfactor X        multiply the size by X > 1 each step (over -i)\n"
          "  -o, --op OP               sum (default), prod, max, min\n"
          "  -d, --datatype T          fp32 (default) or fp16 (hccl_test's other types are\n"
          "                            refused: pld's builtins take these two)\n"
          "  -r, --root R              broadcast_test's root rank (default 0)\n"
          "  -n, --iters N             timed calls per size (default 20)\n"
          "  -w, --warmup_iters N      untimed calls per size first (default 10)\n"
          "  -c, --check 0|1|2         check the results (default 1; 2 as 1 here)\n"
          "  -p, --npus N              NPUs per node, 1 to 16 (default 8, an a2a3 box)\n"
          "  -z, -m, -s, -t 0|1, -a MODE  zero copy, symmetric memory, NSLB, device-only\n"
          "                            timing, accelerator: taken and ignored, each with one\n"
          "                            line on stderr (the simulator has no such path)\n"
          "pldsim's own:\n"
          "      --ranks N             ranks in all, as mpirun -n N (default -p's N); a\n"
          "                            whole number of nodes of -p; devices 0..N-1\n"
          "      --devices LIST        device ids instead: 0-7 or 0,2,4,6\n"
          "      --jobs N              simulate N sizes at once (default: one per core)\n"
          "      --all-iterations      simulate every call; by default, once calls repeat\n"
          "                            exactly, the rest are derived (simulator only)\n"
          "The table is hccl_test's: data_size(Bytes), aveg_time(us) (rank 0's time per\n"
          "call), alg_bandwidth(GB/s) (the operator's buffer over that time, 10^9 B/s)\n"
          "and check_result (success, failed, or NULL when unchecked).  Times are\n"
          "simulated by pldsim, not measured.  docs/hccl-test.md has more.\n\n"
          "pldsim's common flags follow; here -p and -d are hccl_test's, so give the\n"
          "platform as --platform and the devices as --devices.\n",
          out);
    pld_print_common_usage(out);
}

/* One refusal line on stderr, "<prog>: <fmt with arg> (see --help)"; 2. */
static int fail(const char *fmt, const char *arg)
{
    return usage_error(H.prog_name, fmt, arg);
}

/* hccl_test's sizes: a whole number (C's base prefixes as strtol reads
 * them), then at most one of K, M, G (any case, binary multiples); 0 is a
 * size.  -1 if `s` is not one, or is above SIZE_ARG_MAX. */
static int64_t parse_hccl_size(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (end == s || errno || v < 0)
        return -1;
    long long unit = 1;
    if (*end) {
        switch (*end) {
        case 'K':
        case 'k':
            unit = 1LL << 10;
            break;
        case 'M':
        case 'm':
            unit = 1LL << 20;
            break;
        case 'G':
        case 'g':
            unit = 1LL << 30;
            break;
        default:
            return -1;
        }
        if (end[1])
            return -1;
    }
    if (v > SIZE_ARG_MAX / unit)
        return -1;
    return (int64_t)(v * unit);
}

/* A whole decimal number in [lo, hi] (hccl_test takes digits only); -1 if not. */
static int parse_count(const char *s, long lo, long hi, long *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

enum { OPT_RANKS = 256, OPT_DEVICES, OPT_JOBS, OPT_ALL_ITERATIONS };
static const struct option long_opts[] = {
    {"op", required_argument, 0, 'o'},
    {"datatype", required_argument, 0, 'd'},
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"stepbytes", required_argument, 0, 'i'},
    {"stepfactor", required_argument, 0, 'f'},
    {"root", required_argument, 0, 'r'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"npus", required_argument, 0, 'p'},
    {"zero_copy", required_argument, 0, 'z'},
    {"symmetric_memory", required_argument, 0, 'm'},
    {"nslb", required_argument, 0, 's'},
    {"onlydevicetim", required_argument, 0, 't'},
    {"accelerator", required_argument, 0, 'a'},
    {"help", no_argument, 0, 'h'},
    {"ranks", required_argument, 0, OPT_RANKS},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"device", required_argument, 0, OPT_DEVICES}, /* the common flag's name */
    {"jobs", required_argument, 0, OPT_JOBS},
    {"all-iterations", no_argument, 0, OPT_ALL_ITERATIONS},
    {0, 0, 0, 0},
};

/* What the command line gave, before the devices are known. */
struct cmd {
    int64_t minb, maxb, stepb;
    double factor;
    int step_set, factor_set, op_set, root;
    const char *devices;
};

/* hccl_test's switches for paths of the hardware that the simulator has
 * not: their values are checked, then ignored with one line. */
static int take_switch(int c, const char *v)
{
    static const char *const what[] = {"z", "zero copy",           "m", "symmetric memory",
                                       "s", "NSLB load balancing", "t", "device-only timing"};
    if (c == 'a') {
        static const char *const modes[] = {"default",   "aicpu_ts", "aiv",     "ccu_ms",
                                            "ccu_sched", "host_ts",  "aiv_only"};
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (strcmp(v, modes[k]) == 0) {
                fprintf(stderr,
                        "%s: ignoring -a %s: the accelerator (Ascend 950's) does not change "
                        "the simulation\n",
                        H.prog_name, v);
                return 0;
            }
        return fail("[-a,--accelerator] '%s' is invalid; expected default, aicpu_ts, aiv, "
                    "ccu_ms, ccu_sched, host_ts or aiv_only",
                    v);
    }
    for (size_t k = 0; k < sizeof what / sizeof what[0]; k += 2)
        if (what[k][0] == c) {
            char fmt[160];
            snprintf(fmt, sizeof fmt, "[-%c] '%%s' is invalid; expected 0 or 1 (%s)", c,
                     what[k + 1]);
            if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
                return fail(fmt, v);
            if (v[0] == '1')
                fprintf(stderr, "%s: ignoring -%c 1: %s does not change the simulation\n",
                        H.prog_name, c, what[k + 1]);
            return 0;
        }
    return 0;
}

/* One of hccl_test's flags or ours; 0, or the exit status of a refusal. */
static int take_option(int c, const char *v, const char *flag, void *ctx)
{
    struct cmd *cmd = ctx;
    (void)flag;
    long n;
    switch (c) {
    case 'b':
    case 'e':
        if ((c == 'b' ? (cmd->minb = parse_hccl_size(v)) : (cmd->maxb = parse_hccl_size(v))) < 0)
            return fail(c == 'b' ? "invalid size '%s' for [-b,--minbytes]; expected bytes, with "
                                   "an optional K, M or G"
                                 : "invalid size '%s' for [-e,--maxbytes]; expected bytes, with "
                                   "an optional K, M or G",
                        v);
        return 0;
    case 'i':
        if (parse_count(v, 0, LONG_MAX, &n))
            return fail("[-i,--stepbytes] '%s' is invalid; expected a whole number of bytes", v);
        if (n == 0)
            return fail("[-i,--stepbytes] %s repeats -b's size forever, as hccl_test does; a "
                        "simulation must end, so give -e equal to -b instead",
                        v);
        cmd->stepb = n;
        cmd->step_set = 1;
        return 0;
    case 'f': {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !(x > 1.0) || x > 1e6)
            return fail("[-f,--stepfactor] '%s' is invalid; it must be greater than 1.0", v);
        cmd->factor = x;
        cmd->factor_set = 1;
        return 0;
    }
    case 'o': {
        static const char *const ops[] = {"sum", "max", "min", "prod"};
        S.op = 0;
        for (int k = 0; k < 4; k++)
            if (strcmp(v, ops[k]) == 0)
                S.op = (pld_reduce_op)(k + 1);
        cmd->op_set = 1;
        return S.op ? 0 : fail("[-o,--op] '%s' is invalid; expected sum, prod, max or min", v);
    }
    case 'd': {
        static const char *const others[] = {"int8",    "int16",   "int32",   "int64", "uint64",
                                             "uint8",   "uint16",  "uint32",  "fp64",  "bfp16",
                                             "fp8e5m2", "fp8e4m3", "fp8e8m0", "hif8"};
        if (strcmp(v, "fp32") == 0 || strcmp(v, "fp16") == 0) {
            S.dt = v[2] == '3' ? PL_FP32 : PL_FP16;
            return 0;
        }
        for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
            if (strcmp(v, others[k]) == 0)
                return fail("[-d,--datatype] %s is hccl_test's, but pld's builtins reduce and "
                            "move fp32 and fp16 only",
                            v);
        return fail("[-d,--datatype] '%s' is invalid; expected fp32 or fp16", v);
    }
    case 'r':
        if (parse_count(v, 0, PLD_MAX_RANKS, &n))
            return fail("[-r,--root <root>] '%s' is invalid; expected a rank number", v);
        cmd->root = (int)n;
        return 0;
    case 'n':
        if (parse_count(v, 1, INT_MAX, &n))
            return fail("[-n,--iters] '%s' is invalid; expected a whole number from 1 (hccl_test "
                        "divides by it)",
                        v);
        S.iters = (int)n;
        return 0;
    case 'w':
        if (parse_count(v, 0, INT_MAX, &n))
            return fail("[-w,--warmup_iters] '%s' is invalid; expected a whole number from 0", v);
        S.warmup = (int)n;
        return 0;
    case 'c':
        if (parse_count(v, 0, 2, &n))
            return fail("[-c,--check] '%s' is invalid; check should be 0, 1 or 2", v);
        H.check = (int)n;
        return 0;
    case 'p':
        if (parse_count(v, 1, 16, &n))
            return fail("[-p,--npus <npus used for one node>] '%s' is invalid; expected 1 to 16",
                        v);
        H.npus = (int)n;
        return 0;
    case OPT_RANKS:
        if (parse_count(v, 1, PLD_MAX_RANKS, &n)) {
            char fmt[96];
            snprintf(fmt, sizeof fmt, "--ranks '%%s' is invalid; expected 1 to %d", PLD_MAX_RANKS);
            return fail(fmt, v);
        }
        H.ranks = (int)n;
        return 0;
    case OPT_DEVICES:
        cmd->devices = v;
        return 0;
    case OPT_JOBS:
        if (parse_count(v, 1, 4096, &n))
            return fail("--jobs '%s' is invalid; expected 1 to 4096 simulations at once", v);
        S.jobs = (int)n;
        return 0;
    case OPT_ALL_ITERATIONS:
        S.all_iterations = 1;
        return 0;
    default:
        return take_switch(c, v);
    }
}

/* Parses argv: hccl_test's flags and ours here, the common ones through
 * pld_parse_args.  Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, pld_config *cfg, struct cmd *cmd)
{
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int first = 1;
    H.prog_name = perf_prog;
    H.prog = hccl_prog_by_name(base);
    if (!H.prog && argc > 1 && argv[1][0] != '-') {
        H.prog = hccl_prog_by_name(argv[1]);
        if (!H.prog)
            return fail("unknown program '%s'; expected all_reduce_test, all_gather_test, "
                        "reduce_scatter_test, broadcast_test or alltoall_test",
                        argv[1]);
        first = 2;
    }
    static char name[64];
    snprintf(name, sizeof name, "pldsim-%s", H.prog ? H.prog->name : "hccl-test");
    H.prog_name = perf_prog = name;
    if (H.prog && !H.prog->coll) {
        char fmt[256];
        snprintf(fmt, sizeof fmt, "%%s: %s", H.prog->why_not);
        return fail(fmt, H.prog->name);
    }
    int help = 0, rc = split_args(argc, argv, first, "-:o:d:b:e:i:f:r:n:w:c:p:z:m:s:t:a:h",
                                  long_opts, take_option, cmd, cfg, &help, H.prog_name,
                                  "invalid option '%s'", "non-option ARGV-element '%s'");
    if (rc < 0 && help) {
        usage(stdout);
        rc = 0;
    }
    if (rc < 0 && !H.prog) {
        usage(stderr);
        rc = 2;
    }
    return rc;
}

/* hccl_test's count of elements for a data size, and what a rank's window
 * row holds: the whole count, 1/P of it (rounded up) for all_gather_test
 * and reduce_scatter_test, or 1/P of a count rounded up to P's multiple for
 * alltoall_test.  .size is the bytes alg_bandwidth divides, as hccl_test's
 * cal_execution_time does. */
static struct step hccl_step(int64_t data_size)
{
    int64_t es = (int64_t)pl_dtype_size(S.dt), P = S.P, count = (data_size + es - 1) / es;
    if (H.prog->per_rank_parts) {
        count = (count + P - 1) / P;
        return (struct step){count * es * P, count, count};
    }
    if (H.prog->align_to_ranks) {
        count = (count + P - 1) / P * P;
        return (struct step){count * es, count, count / P};
    }
    return (struct step){count * es, count, count};
}

/* hccl_test's loop over sizes: from -b while at most -e, by -f's factor
 * (truncated to bytes, as its u64 arithmetic does) or -i's step. */
static int make_sweep(const struct cmd *cmd)
{
    if (cmd->maxb < cmd->minb)
        return fail("invalid option: maxbytes < minbytes%s; check the [-b,--minbytes] and "
                    "[-e,--maxbytes] options",
                    "");
    int64_t step = cmd->step_set           ? cmd->stepb
                   : cmd->maxb > cmd->minb ? (cmd->maxb - cmd->minb) / 10
                                           : 1;
    if (step == 0) /* -e just above -b: hccl_test would spin at -b */
        step = 1;
    if (cmd->factor_set && cmd->step_set)
        fprintf(stderr,
                "%s: [-f,--stepfactor] and [-i,--stepbytes] are both set; -f is used, as "
                "hccl_test does\n",
                H.prog_name);
    S.steps = malloc(MAX_SIZES * sizeof *S.steps);
    S.warm = malloc(MAX_SIZES * sizeof *S.warm);
    H.data_size = malloc(MAX_SIZES * sizeof *H.data_size);
    if (!S.steps || !S.warm || !H.data_size)
        return fail("out of memory%s", "");
    for (int64_t ds = cmd->minb; ds <= cmd->maxb;) {
        if (S.nsteps == MAX_SIZES) {
            char fmt[128];
            snprintf(fmt, sizeof fmt, "more than %d sizes from -b to -e%%s; use a larger -i or -f",
                     MAX_SIZES);
            return fail(fmt, "");
        }
        H.data_size[S.nsteps] = ds;
        S.steps[S.nsteps] = hccl_step(ds);
        /* each size's own warm-up, as hccl_test runs it before the timed calls */
        S.warm[S.nsteps] = S.steps[S.nsteps].n;
        S.nsteps++;
        /* the next size would pass -e: stop before computing it, which
         * could overflow */
        if (cmd->factor_set ? (double)ds * cmd->factor > (double)cmd->maxb : step > cmd->maxb - ds)
            break;
        int64_t next = cmd->factor_set ? (int64_t)((double)ds * cmd->factor) : ds + step;
        if (next <= ds) {
            char what[64];
            snprintf(what, sizeof what, "%lld", (long long)ds);
            return fail("[-f,--stepfactor] does not grow the size %s bytes; hccl_test would "
                        "repeat it forever: give a larger -b or -f",
                        what);
        }
        ds = next;
    }
    S.nwarm = S.nsteps;
    H.minb = cmd->minb;
    H.maxb = cmd->maxb;
    return 0;
}

/* The NULL of hccl_test's check: the largest rank count whose reduction
 * its fixed inputs still give exactly (execution.md's table), for the
 * types taken here; beyond it, hccl_test checks nothing. */
static int check_overflows(void)
{
    if (!H.prog->has_op)
        return 0;
    int fp16 = S.dt == PL_FP16, rs = H.prog->per_rank_parts;
    long most = S.op == PLD_REDUCE_PROD  ? (fp16 ? 15 : 127)
                : S.op == PLD_REDUCE_SUM ? (rs ? (fp16 ? 31 : 2896) : (fp16 ? 511 : 1000000))
                                         : LONG_MAX;
    return S.P > most;
}

int hccl_setup(int argc, char **argv, pld_config *cfg)
{
    pld_config_init(cfg);
    cfg->summary = 0;
    S.mode = PLD_ALLREDUCE_MESH;
    S.op = PLD_REDUCE_SUM;
    S.dt = PL_FP32;
    S.iters = 20;
    S.warmup = 10;
    S.average = 0; /* rank 0's stream is the one hccl_test times */
    S.cycles = 1;
    S.only = -1;
    H.check = 1;
    H.npus = 8;
    struct cmd cmd = {.minb = 64 << 20, .maxb = 64 << 20};
    int rc = parse_args(argc, argv, cfg, &cmd);
    if (rc >= 0)
        return rc;
    S.coll = H.prog->coll;
    S.one_half = H.prog->half;
    int ranks = H.ranks ? H.ranks : H.npus;
    if (cmd.devices && H.ranks)
        return fail("give --ranks or --devices, not both (--devices %s)", cmd.devices);
    if (!cmd.devices && ranks % H.npus) {
        char what[64];
        snprintf(what, sizeof what, "%d", ranks);
        char fmt[128];
        snprintf(fmt, sizeof fmt, "--ranks %%s is not a whole number of nodes of -p %d", H.npus);
        return fail(fmt, what);
    }
    char list[32];
    snprintf(list, sizeof list, "0-%d", ranks - 1);
    if (pld_config_set_devices(cfg, cmd.devices ? cmd.devices : list))
        return 2;
    S.P = cfg->ndevices;
    if (cmd.root >= S.P) {
        char what[16], fmt[160];
        snprintf(what, sizeof what, "%d", cmd.root);
        snprintf(fmt, sizeof fmt,
                 "[-r,--root <root>] %%s is invalid; root rank must be greater than or equal to "
                 "0 and less than or equal to %d",
                 S.P - 1);
        return fail(fmt, what);
    }
    S.root = cmd.root;
    H.op_ignored = cmd.op_set && !H.prog->has_op;
    H.overflow = H.check && check_overflows();
    S.check_iters = H.check && !H.overflow ? 1 : 0;
    if ((rc = make_sweep(&cmd)) != 0)
        return rc;
    return -1;
}
