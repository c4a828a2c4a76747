/* fuzz_flags.c: libFuzzer target for the common flag parser: the input is
 * split into arguments at NUL and newline bytes; any argv must be parsed or
 * refused, never crash. */
#include "../../src/core/internal.h"
#include "fuzz_argv.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pld__config_error_silent = 1;
    if (size > 4096)
        return 0;
    char *copy, *argv[66];
    int argc = fuzz_argv(data, size, "prog", &copy, argv);
    pld_config cfg;
    pld_config_init(&cfg);
    pld_parse_args(&cfg, &argc, argv);
    free(copy);
    return 0;
}
