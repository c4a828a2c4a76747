/* common.c: shared flag handling and golden endings for the tutorial steps. */
#include "common.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const struct tut_spec *s, FILE *out)
{
    fprintf(out, "usage: %s [options]%s%s\n%s\n\n", s->name, s->modes ? " [--mode MODE]" : "",
            s->use_builtin_flag ? " [--use-builtin]" : "", s->summary);
    fputs("Step options:\n", out);
    if (s->modes) {
        fputs("  --mode MODE                one of:", out);
        for (int i = 0; s->modes[i]; i++)
            fprintf(out, " %s", s->modes[i]);
        fprintf(out, " (default %s)\n", s->default_mode);
    }
    if (s->use_builtin_flag)
        fputs("  --use-builtin              use pld_tensor_barrier instead of the hand-rolled "
              "barrier\n",
              out);
    if (s->show_lowering_flag)
        fputs("  --show-lowering            print the primitives the builtin ran on rank 0 next "
              "to\n                             the hand-rolled step's, as a unified diff\n",
              out);
    fputs("  --compile-only             check the flags and the device list, print where the\n"
          "                             program is, and stop (upstream: compile only)\n",
          out);
    if (s->exact_p)
        fprintf(out, "Devices: exactly %d (default -d 0,1)\n", s->exact_p);
    else if (s->p_divides)
        fprintf(out, "Devices: P >= %d dividing %d (default P = %d)\n", s->min_p, s->p_divides,
                s->default_p);
    else
        fprintf(out, "Devices: any P >= %d (default P = %d)\n", s->min_p, s->default_p);
    pld_print_common_usage(out);
}

/* A bad command line: one line, "STEP: what is wrong (see --help)", exit 2. */
_Noreturn static void tut_usage_error(const struct tut_spec *s, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", s->name);
    fprintf(stderr, fmt, arg);
    fputs(" (see --help)\n", stderr);
    exit(2);
}

_Noreturn void tut_refuse(const char *fmt, ...)
{
    va_list ap;
    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* --timing-only: the outputs hold no values, so there is no golden to compare */
static int results_not_computed;

void tut_init(struct tut *t, const struct tut_spec *s, int argc, char **argv)
{
    memset(t, 0, sizeof *t);
    pld_config_init(&t->cfg);
    if (!s->exact_p && s->default_p) {
        char list[32];
        snprintf(list, sizeof list, "0-%d", s->default_p - 1);
        pld_config_set_devices(&t->cfg, list);
    }
    int rc = pld_parse_args(&t->cfg, &argc, argv);
    if (rc == 1) {
        usage(s, stdout);
        exit(0);
    }
    if (rc == 2) /* --version */
        exit(0);
    if (rc < 0)
        exit(2);
    results_not_computed = t->cfg.timing_only;
    t->mode = s->default_mode;
    /* The step's own options, after pld_parse_args took the common ones;
     * refused as pldsim-perf and the libpld options refuse theirs: one
     * line naming the program, the flag and the problem, then exit 2. */
    /* values past any char, so that an unknown short flag's optopt is not one */
    enum { OPT_MODE = 256, OPT_BUILTIN, OPT_LOWERING, OPT_COMPILE_ONLY };
    struct option opts[5];
    int n = 0;
    if (s->modes)
        opts[n++] = (struct option){"mode", required_argument, NULL, OPT_MODE};
    if (s->use_builtin_flag)
        opts[n++] = (struct option){"use-builtin", no_argument, NULL, OPT_BUILTIN};
    if (s->show_lowering_flag)
        opts[n++] = (struct option){"show-lowering", no_argument, NULL, OPT_LOWERING};
    opts[n++] = (struct option){"compile-only", no_argument, NULL, OPT_COMPILE_ONLY};
    opts[n] = (struct option){0};
    optind = 0; /* glibc: start afresh, pld_parse_args used getopt too */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        if (c == OPT_MODE)
            t->mode = optarg;
        else if (c == OPT_BUILTIN)
            t->use_builtin = 1;
        else if (c == OPT_LOWERING)
            t->show_lowering = 1;
        else if (c == OPT_COMPILE_ONLY)
            t->compile_only = 1;
        else if (c == ':')
            tut_usage_error(s, "%s needs a value", argv[optind - 1]);
        else if (optopt >= OPT_MODE) /* a step option of ours, given a value */
            tut_usage_error(s, "'%s' takes no value", argv[optind - 1]);
        else
            tut_usage_error(s, "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        tut_usage_error(s, "unexpected argument '%s'", argv[optind]);
    if (s->modes) {
        int ok = 0;
        for (int i = 0; s->modes[i]; i++)
            ok |= strcmp(s->modes[i], t->mode) == 0;
        if (!ok) {
            fprintf(stderr, "%s: --mode '%s' is not one of:", s->name, t->mode);
            for (int i = 0; s->modes[i]; i++)
                fprintf(stderr, " %s", s->modes[i]);
            fputs(" (see --help)\n", stderr);
            exit(2);
        }
    }
    t->P = t->cfg.ndevices;
    if (s->exact_p && t->P != s->exact_p)
        tut_refuse("%s needs exactly %d devices (-d 0,1), got %d", s->name, s->exact_p, t->P);
    if (!s->exact_p && t->P < s->min_p)
        tut_refuse("%s needs at least %d devices, got %d", s->name, s->min_p, t->P);
    if (s->p_divides && s->p_divides % t->P)
        tut_refuse("%s splits SIZE=%d into P equal chunks, so P must divide %d; got P=%d", s->name,
                   s->p_divides, s->p_divides, t->P);
    if (t->compile_only) {
        /* upstream compiles, prints where the output went, and stops; a C
         * step was compiled by the C compiler, so it names its own place */
        char *slash = strrchr(argv[0], '/');
        printf("compile_only done: %.*s\n", slash ? (int)(slash - argv[0]) : 1,
               slash ? argv[0] : ".");
        exit(0);
    }
}

int tut_finish(int run_rc, int golden_ok, const char *why)
{
    if (run_rc) /* the library has printed the one message that explains it */
        return pld_exit_code(run_rc);
    if (results_not_computed) {
        printf("OK (timing only: results not checked)\n");
        return 0;
    }
    if (!golden_ok) {
        printf("FAIL: golden mismatch: %s\n", why);
        return 1;
    }
    printf("OK\n");
    return 0;
}
