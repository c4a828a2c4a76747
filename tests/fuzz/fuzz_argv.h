/* fuzz_argv.h: the argv that the flag fuzzers build from their input. */
#ifndef PLDSIM_FUZZ_ARGV_H
#define PLDSIM_FUZZ_ARGV_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Splits a copy of `data` into arguments at NUL and newline bytes, after
 * argv[0] = `prog`, at most 64 in all, NULL-terminated; returns argc.  The
 * caller frees *copy. */
static inline int fuzz_argv(const uint8_t *data, size_t size, const char *prog, char **copy,
                            char *argv[66])
{
    char *c = *copy = malloc(size + 1);
    memcpy(c, data, size);
    c[size] = '\0';
    int argc = 0;
    argv[argc++] = (char *)prog;
    for (char *p = c; argc < 64 && p < c + size;) {
        argv[argc++] = p;
        size_t len = strcspn(p, "\n");
        if (p[len] == '\n')
            p[len++] = '\0';
        p += len + 1;
    }
    argv[argc] = NULL;
    return argc;
}

#endif
