/* fuzz_topology.c: libFuzzer target for the --topology spec parser and the
 * platform generator behind it.  Any input must parse or be refused with an
 * error code; an accepted spec must generate a platform. */
#include "../../sim/sim.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pld__model base;
    static int ready;
    if (!ready) {
        pld__config_error_silent = 1;
        for (int i = 0; pld__builtin_models[i].name; i++)
            if (strcmp(pld__builtin_models[i].name, "a2a3") == 0)
                pld__model_parse(pld__builtin_models[i].text, "a2a3", &base);
        ready = 1;
    }
    if (size > 4096)
        return 0;
    char *spec = malloc(size + 1);
    memcpy(spec, data, size);
    spec[size] = '\0';
    struct pld__model m;
    if (pld__topology_parse(spec, &base, &m) == 0) {
        int dims[3], nd, n = pld__model_devices(&m, 4, dims, &nd);
        if (n > 0 && n <= 64) { /* generating huge platforms is not the point here */
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            pld__platform_write(f, &m, n, dims, nd);
            fclose(f);
            free(buf);
        }
    }
    free(spec);
    return 0;
}
