/* fuzz_shmem_args.c: libFuzzer target for pldsim-shmem-perf's command line
 * (shmem_setup: the perftests' flags, pldsim's own, the common ones
 * through pld_parse_args, the two PEs and the sweep).  The input is split
 * into arguments at NUL and newline bytes, after argv[0]
 * "pldsim-shmem-perf" (so the first argument names the program).  Every
 * input must be accepted or refused with a message, never crash, hang or
 * trip ASan/UBSan; what is accepted must hold what the run relies on: 2
 * PEs, a rising sweep from -b to at most -e, iteration counts a ping-pong's
 * INT32 flag can count.  The sources are included whole, main renamed. */
#define main shmem_perf_main
#include "../../tools/pldsim-shmem-perf.c"
#undef main
#include "../../tools/shmem_args.c"
#include "../../tools/shmem_kernels.c"

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
    int argc = fuzz_argv(data, size, "pldsim-shmem-perf", &copy, argv);
    pld_config cfg;
    int rc = shmem_setup(argc, argv, &cfg);
    if (rc < 0) { /* accepted: what the run relies on */
        int flags = M.prog && M.prog->kind >= SHMEM_PP_PUT;
        if (!M.prog || cfg.ndevices != 2 || M.nsizes < 1 || M.iters < 1 || M.warmup < 0 ||
            (flags && (M.iters > INT32_MAX - 1 || M.warmup > INT32_MAX - 1)) || M.step < 2 ||
            M.chunk < 1)
            abort();
        for (int k = 0; k < M.nsizes; k++)
            if (M.sizes[k] < M.minb || M.sizes[k] > M.maxb || (k && M.sizes[k] <= M.sizes[k - 1]))
                abort();
    } else if (rc != 0 && rc != 2) {
        abort(); /* a refusal is the usage status */
    }
    free(M.sizes);
    memset(&M, 0, sizeof M);
    free(copy);
    return 0;
}
