/* fuzz_gin_args.c: libFuzzer target for pldsim-gin-perf's command line
 * (gin_setup: the GIN suite's flags and checks, pldsim's own, the common
 * ones through pld_parse_args, the two devices and the sweep).  The input
 * is split into arguments at NUL and newline bytes, after argv[0]
 * "pldsim-gin-perf" (so the first argument names the program).  Every
 * input must be accepted or refused with a message, never crash, hang or
 * trip ASan/UBSan; what is accepted must hold what the run relies on: 2
 * ranks, a rising sweep of sizes from -b to at most -e, all multiples of
 * 4, and an operation the program takes.  The sources are included whole,
 * main renamed. */
#define main gin_perf_main
#include "../../tools/pldsim-gin-perf.c"
#undef main
#include "../../tools/gin_args.c"
#include "../../tools/gin_kernels.c"

#include "../../src/core/internal.h"
#include "fuzz_argv.h"

#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout)) /* --help */
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pld__config_error_silent = 1;
    if (size > 4096)
        return 0;
    char *copy, *argv[66];
    int argc = fuzz_argv(data, size, "pldsim-gin-perf", &copy, argv);
    pld_config cfg;
    int rc = gin_setup(argc, argv, &cfg);
    if (rc < 0) { /* accepted: what the run relies on */
        if (!G.prog || cfg.ndevices != 2 || G.nsizes < 1 || G.iters < 1 || G.warmup < 0 ||
            G.ctas != 1 || G.threads != 1 || G.op == GIN_PUT_COUNTER)
            abort();
        for (int k = 0; k < G.nsizes; k++)
            if (G.sizes[k] < G.minb || G.sizes[k] > G.maxb || G.sizes[k] % 4 ||
                (k && G.sizes[k] <= G.sizes[k - 1]))
                abort();
    } else if (rc != 0 && rc != 2) {
        abort(); /* a refusal is the usage status */
    }
    free(G.sizes);
    memset(&G, 0, sizeof G);
    free(copy);
    return 0;
}
