/* size_arg.h: the byte sizes the tools take on the command line. */
#ifndef PLDSIM_TOOLS_SIZE_ARG_H
#define PLDSIM_TOOLS_SIZE_ARG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The largest size the tools take: 1 PiB, far past any simulated payload
 * and far from int64's end, so that doubling it cannot overflow. */
#define SIZE_ARG_MAX ((int64_t)1 << 50)

/* Parses "4096", "64K", "16M" or "1G" (binary multiples; k, m and g too, as
 * nccl-tests takes them) into *out; returns
 * 0, or -1 if `s` is not a whole size from 1 byte to SIZE_ARG_MAX (a size
 * of 0 would make a doubling sweep spin forever). */
static inline int parse_size_arg(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 1) || v > (double)SIZE_ARG_MAX)
        return -1;
    if (*end == 'K' || *end == 'k')
        v *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1048576, end++;
    else if (*end == 'G' || *end == 'g')
        v *= 1073741824.0, end++;
    if (*end || v > (double)SIZE_ARG_MAX)
        return -1;
    *out = (int64_t)v;
    return 0;
}

#endif
