/* perf_args.c: pldsim-perf's command line: nccl-tests' flags, pldsim's own,
 * the common ones passed on to pld_parse_args, and --help. */
#include "perf.h"
#include "size_arg.h"
#include "split_args.h"
#include "usage_error.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* --help; also on stderr when no collective is named. */
static void usage(FILE *out)
{
    fputs("usage: pldsim-perf COLLECTIVE [options]    (or pldsim-all_reduce_perf [options] ...)\n"
          "  COLLECTIVE  all_reduce_perf, all_gather_perf, broadcast_perf, reduce_scatter_perf,\n"
          "              alltoall_perf, sendrecv_perf; or allreduce, allgather, broadcast,\n"
          "              reduce_scatter, all_to_all, sendrecv\n"
          "nccl-tests' flags, with its meanings and defaults:\n"
          "  -b, --minbytes SIZE     smallest size (default 32M; K, M, G suffixes)\n"
          "  -e, --maxbytes SIZE     largest size (default 32M)\n"
          "  -i, --stepbytes SIZE    add SIZE each step when -f is 0 or 1 (default 1M)\n"
          "  -f, --stepfactor N      multiply the size by N each step (default 1: use -i)\n"
          "  -g, --ngpus N           devices, one rank each: P = N (default 1)\n"
          "  -n, --iters N           timed calls per row and half, averaged (default 20)\n"
          "  -w, --warmup_iters N    untimed calls of each size first (default 1)\n"
          "  -c, --check N           checked calls after the timed ones (default 0 here,\n"
          "                          1 in nccl-tests: checking keeps every payload)\n"
          "  -o, --op OP             sum (default), prod, max, min\n"
          "  -d, --datatype T        float (default) or half\n"
          "  -r, --root R            broadcast root (default 0)\n"
          "  -a, --average 0-3       time of rank 0, the mean (default), min or max over ranks\n"
          "  -z, --blocking 0-3      1 and 3: a barrier after every call (3: not timed)\n"
          "  -N, --run_cycles N      run the sweep N times, printing each (default 1)\n"
          "  -J, --output_file F     also write the results as JSON to F.json\n"
          "  -t -m -p -G -C -R -T -S -M -x -u -k -y -D -V -I -K (and long forms) are accepted\n"
          "  and ignored, each with one line on stderr.  NCCL_TESTS_MIN_BW=X fails the run\n"
          "  (exit 1) when the average bus bandwidth is below 0.9 X, as nccl-tests does.\n"
          "pldsim's own:\n"
          "      --devices LIST      device ids instead of -g: 0-7 or 0,2,4,6\n"
          "      --mode M            allreduce: mesh (default) or ring\n"
          "      --check             as -c 1\n"
          "      --csv FILE          also write the table as CSV\n"
          "  -j, --jobs N            simulate N sizes at once, each size a simulation (and a\n"
          "                          process) of its own (default: one per core)\n"
          "      --all-iterations    simulate every -n and -w call; by default, once the\n"
          "                          calls repeat exactly, the rest are derived (simulator\n"
          "                          only; the table's last comment line says how many)\n"
          "      --dtype T, -P N     as -d and -g\n"
          "Out-of-place: pld's builtins reduce and broadcast in place on a window, so the\n"
          "out-of-place half of allreduce, reduce_scatter and broadcast times a local copy\n"
          "of a separate send buffer into the window plus the builtin; allgather, alltoall\n"
          "and sendrecv read a separate buffer in both halves, which time the same call.\n"
          "Times are simulated by pldsim, not measured.  docs/pldsim-perf.md has more.\n\n"
          "pldsim's common flags follow; here -p and -d are nccl-tests' (ignored, and the\n"
          "datatype), so give the platform as --platform and the devices as --devices.\n",
          out);
    pld_print_common_usage(out);
}

int perf_fail_usage(const char *fmt, const char *arg)
{
    return usage_error(perf_prog, fmt, arg);
}

/* Parses a whole decimal integer in [lo, hi] into *out; -1 if it is not one. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* The nccl-tests flags that have no meaning here: consumed, reported. */
static const char ignored_flags[] = "tmpGCRTSMxukyDVIK";

