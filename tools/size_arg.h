/* size_arg.h: the byte sizes the tools take on the command line. */
#ifndef PLDSIM_TOOLS_SIZE_ARG_H
#define PLDSIM_TOOLS_SIZE_ARG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Parses "4096", "64K", "16M" or "1G" (binary multiples) into *out; returns
 * 0, or -1 if `s` is not a non-negative size. */
static inline int parse_size_arg(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        v *= 1024, end++;
    else if (*end == 'M')
        v *= 1048576, end++;
    else if (*end == 'G')
        v *= 1073741824.0, end++;
    if (*end)
        return -1;
    *out = (int64_t)v;
    return 0;
}

#endif
