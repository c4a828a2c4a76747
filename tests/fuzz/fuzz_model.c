/* fuzz_model.c: libFuzzer target for the platform-property reader: model
 * files (key = value lines) and single device properties as read from a
 * platform's <prop>s. */
#include "../../sim/sim.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pld__config_error_silent = 1;
    if (size > 8192)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct pld__model m;
    pld__model_parse(text, "fuzz.model", &m);
    /* the same bytes as the value of every device property */
    struct pld__device d;
    memset(&d, 0, sizeof d);
    for (int k = 0; pld__device_keys[k]; k++)
        pld__device_set(&d, pld__device_keys[k], text);
    free(text);
    return 0;
}
