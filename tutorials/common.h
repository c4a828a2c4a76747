/* common.h: what every tutorial step shares: flags, the device-count rule,
 * and how a golden check ends the program. */
#ifndef PLD_TUTORIAL_COMMON_H
#define PLD_TUTORIAL_COMMON_H

#include <pld/pld.h>

/* What a step accepts beyond the common flags. */
struct tut_spec {
    const char *name;         /* "01_hello_rank" */
    const char *summary;      /* one line for --help */
    const char *const *modes; /* accepted --mode values, NULL-terminated, or NULL */
    const char *default_mode; /* when --mode is not given */
    int use_builtin_flag;     /* accepts --use-builtin */
    int exact_p;              /* > 0: needs exactly this many devices */
    int min_p;                /* otherwise at least this many */
    int default_p;            /* device count when -d is not given */
    int p_divides;            /* > 0: P must divide this (steps 09, 10) */
    int show_lowering_flag;   /* accepts --show-lowering (step 11) */
};

struct tut {
    pld_config cfg;
    int P;
    const char *mode;  /* the chosen --mode, or NULL */
    int use_builtin;   /* --use-builtin was given */
    int show_lowering; /* --show-lowering was given */
    int compile_only;  /* --compile-only: stop after the checks, as upstream */
};

/* Parses the common and the step's flags, applies the device-count rule,
 * prints --help.  Exits with 0 after --help, 2 on a usage error. */
void tut_init(struct tut *t, const struct tut_spec *spec, int argc, char **argv);

/* Runs the common ending: reports a failed run (its exit code), or the
 * golden's verdict: prints "OK" and returns 0, or the mismatch and returns 1. */
int tut_finish(int run_rc, int golden_ok, const char *why);

/* Refuses the run with upstream's meaning ("needs ...") and exits 2. */
_Noreturn void tut_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
