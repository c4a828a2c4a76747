/* perf_output.c: what pldsim-perf reports: nccl-tests' header, table and
 * footer on stdout (its src/util.cu), the same rows as CSV (--csv), and
 * nccl-tests' JSON document (-J). */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* nccl-tests' getFloatStr: 2 decimals if they fit in `width`, then 1, then
 * none, then an exponent. */
static void float_str(double v, int width, char *out, size_t size)
{
    static const char *const fmts[] = {"%*.2f", "%*.1f", "%*.0f"};
    for (int i = 0; i < 3; i++)
        if (snprintf(out, size, fmts[i], width, v) <= width)
            return;
    snprintf(out, size, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/* The time of one half as -a asks: rank 0's, or the mean, min or max over
 * ranks (nccl-tests' Allreduce of deltaSec). */
static double half_time(int row, int half)
{
    double acc = *perf_rank_time(row, half, 0);
    for (int r = 1; r < S.P && S.average != 0; r++) {
        double t = *perf_rank_time(row, half, r);
        acc = S.average == 1 ? acc + t : S.average == 2 ? (t < acc ? t : acc) : (t > acc ? t : acc);
    }
    return S.average == 1 ? acc / S.P : acc;
}

/* Opens -J's FILE as nccl-tests does: never over an existing file, trying
 * FILE.0, FILE.1, ... instead.  NULL after a message. */
static FILE *open_json(const char *path, char *used, size_t size)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && slash > dot) || strcasecmp(dot, ".json") != 0) {
        fprintf(stderr,
                "pldsim-perf: -J %s: only JSON output is supported: name the file "
                "*.json (see --help)\n",
                path);
        return NULL;
    }
    snprintf(used, size, "%s", path);
    for (int i = 0; i < 1000; i++) {
        int fd = open(used, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            return fdopen(fd, "w");
        if (errno != EEXIST)
            break;
        snprintf(used, size, "%s.%d", path, i);
    }
    fprintf(stderr, "%s: cannot write the JSON output %s: %s\n", perf_prog, used, strerror(errno));
    return NULL;
}

/* nccl-tests' time stamp format. */
static json_t *json_now(void)
{
    char buf[64];
    time_t now = time(NULL);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", localtime(&now));
    return json_string(buf);
}

int perf_done(int status)
{
    json_decref(S.results);
    json_decref(S.json);
    return status;
}

/* The algorithm the header and the CSV name. */
static const char *mode_name(void)
{
    return S.coll->mode ? S.coll->mode() : "builtin";
}

/* How -b grows to -e, as the header and the JSON give it: *is_factor 1 for
 * -f's factor, 0 for -i's bytes. */
static long long sweep_step(int *is_factor)
{
    *is_factor = S.factor > 1;
    return *is_factor ? (long long)S.factor : (long long)S.stepb;
}

