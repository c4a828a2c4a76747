/* simgrid_settings.c: every --cfg and --log value is checked here before
 * it reaches SimGrid.  SimGrid 3.32 checks few of its values itself: many
 * it takes as they come and then aborts on (a bandwidth factor of 0, a log
 * file it cannot open), crashes on (a negative maxmin precision), hangs on
 * (a surf precision of 0), or quietly runs wrong with (a negative latency
 * factor makes every transfer faster).  So the settings pldsim passes on
 * are a list: each key with the values it may take, every other key
 * refused with a reason.  A key that is not in the list does not reach
 * SimGrid at all, so a setting added to SimGrid, or an old alias of a
 * listed key, cannot slip past the checks.  docs/errors.md shows the
 * list. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum kind {
    BOOLEAN, /* SimGrid's spellings: yes/no, on/off, true/false, 1/0 */
    NUMBER,  /* a finite double in [lo, hi] (or equal to `also`) */
    INTEGER, /* likewise, a whole number */
    CHOICE,  /* one of the names in `text` (", "-separated) */
    OUT,     /* a file SimGrid will create */
    IN,      /* a file SimGrid will read */
    FOLDER,  /* a directory SimGrid will search */
    TEXT,    /* any text */
    REFUSED, /* never passed on: `text` says why */
};

struct key {
    const char *name; /* a whole key, or a prefix ending in '/' */
    enum kind kind;
    double lo, hi; /* NUMBER, INTEGER: the range, [lo, hi], or (lo, hi] */
    int lo_open;
    int has_also; /* `also` is accepted too (an "off" value outside the range) */
    double also;
    const char *text; /* CHOICE: the names; REFUSED: why; else a note on the value */
};

#define CHOICES(k, list)                                                                           \
    {                                                                                              \
        .name = k, .kind = CHOICE, .text = list                                                    \
    }
#define SWITCH(k)                                                                                  \
    {                                                                                              \
        .name = k, .kind = BOOLEAN                                                                 \
    }
#define NO(k, why)                                                                                 \
    {                                                                                              \
        .name = k, .kind = REFUSED, .text = why                                                    \
    }

static const struct key keys[] = {
    /* the models: SimGrid checks these only when it builds the model,
     * and then exits or crashes (ns-3 is not built in; Constant refuses
     * any platform with links, and every pldsim platform has them) */
    CHOICES("network/model", "CM02, LV08, SMPI, IB"),
    CHOICES("cpu/model", "Cas01"),
    CHOICES("host/model", "default, compound"),
    CHOICES("disk/model", "default"),
    CHOICES("network/optim", "Lazy, TI, Full"),
    CHOICES("cpu/optim", "Lazy, TI, Full"),
    CHOICES("network/solver", "maxmin, fairbottleneck, bmf"),
    CHOICES("cpu/solver", "maxmin, fairbottleneck, bmf"),
    CHOICES("host/solver", "maxmin, fairbottleneck, bmf"),
    CHOICES("disk/solver", "maxmin, fairbottleneck, bmf"),
    /* the network's corrections: a bandwidth factor of 0 or below
     * aborts, a negative latency factor runs faster than the links
     * allow, and extreme ones push times past what a double holds */
    {.name = "network/bandwidth-factor", .kind = NUMBER, .lo = 1e-6, .hi = 1e6},
    {.name = "network/latency-factor", .kind = NUMBER, .lo = 0, .hi = 1e6},
    {.name = "network/weight-S", .kind = NUMBER, .lo = 0, .hi = 1e12},
    {.name = "network/TCP-gamma",
     .kind = NUMBER,
     .lo = 1,
     .hi = 1e18,
     .has_also = 1,
     .also = 0,
     .text = "bytes; 0 turns the window cap off"},
    {.name = "network/loopback-bw", .kind = NUMBER, .lo = 1, .hi = 1e18, .text = "bytes/s"},
    {.name = "network/loopback-lat", .kind = NUMBER, .lo = 0, .hi = 1e3, .text = "seconds"},
    SWITCH("network/crosstraffic"),
    SWITCH("network/maxmin-selective-update"),
    SWITCH("cpu/maxmin-selective-update"),
    /* the solvers' precisions: at 0 or below SimGrid crashes or never
     * ends, and coarse ones abort ("The Impossible Did Happen") or shift
     * every time */
    {.name = "maxmin/precision", .kind = NUMBER, .lo = 0, .hi = 1e-3, .lo_open = 1},
    {.name = "surf/precision",
     .kind = NUMBER,
     .lo = 0,
     .hi = 1e-6,
     .lo_open = 1,
     .text = "seconds"},
    {.name = "bmf/precision", .kind = NUMBER, .lo = 0, .hi = 1e-3, .lo_open = 1},
    {.name = "bmf/max-iterations", .kind = INTEGER, .lo = 1, .hi = 1e9},
    {.name = "maxmin/concurrency-limit",
     .kind = INTEGER,
     .lo = 1,
     .hi = 2147483647.0,
     .has_also = 1,
     .also = -1,
     .text = "-1: no limit"},
    /* SimGrid's own Paje tracing */
    SWITCH("tracing"),
    NO("tracing/smpi", "it traces SMPI programs, and pldsim is not one"),
    {.name = "tracing/filename", .kind = OUT},
    {.name = "tracing/comment", .kind = TEXT},
    {.name = "tracing/comment-file", .kind = IN},
    {.name = "tracing/precision", .kind = INTEGER, .lo = 0, .hi = 17, .text = "digits"},
    SWITCH("tracing/platform"),
    SWITCH("tracing/platform/topology"),
    SWITCH("tracing/uncategorized"),
    SWITCH("tracing/categorized"),
    SWITCH("tracing/actor"),
    SWITCH("tracing/vm"),
    SWITCH("tracing/basic"),
    SWITCH("tracing/disable-destroy"),
    SWITCH("tracing/disable_link"),
    SWITCH("tracing/disable_power"),
    /* plugins that only observe (their reports print with --log=...:info) */
    CHOICES("plugin", "link_load, host_load, link_energy, host_energy"),
    {.name = "path", .kind = FOLDER},
    SWITCH("debug/verbose-exit"),
    SWITCH("debug/clean-atexit"),
    SWITCH("exception/cutpath"),
    /* the rest SimGrid has, and why pldsim keeps them back */
    NO("contexts/", "pldsim chooses SimGrid's contexts itself (pldsim-py: PLDSIM_PY_CONTEXTS)"),
    NO("debug/breakpoint", "it stops the process with SIGTRAP"),
    NO("cmonkey/", "the chaos monkey kills devices in the middle of a run"),
    NO("plugin/", "it belongs to a plugin pldsim does not load"),
    NO("smpi/", "it is for SMPI programs, and pldsim is not one"),
    NO("ns3/", "SimGrid is built without ns-3"),
    NO("model-check/", "SimGrid is built without the model checker"),
};

