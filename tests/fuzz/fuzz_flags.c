/* fuzz_flags.c: libFuzzer target for the common flag parser: the input is
 * split into arguments at NUL and newline bytes; any argv must be parsed or
 * refused, never crash. */
#include "../../src/internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pld__config_error_silent = 1;
    if (size > 4096)
        return 0;
    char *copy = malloc(size + 1), *argv[66];
    memcpy(copy, data, size);
    copy[size] = '\0';
    int argc = 0;
    argv[argc++] = "prog";
    for (char *p = copy; argc < 64 && p < copy + size;) {
        argv[argc++] = p;
        size_t len = strcspn(p, "\n");
        if (p[len] == '\n')
            p[len++] = '\0';
        p += len + 1;
    }
    argv[argc] = NULL;
    pld_config cfg;
    pld_config_init(&cfg);
    pld_parse_args(&cfg, &argc, argv);
    free(copy);
    return 0;
}
