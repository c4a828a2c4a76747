/* options.c: libpld's common options.  One table gives each its flag, its
 * PLD_* environment variable, its --help text and the function that checks
 * and stores its value; pld_parse_args (through getopt_long),
 * pld_print_common_usage and the environment all read it, and
 * tests/system/check_apiref holds docs/api.md to it. */
#include "internal.h"
#include "backend.h"
#include "units.h"

#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* Each stores `v` in cfg or prints one message naming `from` (the flag or
 * the variable it came from) and returns PLD_EUSAGE. */
typedef int (*apply_fn)(pld_config *cfg, const char *v, const char *from);

struct opt {
    const char *name; /* the long flag, without "--" */
    char letter;      /* the short flag, or 0 */
    const char *arg;  /* its value in --help; NULL for a switch */
    const char *env;  /* the environment variable that sets it too, or NULL */
    const char *help; /* lines separated by '\n' */
    apply_fn apply;   /* NULL: the value is a string kept in the field at `field` */
    size_t field;
};

#define STRING_FIELD(f) NULL, offsetof(pld_config, f)

static int set_devices(pld_config *cfg, const char *v, const char *from)
{
    /* the flag as its help shows it; a variable by its own name */
    return pld__config_set_devices(cfg, v, strcmp(from, "--device") == 0 ? "-d/--device" : from);
}

static int set_seed(pld_config *cfg, const char *v, const char *from)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 0);
    if (end == v || *end || errno || *v == '-')
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected a non-negative integer", from, v);
    cfg->seed = s;
    return 0;
}

static int set_network_model(pld_config *cfg, const char *v, const char *from)
{
    if (strcmp(v, "CM02") != 0 && strcmp(v, "LV08") != 0)
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected CM02 or LV08", from, v);
    cfg->network_model = v;
    return 0;
}

static int set_races(pld_config *cfg, const char *v, const char *from)
{
    if (strcmp(v, "off") == 0)
        cfg->races = PLD_RACES_OFF;
    else if (strcmp(v, "warn") == 0)
        cfg->races = PLD_RACES_WARN;
    else if (strcmp(v, "error") == 0)
        cfg->races = PLD_RACES_ERROR;
    else
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected off, warn or error", from, v);
    return 0;
}

static int set_wait_timeout(pld_config *cfg, const char *v, const char *from)
{
    /* 0 is the config's own "not set": no limit on sim, 60 s elsewhere */
    if (pld__parse_time(v, &cfg->wait_timeout) || cfg->wait_timeout < 0)
        return pld__config_error(PLD_EUSAGE,
                                 "%s '%s': expected a simulated time such as 100us or 2ms, at most "
                                 "1e6 s (0: the default)",
                                 from, v);
    return 0;
}

/* Switches: `v` is NULL from a flag, or the variable's text. */
static int switch_on(const char *v, const char *from, int *on)
{
    static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"", "0", "no",
                                                                                "false", "off"};
    *on = 1;
    if (!v)
        return 0;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (strcmp(v, yes[i]) == 0)
            return 0;
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (strcmp(v, no[i]) == 0) {
            *on = 0;
            return 0;
        }
    return pld__config_error(PLD_EUSAGE, "%s='%s': expected 1 or 0", from, v);
}

#define PLD__SWITCH(fn, stmt)                                                                      \
    static int fn(pld_config *cfg, const char *v, const char *from)                                \
    {                                                                                              \
        int on, rc = switch_on(v, from, &on);                                                      \
        if (!rc && on)                                                                             \
            stmt;                                                                                  \
        return rc;                                                                                 \
    }
/* --cfg=KEY:VALUE and --log=SPEC: kept in order for the sim backend,
 * which hands them to SimGrid after its own settings. */
static int add_simgrid(const char **list, int *n, const char *v, const char *from)
{
    if (*n == PLD_MAX_SIMGRID_ARGS)
        return pld__config_error(PLD_EUSAGE,
                                 "%s '%s': more than %d %s flags; expected at most %d, each "
                                 "setting given once",
                                 from, v, PLD_MAX_SIMGRID_ARGS, from, PLD_MAX_SIMGRID_ARGS);
    list[(*n)++] = v;
    return 0;
}

/* Each value is checked before it is kept: SimGrid aborts, crashes or
 * runs wrong on many it takes (src/simgrid_settings.c). */
static int set_simgrid_cfg(pld_config *cfg, const char *v, const char *from)
{
    int rc = pld__check_simgrid_cfg(v, from);
    return rc ? rc : add_simgrid(cfg->simgrid_cfg, &cfg->nsimgrid_cfg, v, from);
}