/* Options that are ours; the common pldsim ones go on to pld_parse_args. */
enum { OPT_DEVICES = 256, OPT_MODE, OPT_CSV, OPT_ALL_ITERATIONS };
static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},
    {"maxbytes", required_argument, 0, 'e'},
    {"stepbytes", required_argument, 0, 'i'},
    {"stepfactor", required_argument, 0, 'f'},
    {"ngpus", required_argument, 0, 'g'},
    {"iters", required_argument, 0, 'n'},
    {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"op", required_argument, 0, 'o'},
    {"datatype", required_argument, 0, 'd'},
    {"dtype", required_argument, 0, 'd'},
    {"root", required_argument, 0, 'r'},
    {"average", required_argument, 0, 'a'},
    {"blocking", required_argument, 0, 'z'},
    {"run_cycles", required_argument, 0, 'N'},
    {"output_file", required_argument, 0, 'J'},
    {"nthreads", required_argument, 0, 't'},
    {"agg_iters", required_argument, 0, 'm'},
    {"parallel_init", required_argument, 0, 'p'},
    {"cudagraph", required_argument, 0, 'G'},
    {"report_cputime", required_argument, 0, 'C'},
    {"local_register", required_argument, 0, 'R'},
    {"timeout", required_argument, 0, 'T'},
    {"report_timestamps", required_argument, 0, 'S'},
    {"memory", required_argument, 0, 'M'},
    {"cta_policy", required_argument, 0, 'x'},
    {"unalign", required_argument, 0, 'u'},
    {"stream_null", required_argument, 0, 'y'},
    {"device_implementation", required_argument, 0, 'D'},
    {"device_cta_count", required_argument, 0, 'V'},
    {"per_iter_timing", required_argument, 0, 'I'},
    {"per_iter_skip", required_argument, 0, 'K'},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"device", required_argument, 0, OPT_DEVICES}, /* the common flag's name */
    {"mode", required_argument, 0, OPT_MODE},
    {"csv", required_argument, 0, OPT_CSV},
    {"jobs", required_argument, 0, 'j'},
    {"all-iterations", no_argument, 0, OPT_ALL_ITERATIONS},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* The options that take a whole number: its range, where it goes, and the
 * refusal of anything else. */
static const struct {
    int c;
    long lo, hi;
    int *to;
    const char *refusal;
} int_opts[] = {
    {'n', 1, INT_MAX, &S.iters,
     "bad iteration count '%s' for -n; expected a whole number from 1 to 2147483647"},
    {'w', 0, INT_MAX, &S.warmup,
     "bad warm-up count '%s' for -w; expected a whole number from 0 to 2147483647"},
    {'c', 0, INT_MAX, &S.check_iters,
     "bad check count '%s' for -c; expected a whole number from 0 to 2147483647"},
    {'r', 0, PLD_MAX_RANKS, &S.root, "bad --root '%s'; expected a rank number"},
    {'a', 0, 3, &S.average,
     "bad --average '%s'; expected 0 (rank 0), 1 (mean), 2 (min) or 3 (max)"},
    {'z', 0, 3, &S.blocking, "bad --blocking '%s'; expected 0, 1, 2 or 3"},
    {'j', 1, 4096, &S.jobs, "bad job count '%s' for -j; expected 1 to 4096 simulations at once"},
    {'N', 1, INT_MAX, &S.cycles,
     "bad --run_cycles '%s'; expected a whole number from 1 to 2147483647 (a simulation "
     "cannot run forever, so no 0)"},
};

/* One of our options; returns 0, or the exit status of a refusal. */
static int take_option(int c, const char *v, const char *flag, void *ctx)
{
    struct cli *cli = ctx;
    long n;
    for (size_t i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++)
        if (int_opts[i].c == c) {
            if (parse_int(v, int_opts[i].lo, int_opts[i].hi, &n))
                return perf_fail_usage(int_opts[i].refusal, v);
            *int_opts[i].to = (int)n;
            return 0;
        }
    switch (c) {
    case 'b':
    case 'e':
    case 'i':
        if (parse_size_arg(v, c == 'b' ? &S.minb : c == 'e' ? &S.maxb : &S.stepb)) {
            char fmt[128];
            snprintf(fmt, sizeof fmt,
                     "bad size '%%s' for -%c; expected 1 byte to 1P, with an optional K, M or G",
                     c);
            return perf_fail_usage(fmt, v);
        }
        return 0;
    case 'f':
        if (parse_int(v, 0, INT_MAX, &n))
            return perf_fail_usage("bad factor '%s' for -f; expected a whole number from 0 to "
                                   "2147483647 (0 or 1: step by -i)",
                                   v);
        S.factor = n;
        return 0;
    case 'g':
    case 'P':
        if (parse_int(v, 1, PLD_MAX_RANKS, &n)) {
            fprintf(stderr,
                    "pldsim-perf: bad device count '%s' for %s; expected 1..%d (see --help)\n", v,
                    flag, PLD_MAX_RANKS);
            return 2;
        }
        cli->ngpus = (int)n;
        cli->ngpus_arg = v;
        return 0;
    case 'o': {
        static const char *const ops[] = {"sum", "max", "min", "prod"};
        S.op = 0;
        for (int k = 0; k < 4; k++)
            if (strcmp(v, ops[k]) == 0)
                S.op = (pld_reduce_op)(k + 1);
        if (!S.op)
            return perf_fail_usage("bad --op '%s'; expected sum, prod, max or min (pld has no avg, "
                                   "mulsum or all)",
                                   v);
        return 0;
    }
    case 'd':
        if (strcmp(v, "float") == 0)
            S.dt = PL_FP32;
        else if (strcmp(v, "half") == 0)
            S.dt = PL_FP16;
        else
            return perf_fail_usage(
                "bad --datatype '%s'; expected float or half (the types of pld's "
                "builtins)",
                v);
        return 0;
    case 'J':
        cli->json = v;
        return 0;
    case OPT_DEVICES:
        cli->devices = v;
        return 0;
    case OPT_MODE:
        if (strcmp(v, "mesh") == 0)
            S.mode = PLD_ALLREDUCE_MESH;
        else if (strcmp(v, "ring") == 0)
            S.mode = PLD_ALLREDUCE_RING;
        else
            return perf_fail_usage("bad --mode '%s'; expected mesh or ring", v);
        return 0;
    case OPT_CSV:
        cli->csv = v;
        return 0;
    case OPT_ALL_ITERATIONS:
        S.all_iterations = 1;
        return 0;
    default:
        fprintf(stderr,
                "pldsim-perf: ignoring %s %s: nccl-tests' flag has no meaning on the "
                "simulator\n",
                flag, v);
        return 0;
    }
}

