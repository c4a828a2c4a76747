/* chain.c: a chain of N dependent tasks in one manual scope, for the task
 * graph's benchmark (tools/bench-tasks.sh; issue 28 asked that 10 000 of
 * them take under a second on sim).
 *
 *   pldsim-chain [--tasks N] [common pldsim flags]
 *
 * One device runs the chain: task i depends on task i-1, each a small
 * vector op.  Prints one key=value line: the tasks, the simulated seconds
 * of the scope, and the wall seconds of pld_run. */
#include <pld/pld.h>

#include "../tools/size_arg.h"
#include "../tools/usage_error.h"

#include <getopt.h>
#include <stdio.h>
#include <time.h>

static int64_t ntasks = 10000;
static double scope_s;

struct task_args {
    pl_tensor x;
};

static void step(const struct task_args *a)
{
    pl_tile t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 64));
    pl_store(pl_add(t, t), PL_IDX(0, 0), a->x);
}

static void device(const pl_tensor *x)
{
    double t0 = pld_time();
    pld_manual_scope_begin();
    pld_task_id prev = {0};
    for (int64_t i = 0; i < ntasks; i++) {
        struct task_args a = {*x};
        prev = i ? pld_at(step, a, .deps = &prev, .ndeps = 1) : pld_at(step, a);
    }
    pld_manual_scope_end();
    scope_s = pld_time() - t0;
}

static void host(const pl_tensor *x)
{
    pld_dispatch(0, device, *x);
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1) {
        puts("usage: pldsim-chain [--tasks N] [common flags]\n"
             "A chain of N dependent tasks (default 10000) on device 0; prints the simulated\n"
             "and the wall seconds.");
        pld_print_common_usage(stdout);
        return 0;
    }
    if (rc == 2) /* --version */
        return 0;
    if (rc < 0)
        return 2;
    static const struct option opts[] = {{"tasks", required_argument, NULL, 'n'}, {0}};
    optind = 0; /* glibc: start afresh, pld_parse_args used getopt too */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        if (c == 'n' && (parse_size_arg(optarg, &ntasks) != 0 || ntasks < 1))
            return usage_error("pldsim-chain", "bad --tasks '%s'; expected 1 or more", optarg);
        if (c == ':')
            return usage_error("pldsim-chain", "%s needs a value", argv[optind - 1]);
        if (c != 'n')
            return usage_error("pldsim-chain", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return usage_error("pldsim-chain", "unexpected argument '%s'", argv[optind]);
    pl_tensor x = pl_tensor_new(PL_SHAPE(1, 64), PL_FP32, "x");
    double w0 = wall();
    rc = pld_run(&cfg, host, &x);
    double w1 = wall();
    pl_tensor_free(&x);
    if (rc)
        return pld_exit_code(rc);
    printf("tasks=%lld sim_s=%.17g wall_s=%.3f\n", (long long)ntasks, scope_s, w1 - w0);
    return 0;
}