static int set_simgrid_log(pld_config *cfg, const char *v, const char *from)
{
    int rc = pld__check_simgrid_log(v, from);
    return rc ? rc : add_simgrid(cfg->simgrid_log, &cfg->nsimgrid_log, v, from);
}

PLD__SWITCH(set_no_cacheline_check, cfg->no_cacheline_check = 1)
/* --summary, PLD_SUMMARY=1 or =json: "json" is the JSON summary on
 * stdout (as --summary-json -), anything else a switch. */
static int set_summary(pld_config *cfg, const char *v, const char *from)
{
    if (v && strcmp(v, "json") == 0) {
        cfg->summary_json = "-";
        return 0;
    }
    if (v && strcmp(v, "text") == 0) {
        cfg->detailed_summary = 1;
        return 0;
    }
    int on, quiet = pld__config_error_silent, rc;
    pld__config_error_silent = 1; /* one message, naming every value */
    rc = switch_on(v, from, &on);
    pld__config_error_silent = quiet;
    if (rc)
        return pld__config_error(PLD_EUSAGE, "%s='%s': expected text or json (or 1 or 0)", from, v);
    if (on)
        cfg->detailed_summary = 1;
    return 0;
}

/* --summary-json FILE is written after the run: a name that can never be
 * written (empty, a directory, in a directory that does not exist) is
 * refused now, saying which, rather than after a whole run with "cannot
 * write FILE".  A file that fails as it is written (/dev/full) still
 * fails then, exit 3. */
static int set_summary_json(pld_config *cfg, const char *v, const char *from)
{
    char why[300];
    if (strcmp(v, "-") != 0 && !pld__can_write(v, why, sizeof why))
        return pld__config_error(PLD_EUSAGE,
                                 "%s '%s': %s; expected a file to write the JSON summary to (or - "
                                 "for stdout)",
                                 from, v, why);
    cfg->summary_json = v;
    return 0;
}

/* --trace FILE and --save-platform FILE are written during or after the
 * run: a name that can never be written is refused now (it failed only
 * after the run, exit 3, or an empty one was silently taken as "none"). */
static int check_output(const char *v, const char *from, const char *what)
{
    char why[300];
    if (!pld__can_write(v, why, sizeof why))
        return pld__config_error(PLD_EUSAGE, "%s '%s': %s; expected a file to write %s to", from, v,
                                 why, what);
    return 0;
}

static int set_trace(pld_config *cfg, const char *v, const char *from)
{
    int rc = check_output(v, from, "the trace");
    if (!rc)
        cfg->trace = v;
    return rc;
}

static int set_save_platform(pld_config *cfg, const char *v, const char *from)
{
    int rc = check_output(v, from, "the SimGrid platform");
    if (!rc)
        cfg->save_platform = v;
    return rc;
}

PLD__SWITCH(set_no_summary, cfg->summary = 0)
PLD__SWITCH(set_no_data, cfg->no_data = 1)
PLD__SWITCH(set_timing_only, cfg->no_data = cfg->timing_only = 1)
PLD__SWITCH(set_trace_linear, cfg->trace_linear = 1)
#undef PLD__SWITCH