int perf_open_outputs(const struct cli *cli, struct perf_outputs *out)
{
    *out = (struct perf_outputs){.csv_path = cli->csv};
    if (cli->json && !(out->json = open_json(cli->json, out->json_path, sizeof out->json_path)))
        return 2;
    if (cli->csv && !(out->csv = fopen(cli->csv, "w"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", perf_prog, cli->csv, strerror(errno));
        return 2;
    }
    return 0;
}

void perf_print_opening(const pld_config *cfg, int argc, char **argv,
                        const struct perf_outputs *out)
{
    const char *prog = S.coll->nccl, *mode = mode_name();
    int step_is_factor;
    long long step = sweep_step(&step_is_factor);
    json_t *J = S.json = json_object();
    S.results = json_array();
    if (out->json) {
        printf("# Writing JSON output to %s\n", out->json_path);
        json_t *args = json_array(), *env = json_array();
        for (int i = 0; i < argc; i++)
            json_array_append_new(args, json_string(argv[i]));
        /* only what shaped the run: NCCL_* and PLD_* */
        extern char **environ;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "NCCL_", 5) == 0 || strncmp(*e, "PLD_", 4) == 0)
                json_array_append_new(env, json_string(*e));
        json_object_set_new(J, "version", json_integer(3));
        json_object_set_new(J, "start_time", json_now());
        json_object_set_new(J, "args", args);
        json_object_set_new(J, "env", env);
        json_object_set_new(J, "nccl_version", json_integer(0));
    }
    printf("# nccl-tests version %s-pldsim nccl-headers=0 nccl-library=0\n", NCCL_TESTS_FORMAT);
    printf("# Collective test starting: %s\n", prog);
    printf("# nThread 1 nGpus %d minBytes %lld maxBytes %lld step: %lld(%s) warmup iters: %d "
           "iters: %d agg iters: 1 validation: %d graph: 0 unalign: 0\n",
           S.P, (long long)S.minb, (long long)S.maxb, step, step_is_factor ? "factor" : "bytes",
           S.warmup, S.iters, S.check_iters);
    if (S.blocking == 1)
        printf("# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
    if (S.blocking == 2)
        printf("# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
    if (S.blocking == 3)
        printf("# Blocking Enabled: wait and barrier after each outer iteration (-n); time "
               "excludes barrier \n");
    printf("# pldsim-perf %s: times SIMULATED by pldsim (SimGrid %s model), not measured; "
           "platform %s%s%s, %s %s\n",
           PACKAGE_VERSION, cfg->network_model, cfg->platform, cfg->topology ? ", topology " : "",
           cfg->topology ? cfg->topology : "", S.coll->name, mode);
    printf("# pldsim-perf: out-of-place = %s\n",
           !S.coll->in_place
               ? "in-place = the builtin reading a separate send buffer"
               : "local copy of the send buffer into the window + the in-place builtin");
}

void perf_print_setup(const pld_config *cfg, int jobs, int shortcut)
{
    const char *mode = mode_name();
    json_t *J = S.json;
    char host_name[256] = "localhost";
    gethostname(host_name, sizeof host_name - 1);
    int step_is_factor;
    long long step = sweep_step(&step_is_factor);
    printf("# pldsim-perf: %s\n",
           shortcut ? "calls that repeat the ones before them (to 1e-9) are derived, not "
                      "simulated; stderr and the JSON say how many (--all-iterations: none)"
                    : "every timed call is simulated (--all-iterations, or not the simulator)");
    if (jobs > 0)
        printf("# pldsim-perf: each size is a simulation of its own (its -w warm-up calls, then "
               "its rows), %d at once (-j)\n",
               jobs);
    else
        printf("# pldsim-perf: the sweep is one simulation (-w warm-up calls of every size, then "
               "every row)\n");
    printf("#\n# Using devices\n");
    json_t *devs = json_array();
    for (int r = 0; r < S.P; r++) {
        int dev = cfg->device_ids[r];
        char hex[32], info[300];
        snprintf(hex, sizeof hex, "%04x:%02x:%02x", dev >> 8 & 0xffff, dev & 0xff, 0);
        snprintf(info, sizeof info, "pldsim %s dev%d (simulated)", cfg->platform, dev);
        printf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", r, 0, (int)getpid(),
               host_name, dev, hex, info);
        json_array_append_new(devs, json_pack("{si si si ss si ss ss}", "rank", r, "group", 0,
                                              "pid", (int)getpid(), "hostname", host_name, "device",
                                              dev, "device_hex", hex, "device_info", info));
    }
    json_t *conf = json_pack("{si si sI sI}", "nthreads", 1, "ngpus", S.P, "minimum_bytes",
                             (json_int_t)S.minb, "maximum_bytes", (json_int_t)S.maxb);
    json_object_set_new(conf, step_is_factor ? "step_factor" : "step_bytes", json_integer(step));
    /* nccl-tests writes its booleans as the strings "true" and "false" */
    json_t *more =
        json_pack("{si si si si si ss ss si ss so}", "warmup_iters", S.warmup, "iterations",
                  S.iters, "aggregated_iterations", 1, "validation", S.check_iters, "graph", 0,
                  "blocking_collectives", S.blocking ? "true" : "false", "per_iter_timing", "false",
                  "per_iter_skip", 0, "parallel_init", "false", "devices", devs);
    json_object_update(conf, more);
    json_decref(more);
    json_object_set_new(J, "config", conf);
    json_object_set_new(J, "pldsim",
                        json_pack("{sb ss ss ss ss}", "simulated", 1, "platform", cfg->platform,
                                  "topology", cfg->topology ? cfg->topology : "", "collective",
                                  S.coll->name, "mode", mode));
    fflush(stdout);
}

int perf_print_results(const struct perf_outputs *out)
{
    const char *prog = S.coll->nccl, *mode = mode_name();
    int rows = S.cycles * S.nsteps;
    json_t *J = S.json, *results = S.results;
    FILE *csv = out->csv, *jf = out->json;
    static const char *const type_names[] = {"?", "float", "half"};
    static const char *const op_names[] = {"?", "sum", "max", "min", "prod"};
    int has_op = S.coll->has_op;
    const char *type = type_names[S.dt == PL_FP16 ? 2 : 1], *op = has_op ? op_names[S.op] : "none";
    int root = S.coll->has_root ? S.root : -1;
    printf("#\n");
    printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place     "
           "     \n",
           "", "", "", "", "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size",
           "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
           "busbw", "#wrong", 0, "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
           "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
           0, "");
    if (csv)
        fprintf(csv, "collective,mode,P,size_B,count,type,redop,root,oop_time_us,oop_algbw_GBps,"
                     "oop_busbw_GBps,oop_wrong,ip_time_us,ip_algbw_GBps,ip_busbw_GBps,ip_wrong\n");
    double sum_busbw = 0;
    long total_wrong = 0;
    long long timed_made = 0, timed_all = 0;
    for (int row = 0; row < rows; row++) {
        const struct step *st = &S.steps[row % S.nsteps];
        char root_str[16];
        snprintf(root_str, sizeof root_str, "%6i", root);
        printf("%12lld  %12lld  %8s  %6s  %6s", (long long)st->size, (long long)st->count, type, op,
               root_str);
        json_t *res = json_pack("{sI sI ss ss ss}", "size", (json_int_t)st->size, "count",
                                (json_int_t)st->count, "type", type, "redop", op, "root", root_str);
        double t[2], alg[2], bus[2];
        for (int h = 0; h < 2; h++) {
            t[h] = half_time(row, h) * 1e6;
            /* a collective that moves nothing (P = 1) takes no time: 0, not inf */
            alg[h] = t[h] > 0 ? (double)st->size / (t[h] * 1e-6) / 1e9 : 0;
            bus[h] = alg[h] * S.coll->busbw_factor(S.P);
            long w = S.wrong[row * 2 + h];
            total_wrong += w;
            sum_busbw += bus[h];
            char ts[16], as[16], bs[16];
            float_str(t[h], 7, ts, sizeof ts);
            float_str(alg[h], 6, as, sizeof as);
            float_str(bus[h], 6, bs, sizeof bs);
            if (S.check_iters)
                printf("  %7s  %6s  %6s  %6g", ts, as, bs, (double)w);
            else
                printf("  %7s  %6s  %6s    N/A", ts, as, bs);
            json_object_set_new(res, h ? "in_place" : "out_of_place",
                                json_pack("{sf sf sf so}", "time", t[h], "alg_bw", alg[h], "bus_bw",
                                          bus[h], "nwrong",
                                          S.check_iters ? json_real((double)w) : json_null()));
        }
        printf("\n");
        for (int h = 0; h < 2; h++)
            timed_made += S.made[row * 2 + h];
        json_object_set_new(res, "actual_iterations", json_integer(S.iters));
        json_object_set_new(res, "pldsim",
                            json_pack("{si si}", "out_of_place_simulated_iterations",
                                      S.made[row * 2], "in_place_simulated_iterations",
                                      S.made[row * 2 + 1]));
        json_object_set_new(res, "experiment_name", json_string(""));
        json_array_append_new(results, res);
        if (csv) {
            char wr[2][24];
            for (int h = 0; h < 2; h++)
                snprintf(wr[h], sizeof wr[h], S.check_iters ? "%ld" : "N/A", S.wrong[row * 2 + h]);
            fprintf(csv, "%s,%s,%d,%lld,%lld,%s,%s,%d,%.6f,%.6f,%.6f,%s,%.6f,%.6f,%.6f,%s\n",
                    S.coll->name, mode, S.P, (long long)st->size, (long long)st->count, type, op,
                    root, t[0], alg[0], bus[0], wr[0], t[1], alg[1], bus[1], wr[1]);
        }
    }
    if (csv && (ferror(csv) | fclose(csv))) {
        fprintf(stderr, "%s: writing %s failed: %s\n", perf_prog, out->csv_path, strerror(errno));
        return perf_done(1);
    }
    for (int row = 0; row < rows; row++)
        timed_all += S.steps[row % S.nsteps].n ? 2LL * S.iters : 0;
    /* on stderr: nccl-tests' log ends with its footer, and parsers hold it to that */
    fprintf(stderr, "%s: %lld of %lld timed calls simulated%s\n", perf_prog, timed_made, timed_all,
            timed_made < timed_all ? "; the rest repeat them (to 1e-9) and are derived "
                                     "(--all-iterations simulates all)"
                                   : "");
    double avg_bw = rows ? sum_busbw / (2.0 * rows) : 0;
    const char *min_bw_env = getenv("NCCL_TESTS_MIN_BW");
    double min_bw = min_bw_env ? atof(min_bw_env) : -1;
    int bw_failed = min_bw_env && avg_bw < min_bw * 0.9;
    printf("# %-20s : %ld %s\n", "Out of bounds values", total_wrong,
           total_wrong ? "FAILED" : "OK");
    printf("# %-20s : %g %s\n", "Avg bus bandwidth", avg_bw,
           !min_bw_env ? ""
           : bw_failed ? "FAILED"
                       : "OK");
    printf("#\n# Collective test concluded: %s\n#\n\n", prog);
    if (jf) {
        json_object_set_new(J, "results", results);
        results = S.results = NULL;
        json_object_set_new(J, "out_of_bounds",
                            json_pack("{sI ss}", "count", (json_int_t)total_wrong, "okay",
                                      total_wrong ? "false" : "true"));
        json_t *okay =
            !min_bw_env ? json_string("unchecked") : json_string(bw_failed ? "false" : "true");
        json_object_set_new(J, "average_bus_bandwidth",
                            json_pack("{sf so}", "bandwidth", avg_bw, "okay", okay));
        json_object_set_new(J, "errors", json_array());
        json_object_set_new(J, "end_time", json_now());
        if (json_dumpf(J, jf, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', jf) == EOF ||
            (ferror(jf) | fclose(jf))) {
            fprintf(stderr, "%s: writing %s failed: %s\n", perf_prog, out->json_path,
                    strerror(errno));
            return perf_done(1);
        }
    }
    (void)results;
    return perf_done(total_wrong || bw_failed ? 1 : 0);
}