/* The collectives, in the order nccl-tests lists its programs. */
static const struct perf_coll *const colls[] = {
    &perf_allreduce,      &perf_broadcast, &perf_allgather,
    &perf_reduce_scatter, &perf_alltoall,  &perf_sendrecv,
};

/* Which collective `name` is (either spelling, or pldsim-<nccl name>); NULL if none. */
static const struct perf_coll *coll_by_name(const char *name)
{
    if (strncmp(name, "pldsim-", 7) == 0)
        name += 7;
    for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++)
        if (strcmp(name, colls[k]->name) == 0 || strcmp(name, colls[k]->nccl) == 0)
            return colls[k];
    return NULL;
}

/* Parses argv: our options here, the common ones through pld_parse_args.
 * Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, pld_config *cfg, struct cli *cli)
{
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int first = 1;
    const struct perf_coll *coll = coll_by_name(base);
    if (!coll && argc > 1 && argv[1][0] != '-') {
        coll = coll_by_name(argv[1]);
        if (!coll)
            return perf_fail_usage("unknown collective '%s'; expected all_reduce_perf, "
                                   "all_gather_perf, broadcast_perf, reduce_scatter_perf, "
                                   "alltoall_perf, sendrecv_perf (or allreduce, allgather, "
                                   "broadcast, reduce_scatter, all_to_all, sendrecv)",
                                   argv[1]);
        first = 2;
    }
    char shorts[128] = "-:hP:b:e:i:f:g:n:w:c:o:d:r:a:z:N:J:j:";
    size_t ns = strlen(shorts);
    for (const char *f = ignored_flags; *f; f++) {
        shorts[ns++] = *f;
        shorts[ns++] = ':';
    }
    shorts[ns] = 0;
    /* pldsim-perf's --check takes no value; nccl-tests' --check N does */
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--check") == 0 &&
            (i + 1 >= argc || argv[i + 1][0] < '0' || argv[i + 1][0] > '9'))
            argv[i] = "--check=1";
    int help = 0,
        rc = split_args(argc, argv, first, shorts, long_opts, take_option, cli, cfg, &help,
                        perf_prog, "unknown option '%s'", "unexpected argument '%s'");
    if (rc < 0 && help) {
        usage(stdout);
        rc = 0;
    }
    if (rc < 0 && !coll) {
        usage(stderr);
        rc = 2;
    }
    if (rc < 0)
        S.coll = coll;
    return rc;
}

int perf_setup(int argc, char **argv, pld_config *cfg, struct cli *cli)
{
    pld_config_init(cfg);
    cfg->summary = 0;
    S.mode = PLD_ALLREDUCE_MESH;
    S.op = PLD_REDUCE_SUM;
    S.dt = PL_FP32;
    S.minb = S.maxb = 32 << 20;
    S.stepb = 1 << 20;
    S.factor = 1;
    S.iters = 20;
    S.warmup = 1;
    S.average = 1;
    S.cycles = 1;
    S.only = -1;
    *cli = (struct cli){.ngpus = 1};
    int rc = parse_args(argc, argv, cfg, cli);
    if (rc >= 0)
        return rc;
    char list[32];
    snprintf(list, sizeof list, "0-%d", cli->ngpus - 1);
    if (cli->devices && cli->ngpus_arg)
        return perf_fail_usage("give -g or --devices, not both (-g %s)", cli->ngpus_arg);
    if (pld_config_set_devices(cfg, cli->devices ? cli->devices : list))
        return 2;
    S.P = cfg->ndevices;
    if (S.root < 0 || S.root >= S.P) {
        fprintf(stderr, "%s: --root %d is outside the ranks 0..%d (see --help)\n", perf_prog,
                S.root, S.P - 1);
        return 2;
    }
    if ((rc = perf_make_sweep()) != 0)
        return rc;
    return -1;
}