static const struct opt opts[] = {
    {"platform", 'p', "NAME|FILE", "PLD_PLATFORM",
     "a2a3sim (default), a2a3, a5sim, a5, a SimGrid FILE.xml\n"
     "whose hosts are named dev0, dev1, ..., or a FILE.model",
     STRING_FIELD(platform)},
    {"device", 'd', "LIST", "PLD_DEVICE", "device ids, one rank each: 0,1,2,3 or 0-7 (default 0,1)",
     set_devices, 0},
    {"topology", 0, "SPEC", "PLD_TOPOLOGY",
     "generate the interconnect: mesh:8,bw=56GBps,lat=1.5us,\n"
     "ring:16, torus2d:4x4, torus3d:2x2x4, star:8,\n"
     "fattree:nodes=4,per_node=8,nic=25GBps,\n"
     "superpod:8192,uplink=100GBps (docs/models.md)",
     STRING_FIELD(topology)},
    {"backend", 0, "NAME", "PLD_BACKEND",
     "sim (default); threads (one OS thread per device,\n"
     "wall-clock time); mpi (one process per device:\n"
     "mpirun -np P PROG --backend mpi); also PLD_BACKEND",
     STRING_FIELD(backend)},
    {"trace", 0, "FILE", "PLD_TRACE",
     "write a trace: FILE.json for Perfetto, FILE.svg for a\n"
     "timeline picture, any other name for the text trace",
     set_trace, 0},
    {"trace-linear", 0, NULL, "PLD_TRACE_LINEAR",
     "--trace FILE.svg: draw time to scale, without cutting\n"
     "short the stretches where ranks only wait",
     set_trace_linear, 0},
    {"seed", 0, "N", "PLD_SEED", "seed for random inputs (default 0)", set_seed, 0},
    {"network-model", 0, "NAME", "PLD_NETWORK_MODEL",
     "sim: CM02 (default, exact latency+size/bandwidth) or LV08", set_network_model, 0},
    {"races", 0, "off|warn|error", "PLD_RACES", "data-race detector (default error up to 64 ranks)",
     set_races, 0},
    {"wait-timeout", 0, "TIME", "PLD_WAIT_TIMEOUT",
     "a wait that blocks longer (simulated) is reported as a\n"
     "deadlock, like hardware's spin limit (e.g. 1ms); 0: the\n"
     "default (none on sim, 60 s on threads and mpi)",
     set_wait_timeout, 0},
    {"no-cacheline-check", 0, NULL, "PLD_NO_CACHELINE_CHECK",
     "do not warn about window buffers sharing a 64-byte line", set_no_cacheline_check, 0},
    {"summary", 0, NULL, "PLD_SUMMARY",
     "after the run: busy/waiting/idle time and bytes per rank,\n"
     "bytes and peak utilisation per link, critical path;\n"
     "--summary=json: the same as JSON on stdout",
     set_summary, 0},
    {"summary-json", 0, "FILE", "PLD_SUMMARY_JSON",
     "write the run summary as JSON (docs/summary.md) to FILE\n"
     "(- for stdout)",
     set_summary_json, 0},
    {"no-summary", 0, NULL, "PLD_NO_SUMMARY", "do not print the run summary line", set_no_summary,
     0},
    {"no-data", 0, NULL, "PLD_NO_DATA",
     "timing only: window payloads are neither kept nor\n"
     "copied (signals are); reading them back is an error",
     set_no_data, 0},
    {"timing-only", 0, NULL, "PLD_TIMING_ONLY",
     "no values but INT32/INT64/UINT32 ones, which steer\n"
     "(implies --no-data): loads, products and stores into\n"
     "host tensors are charged but not computed, so float\n"
     "outputs keep what they held; the simulated times are\n"
     "those of a run with data",
     set_timing_only, 0},
    {"save-platform", 0, "FILE", "PLD_SAVE_PLATFORM",
     "sim: write the SimGrid platform XML the run simulates\n"
     "on (generated from the model or --topology) to FILE",
     set_save_platform, 0},
    {"cfg", 0, "KEY:VALUE", NULL,
     "sim: a SimGrid setting, after pldsim's own (so it\n"
     "overrides them): --cfg=network/model:LV08,\n"
     "--cfg=tracing:yes (repeatable; SimGrid's --help-cfg)",
     set_simgrid_cfg, 0},
    {"log", 0, "SPEC", NULL,
     "sim: a SimGrid log setting (repeatable), e.g.\n"
     "--log=root.thresh:info (SimGrid's --help-logs)",
     set_simgrid_log, 0},
    {"dump-outputs", 0, "FILE", NULL,
     "after the run, write every host tensor (name, dtype,\n"
     "shape, exact values) to FILE, to compare backends",
     STRING_FIELD(dump_outputs)},
};
enum { NOPTS = sizeof opts / sizeof opts[0], HELP_COLUMN = 29, VERSION_FLAG = 255 };

void pld_print_version(const char *argv0)
{
    const char *base = argv0 && strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    printf("%s (pldsim) %s\n", base && *base ? base : "pldsim", pld_version());
}

void pld_print_common_usage(void *out)
{
    FILE *f = out;
    fputs("Common options:\n", f);
    for (size_t i = 0; i < NOPTS; i++) {
        const struct opt *o = &opts[i];
        char head[64], letter[8] = "    ";
        if (o->letter)
            snprintf(letter, sizeof letter, "-%c, ", o->letter);
        int n = snprintf(head, sizeof head, "  %s--%s%s%s", letter, o->name, o->arg ? " " : "",
                         o->arg ? o->arg : "");
        fprintf(f, "%s%*s", head, n < HELP_COLUMN ? HELP_COLUMN - n : 1, "");
        for (const char *p = o->help; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "%.*s\n", (int)len, p);
            p += len;
            if (*p == '\n') {
                p++;
                fprintf(f, "%*s", HELP_COLUMN, "");
            }
        }
    }
    fprintf(f, "  --version%*sthe program's name and pldsim's version\n", HELP_COLUMN - 11, "");
    fprintf(f, "  -h, --help%*sthis help\n", HELP_COLUMN - 12, "");
}

