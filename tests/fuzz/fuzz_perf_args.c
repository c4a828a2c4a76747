/* fuzz_perf_args.c: libFuzzer target for the tools' size and flag parsing:
 * tools/size_arg.h's parse_size_arg and pldsim-perf's whole command line
 * (perf_setup: its own flags, the common ones through pld_parse_args, the
 * device list and the sweep).  The input is split into arguments at NUL
 * and newline bytes; argv[1] also goes to parse_size_arg alone.  Every
 * input must be accepted or refused with a message, never crash, hang or
 * trip ASan/UBSan; what is accepted must hold what the tools rely on:
 * sizes within 1..SIZE_ARG_MAX and -b <= -e.
 *
 * pldsim-perf's sources are included whole, so that the fuzzer reaches the
 * parser and the state S; the files the parser does not run are here for
 * what its callees refer to.  Left out: main (PLDSIM_PERF_NO_MAIN) and
 * perf_output.c, which only main calls. */
#define PLDSIM_PERF_NO_MAIN
#include "../../tools/pldsim-perf.c"
#include "../../tools/perf_args.c"
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

/* Drops what one perf_setup left in S, so that the next input starts clean. */
static void perf_reset(void)
{
    free(S.steps);
    free(S.warm);
    memset(&S, 0, sizeof S);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* --help prints pages to stdout: not what is being tested */
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
    int argc = fuzz_argv(data, size, "pldsim-perf", &copy, argv);

    if (argc > 1) {
        int64_t v = -1;
        if (parse_size_arg(argv[1], &v) == 0 && !(v >= 1 && v <= SIZE_ARG_MAX))
            abort(); /* accepted a size out of range */
    }

    pld_config cfg;
    struct cli cli;
    int rc = perf_setup(argc, argv, &cfg, &cli);
    if (rc < 0) { /* accepted: what the run relies on */
        if (!(S.minb >= 1 && S.minb <= SIZE_ARG_MAX && S.maxb >= 1 && S.maxb <= SIZE_ARG_MAX &&
              S.stepb >= 1 && S.stepb <= SIZE_ARG_MAX))
            abort();
        if (S.minb > S.maxb || S.nsteps < 1 || S.nsteps > MAX_SIZES)
            abort();
        if (S.P < 1 || S.P > PLD_MAX_RANKS || S.root < 0 || S.root >= S.P)
            abort();
    } else if (rc != 0 && rc != 2) {
        abort(); /* a refusal is the usage status */
    }
    perf_reset();
    free(copy);
    return 0;
}
