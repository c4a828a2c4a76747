/* split_args.h: how the benchmark front ends (pldsim-perf, pldsim-hccl-test)
 * share a command line with libpld: the tool's own flags go to the tool,
 * everything else, in order, to pld_parse_args, which takes the common
 * flags (--topology, --platform, ...) and leaves what nobody takes. */
#ifndef PLDSIM_TOOLS_SPLIT_ARGS_H
#define PLDSIM_TOOLS_SPLIT_ARGS_H

#include "usage_error.h"

#include <pld/pld.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

/* One of the tool's options: `c` as getopt_long returns it, `flag` as the
 * user wrote it ("-b" or "--minbytes"); returns 0, or the exit status of
 * a refusal (after its message). */
typedef int (*split_args_take)(int c, const char *value, const char *flag, void *ctx);

/* Parses argv[first..argc-1] (argv[0] is the program): `shorts` and
 * `longs` are the tool's options for getopt_long (`shorts` starting "-:"),
 * each given to `take`; -h sets *help; the rest goes to pld_parse_args.
 * A flag nobody takes is refused with `unknown_fmt` (one %s: the flag), a
 * stray argument with `stray_fmt`.  Returns -1 to go on, or the exit
 * status: 0 for --version, 2 after a refusal's one line. */
static inline int split_args(int argc, char **argv, int first, const char *shorts,
                             const struct option *longs, split_args_take take, void *ctx,
                             pld_config *cfg, int *help, const char *prog, const char *unknown_fmt,
                             const char *stray_fmt)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0, rc = -1;
    if (!rest)
        return usage_error(prog, "out of memory%s", "");
    rest[nrest++] = argv[0];
    optind = 1;
    opterr = 0;
    int sub_argc = argc - first + 1;
    char **sub = argv + first - 1; /* getopt starts at sub[1] */
    while (rc < 0) {
        int at = optind, idx = -1, c = getopt_long(sub_argc, sub, shorts, longs, &idx);
        if (c == -1)
            break;
        if (c == 'h') {
            *help = 1;
        } else if (c == 1 || c == '?') { /* not ours: pld_parse_args' or nobody's */
            /* a cluster of unknown letters is one '?' each, in one element */
            if (optind > at || c == 1)
                rest[nrest++] = c == 1 ? optarg : sub[at];
        } else if (c == ':') {
            rc = usage_error(prog, "%s needs a value", sub[optind - 1]);
        } else {
            char flag[64];
            if (idx >= 0)
                snprintf(flag, sizeof flag, "--%s", longs[idx].name);
            else
                snprintf(flag, sizeof flag, "-%c", c);
            int r = take(c, optarg, flag, ctx);
            if (r)
                rc = r;
        }
    }
    for (int i = optind; rc < 0 && i < sub_argc; i++) /* after "--" */
        rest[nrest++] = sub[i];
    rest[nrest] = NULL;
    optind = 1;
    if (rc < 0 && !*help) {
        int prc = pld_parse_args(cfg, &nrest, rest);
        if (prc < 0)
            rc = 2;
        else if (prc == 2) /* --version */
            rc = 0;
        else if (nrest > 1)
            rc = usage_error(prog, rest[1][0] == '-' ? unknown_fmt : stray_fmt, rest[1]);
    }
    free(rest);
    return rc;
}

#endif