static int apply(pld_config *cfg, const struct opt *o, const char *v, const char *from)
{
    if (o->apply)
        return o->apply(cfg, v, from);
    *(const char **)((char *)cfg + o->field) = v;
    return 0;
}

/* The variables first, so that a flag overrides its variable. */
static int apply_environment(pld_config *cfg)
{
    for (size_t i = 0; i < NOPTS; i++) {
        const char *v = opts[i].env ? getenv(opts[i].env) : NULL;
        int rc;
        /* PLD_BACKEND is read by pld_config_init, before any parsing */
        if (v && strcmp(opts[i].env, "PLD_BACKEND") != 0 && (opts[i].arg ? *v != '\0' : 1) &&
            (rc = apply(cfg, &opts[i], v, opts[i].env)) != 0)
            return rc;
    }
    return 0;
}

int pld_parse_args(pld_config *cfg, int *argc, char **argv)
{
    struct option longs[NOPTS + 3];
    char shorts[2 * NOPTS + 8] = "-:h"; /* keep the order; report a missing value */
    size_t ns = strlen(shorts);
    for (size_t i = 0; i < NOPTS; i++) {
        /* --summary alone, or --summary=json: the one switch with a value */
        int has = opts[i].arg                    ? required_argument
                  : opts[i].apply == set_summary ? optional_argument
                                                 : no_argument;
        longs[i] = (struct option){opts[i].name, has, NULL, (int)(256 + i)};
        if (opts[i].letter) {
            shorts[ns++] = opts[i].letter;
            shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[NOPTS] = (struct option){"help", no_argument, NULL, 'h'};
    longs[NOPTS + 1] = (struct option){"version", no_argument, NULL, VERSION_FLAG};
    longs[NOPTS + 2] = (struct option){0};

    int rc = apply_environment(cfg), help = 0, version = 0, out = 1;
    /* getopt keeps its state in globals: start it afresh (glibc: optind 0),
     * and let the program see the flags that are not ours, in order */
    optind = 0;
    opterr = 0;
    while (!rc) {
        int at = optind ? optind : 1, c = getopt_long(*argc, argv, shorts, longs, NULL);
        if (c == -1) {
            if (optind > at && strcmp(argv[optind - 1], "--") == 0)
                argv[out++] = argv[optind - 1]; /* the program may need it too */
            break;
        }
        const struct opt *o = c >= 256 ? &opts[c - 256] : NULL;
        for (size_t i = 0; !o && c != 'h' && c != 1 && c != '?' && c != ':' && i < NOPTS; i++)
            if (opts[i].letter == c)
                o = &opts[i];
        if (o) {
            char from[40];
            snprintf(from, sizeof from, "--%s", o->name);
            rc = apply(cfg, o, optarg, from);
        } else if (c == 'h') {
            help = 1;
        } else if (c == VERSION_FLAG) {
            version = 1;
        } else if (c == ':') {
            rc = pld__config_error(PLD_EUSAGE, "%s needs a value (see --help)", argv[optind - 1]);
        } else if (c == '?' && strncmp(argv[at], "--", 2) == 0 && strchr(argv[at], '=')) {
            /* --summary=1: ours, but a switch; --mode=x: the program's */
            size_t len = (size_t)(strchr(argv[at], '=') - argv[at] - 2);
            for (size_t i = 0; i < NOPTS; i++)
                if (!opts[i].arg && strlen(opts[i].name) == len &&
                    strncmp(opts[i].name, argv[at] + 2, len) == 0)
                    rc = pld__config_error(PLD_EUSAGE, "--%s takes no value (see --help)",
                                           opts[i].name);
            if (!rc)
                argv[out++] = argv[at];
        } else {
            /* the program's own: an operand (1) or a flag we do not know;
             * a cluster such as -xy goes through whole */
            if (optind > at)
                argv[out++] = argv[at];
        }
    }
    if (rc)
        return rc;
    for (int i = optind; i < *argc; i++) /* after "--" */
        argv[out++] = argv[i];
    *argc = out;
    argv[out] = NULL;
    optind = 0;
    if (help)
        return 1;
    if (version) {
        pld_print_version(argv[0]);
        return 2;
    }
    return 0;
}