static const struct key *find_key(const char *k, size_t len)
{
    const struct key *prefix = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t n = strlen(keys[i].name);
        if (n == len && strncmp(k, keys[i].name, n) == 0)
            return &keys[i];
        if (keys[i].name[n - 1] == '/' && n <= len && strncmp(k, keys[i].name, n) == 0 &&
            (!prefix || n > strlen(prefix->name)))
            prefix = &keys[i];
    }
    return prefix;
}

static int in_list(const char *v, size_t len, const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, v, len) == 0)
            return 1;
        p += n;
        p += strspn(p, ", ");
    }
    return 0;
}

static int can_read(const char *path, const char **why)
{
    struct stat st;
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        *why = strerror(errno);
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        *why = "it is a directory";
        return 0;
    }
    return 1;
}

static int is_boolean(const char *v)
{
    static const char *const words[] = {"yes", "no", "on", "off", "true", "false", "1", "0"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(v, words[i]) == 0)
            return 1;
    return 0;
}

static int check_number(const struct key *k, const char *kv, const char *v, const char *from)
{
    char *end;
    errno = 0;
    double x = k->kind == INTEGER ? (double)strtoll(v, &end, 10) : strtod(v, &end);
    int whole = end != v && !*end && !errno && (*v == '-' || *v == '.' || (*v >= '0' && *v <= '9'));
    if (whole && isfinite(x) &&
        ((k->has_also && x == k->also) || ((k->lo_open ? x > k->lo : x >= k->lo) && x <= k->hi)))
        return 0;
    char also[48] = "";
    if (k->has_also)
        snprintf(also, sizeof also, "%.15g or ", k->also);
    return pld__config_error(PLD_EUSAGE, "%s '%s': expected %s %s%s in %c%.15g, %.15g]%s%s%s", from,
                             kv, k->name, also, k->kind == INTEGER ? "a whole number" : "a number",
                             k->lo_open ? '(' : '[', k->lo, k->hi, k->text ? " (" : "",
                             k->text ? k->text : "", k->text ? ")" : "");
}

