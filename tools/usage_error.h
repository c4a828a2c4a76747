/* usage_error.h: how every pldsim tool refuses a bad command line. */
#ifndef PLDSIM_TOOLS_USAGE_ERROR_H
#define PLDSIM_TOOLS_USAGE_ERROR_H

#include <stdio.h>

/* Prints one line on stderr, "PROG: <fmt with arg> (see --help)", as
 * libpld and the tutorial steps do, and returns the usage status, 2.
 * `fmt` holds at most one %s, for `arg`. */
static inline int usage_error(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fputs(" (see --help)\n", stderr);
    return 2;
}

#endif
