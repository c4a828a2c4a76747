/* fuzz_hccl_args.c: libFuzzer target for pldsim-hccl-test's command line
 * (hccl_setup: hccl_test's flags, pldsim's own, the common ones through
 * pld_parse_args, the devices and hccl_test's sweep of sizes).  The input
 * is split into arguments at NUL and newline bytes, after argv[0]
 * "pldsim-hccl-test" (so the first argument names the program).  Every
 * input must be accepted or refused with a message, never crash, hang or
 * trip ASan/UBSan; what is accepted must hold what the run relies on: a
 * sweep of 1 to MAX_SIZES sizes rising from -b to at most -e, each with
 * its window row, and a root among the ranks.
 *
 * The sources are included whole, as fuzz_perf_args.c includes
 * pldsim-perf's; main is left out (it is in pldsim-hccl-test.c, whose
 * program table hccl_args.c needs, so the table is taken from there with
 * main renamed), and so is perf_args.c, whose statics share hccl_args.c's
 * names: its one function the engine calls is defined here. */
#define main hccl_test_main
#include "../../tools/pldsim-hccl-test.c"
#undef main
#include "../../tools/hccl_args.c"
#include "../../tools/hccl_output.c"
#include "../../tools/perf_sweep.c"
#include "../../tools/perf_kernel.c"
#include "../../tools/perf_check.c"
#include "../../tools/perf_allreduce.c"
#include "../../tools/perf_broadcast.c"
#include "../../tools/perf_allgather.c"
#include "../../tools/perf_reduce_scatter.c"
#include "../../tools/perf_alltoall.c"
#include "../../tools/perf_sendrecv.c"
#include "../../tools/perf_jobs.c"
#include "../../tools/perf_steady.c"

#include "../../src/core/internal.h"
#include "fuzz_argv.h"

#include <stdint.h>

int perf_fail_usage(const char *fmt, const char *arg)
{
    return usage_error(perf_prog, fmt, arg);
}

/* Drops what one hccl_setup left, so that the next input starts clean. */
static void hccl_reset(void)
{
    free(S.steps);
    free(S.warm);
    free(H.data_size);
    memset(&S, 0, sizeof S);
    memset(&H, 0, sizeof H);
    perf_prog = "pldsim-hccl-test";
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* --help and hccl_test's warnings print to stdout: not what is tested */
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pld__config_error_silent = 1;
    if (size > 4096)
        return 0;
    char *copy, *argv[66];
    int argc = fuzz_argv(data, size, "pldsim-hccl-test", &copy, argv);
    pld_config cfg;
    int rc = hccl_setup(argc, argv, &cfg);
    if (rc < 0) { /* accepted: what the run relies on */
        if (S.nsteps < 1 || S.nsteps > MAX_SIZES || S.nwarm != S.nsteps || !H.prog ||
            !H.prog->coll || S.coll != H.prog->coll)
            abort();
        if (S.P < 1 || S.P > PLD_MAX_RANKS || S.root < 0 || S.root >= S.P || S.iters < 1)
            abort();
        for (int k = 0; k < S.nsteps; k++) {
            if (H.data_size[k] < H.minb || H.data_size[k] > H.maxb ||
                (k && H.data_size[k] <= H.data_size[k - 1]))
                abort(); /* hccl_test's loop rises from -b to at most -e */
            if (S.steps[k].n < 0 || S.steps[k].size < 0 || S.warm[k] != S.steps[k].n)
                abort();
        }
    } else if (rc != 0 && rc != 2) {
        abort(); /* a refusal is the usage status */
    }
    hccl_reset();
    free(copy);
    return 0;
}