int pld__check_simgrid_cfg(const char *kv, const char *from)
{
    const char *colon = strchr(kv, ':');
    if (!colon || colon == kv)
        return pld__config_error(PLD_EUSAGE,
                                 "%s '%s': expected KEY:VALUE (e.g. network/model:LV08)", from, kv);
    const char *v = colon + 1, *why;
    size_t klen = (size_t)(colon - kv);
    const struct key *k = find_key(kv, klen);
    if (!k)
        return pld__config_error(PLD_EUSAGE,
                                 "%s '%s': pldsim passes no SimGrid setting '%.*s' (docs/errors.md "
                                 "lists the ones it checks and passes on)",
                                 from, kv, (int)klen, kv);
    switch (k->kind) {
    case REFUSED:
        return pld__config_error(PLD_EUSAGE, "%s '%s': pldsim does not pass it to SimGrid: %s",
                                 from, kv, k->text);
    case BOOLEAN:
        if (is_boolean(v))
            return 0;
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected %s yes or no (on/off, 1/0)", from,
                                 kv, k->name);
    case NUMBER:
    case INTEGER:
        return check_number(k, kv, v, from);
    case CHOICE:
        if (in_list(v, strlen(v), k->text))
            return 0;
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected %s one of %s", from, kv, k->name,
                                 k->text);
    case OUT: {
        char reason[300];
        if (pld__can_write(v, reason, sizeof reason))
            return 0;
        return pld__config_error(PLD_EUSAGE, "%s '%s': cannot write it: %s", from, kv, reason);
    }
    case IN:
        if (can_read(v, &why))
            return 0;
        return pld__config_error(PLD_EUSAGE, "%s '%s': cannot read it: %s", from, kv, why);
    case FOLDER: {
        struct stat st;
        if (stat(v, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        return pld__config_error(PLD_EUSAGE, "%s '%s': expected a directory", from, kv);
    }
    case TEXT:
        return 0;
    }
    return 0;
}

/* A layout (--log=CAT.fmt:FORMAT) SimGrid can print with: it aborts on
 * an unknown %-sequence or a trailing %, and reads widths with strtol
 * (so "%.-5m" would write past its buffer). */
static int layout_ok(const char *f, size_t len, char *bad, size_t badlen)
{
    static const char conversions[] = "%neacpthPiFlLMdrm";
    for (size_t i = 0; i < len; i++) {
        if (f[i] != '%')
            continue;
        size_t start = i++, digits = 0;
        while (i < len && f[i] >= '0' && f[i] <= '9' && digits < 4)
            i++, digits++;
        if (i < len && f[i] == '.') {
            i++;
            for (digits = 0; i < len && f[i] >= '0' && f[i] <= '9' && digits < 4; i++)
                digits++;
        }
        if (i >= len || f[i] == '\0' || !strchr(conversions, f[i])) {
            snprintf(bad, badlen, "%.*s", (int)(i < len ? i + 1 - start : len - start), f + start);
            return 0;
        }
    }
    return 1;
}

/* One word of a log control string, CATEGORY.SETTING:VALUE: 1, or 0 with
 * the reason in `why` (empty: the word has the wrong shape).  SimGrid
 * reads the category up to the first '.', and aborts on a setting other
 * than thresh, app, fmt or add (or their long forms; not "format"). */
static int log_word_ok(const char *w, size_t len, char *why, size_t whylen)
{
    static const char *const settings[] = {"thresh", "threshold", "app", "appender",
                                           "fmt",    "fmt",       "add", "additivity"};
    static const char *const levels[] = {"trace",   "debug", "verbose", "info",
                                         "warning", "error", "critical"};
    const char *colon = memchr(w, ':', len), *dot = memchr(w, '.', len);
    *why = '\0';
    if (!colon || colon + 1 == w + len || !dot || dot == w || dot > colon)
        return 0;
    for (const char *p = w; p < dot; p++)
        if (!(*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            return 0;
    size_t slen = (size_t)(colon - dot - 1), i;
    for (i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (slen == strlen(settings[i]) && strncmp(dot + 1, settings[i], slen) == 0)
            break;
    /* a word of the right shape whose setting is misspelt (root.thres):
     * name the setting, not the whole word again */
    if (i == sizeof settings / sizeof settings[0]) {
        if (slen && !memchr(dot + 1, '.', slen))
            snprintf(why, whylen,
                     "unknown setting '%.*s'; expected thresh, app, fmt or add, as in "
                     "CATEGORY.thresh:LEVEL (e.g. root.thresh:info)",
                     (int)slen, dot + 1);
        return 0;
    }
    const char *v = colon + 1;
    size_t vlen = (size_t)(w + len - v);
    char path[4096], reason[300];
    if (memchr(v, '"', vlen) || memchr(v, '\'', vlen) || memchr(v, '\\', vlen)) {
        snprintf(why, whylen, "quotes and backslashes are not supported in a value");
        return 0;
    }
    switch (i / 2) {
    case 0: /* thresh: a level, in any case */
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
            if (vlen == strlen(levels[l]) && strncasecmp(v, levels[l], vlen) == 0)
                return 1;
        snprintf(why, whylen,
                 "unknown level '%.*s'; expected trace, debug, verbose, info, warning, error or "
                 "critical",
                 (int)vlen, v);
        return 0;
    case 1: /* app: file:PATH, rollfile:BYTES:PATH, splitfile:BYTES:PATH, stdout, stderr */
        if ((vlen == 6 && strncmp(v, "stdout", 6) == 0) ||
            (vlen == 6 && strncmp(v, "stderr", 6) == 0))
            return 1;
        if (vlen > 5 && strncmp(v, "file:", 5) == 0) {
            snprintf(path, sizeof path, "%.*s", (int)(vlen - 5), v + 5);
        } else if ((vlen > 9 && strncmp(v, "rollfile:", 9) == 0) ||
                   (vlen > 10 && strncmp(v, "splitfile:", 10) == 0)) {
            const char *n = v + (v[0] == 'r' ? 9 : 10), *end = v + vlen,
                       *sep = memchr(n, ':', (size_t)(end - n));
            size_t digits = sep ? (size_t)(sep - n) : 0;
            int number = digits > 0 && digits < 16;
            for (size_t d = 0; number && d < digits; d++)
                number = n[d] >= '0' && n[d] <= '9';
            if (!number || sep + 1 >= end) {
                snprintf(why, whylen, "expected %.*sBYTES:FILE with BYTES a whole number",
                         (int)(n - v), v);
                return 0;
            }
            /* splitfile names its files FILE with '%' replaced by 0, 1, ... */
            snprintf(path, sizeof path, "%.*s", (int)(end - sep - 1), sep + 1);
            char *pct = v[0] == 's' ? strchr(path, '%') : NULL;
            if (pct)
                *pct = '0';
        } else {
            snprintf(why, whylen,
                     "unknown appender '%.*s'; expected file:FILE, rollfile:BYTES:FILE, "
                     "splitfile:BYTES:FILE, stdout or stderr",
                     (int)vlen, v);
            return 0;
        }
        if (pld__can_write(path, reason, sizeof reason))
            return 1;
        snprintf(why, whylen, "cannot write %s: %s", path, reason);
        return 0;
    case 2: { /* fmt */
        char bad[32];
        if (layout_ok(v, vlen, bad, sizeof bad))
            return 1;
        snprintf(why, whylen,
                 "'%s' is no layout sequence; expected %%m, %%c, %%p, %%F, %%L, %%M, %%l, %%h, "
                 "%%a, %%t, %%P, %%i, %%d, %%r, %%%%, %%n or %%e, with an optional width and "
                 ".precision",
                 bad);
        return 0;
    }
    default: /* add: SimGrid reads on, yes and 1 as on, anything else as off */
        if ((vlen == 1 && (*v == '1' || *v == '0')) ||
            (vlen == 2 && (strncasecmp(v, "on", 2) == 0 || strncasecmp(v, "no", 2) == 0)) ||
            (vlen == 3 && (strncasecmp(v, "yes", 3) == 0 || strncasecmp(v, "off", 3) == 0)))
            return 1;
        snprintf(why, whylen, "expected yes or no (on/off, 1/0) for additivity");
        return 0;
    }
}

int pld__check_simgrid_log(const char *spec, const char *from)
{
    const char *p = spec;
    int words = 0;
    /* SimGrid takes no_loc only as a whole setting; as one word among
     * others it aborts ("Invalid control string 'no_loc'") */
    if (strcmp(spec, "no_loc") == 0)
        return 0;
    for (const char *c = spec; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return pld__config_error(PLD_EUSAGE,
                                     "%s: a control character in a log setting; separate the "
                                     "settings with spaces",
                                     from);
    while (*p) {
        size_t len = strcspn(p, " ");
        char why[4500];
        if (len && !log_word_ok(p, len, why, sizeof why)) {
            if (*why && len == strlen(spec))
                return pld__config_error(PLD_EUSAGE, "%s '%s': %s", from, spec, why);
            if (*why)
                return pld__config_error(PLD_EUSAGE, "%s '%s': '%.*s': %s", from, spec, (int)len, p,
                                         why);
            return pld__config_error(PLD_EUSAGE,
                                     "%s '%s': '%.*s' is not a SimGrid log setting; expected "
                                     "CATEGORY.thresh:LEVEL (or .fmt, .app, .add), or no_loc alone",
                                     from, spec, (int)len, p);
        }
        words += len > 0;
        p += len;
        p += *p == ' ';
    }
    if (!words)
        return pld__config_error(
            PLD_EUSAGE, "%s: expected a SimGrid log setting (e.g. root.thresh:info)", from);
    return 0;
}
