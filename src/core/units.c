/* units.c: numbers with units, as written in models and topology specs. */
#include "internal.h"
#include "units.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A unit scales by `factor`; sub-units divide by `divisor` instead, so that
 * 500ns gives the double nearest 5e-7 (500 * 1e-9 would not). */
struct unit {
    const char *name;
    double factor;
    double divisor;
};

static int parse_with(const char *s, const struct unit *units, int unit_required, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    double v = strtod(s, &end);
    /* NaN and infinities are refused here, scaled ones below: SimGrid
     * aborts the process on a non-finite latency or bandwidth */
    if (end == s || v < 0 || v != v || v > DBL_MAX)
        return -1;
    if (*end == '\0') {
        if (unit_required)
            return -1;
        *out = v;
        return 0;
    }
    for (const struct unit *u = units; u->name; u++)
        if (strcmp(end, u->name) == 0) {
            double scaled = u->divisor ? v / u->divisor : v * u->factor;
            if (scaled > DBL_MAX)
                return -1;
            *out = scaled;
            return 0;
        }
    return -1;
}

#define MUL(name, f)                                                                               \
    {                                                                                              \
        name, f, 0                                                                                 \
    }
#define DIV(name, d)                                                                               \
    {                                                                                              \
        name, 0, d                                                                                 \
    }
#define END                                                                                        \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

int pld__parse_bandwidth(const char *s, double *out)
{
    static const struct unit u[] = {
        MUL("Bps", 1),
        MUL("kBps", 1e3),
        MUL("KBps", 1e3),
        MUL("MBps", 1e6),
        MUL("GBps", 1e9),
        MUL("TBps", 1e12),
        MUL("KiBps", 1024.0),
        MUL("MiBps", 1048576.0),
        MUL("GiBps", 1073741824.0),
        DIV("bps", 8),
        MUL("Kbps", 125.0),
        MUL("kbps", 125.0),
        MUL("Mbps", 1.25e5),
        MUL("Gbps", 1.25e8),
        MUL("Tbps", 1.25e11),
        END,
    };
    /* below 1 B/s a time overflows to inf (issue 41); 0 stays: "not modelled" */
    return parse_with(s, u, 0, out) || (*out != 0 && *out < 1) ? -1 : 0;
}

int pld__parse_time(const char *s, double *out)
{
    static const struct unit u[] = {MUL("s", 1),    DIV("ms", 1e3),  DIV("us", 1e6),
                                    DIV("ns", 1e9), DIV("ps", 1e12), END};
    /* a latency of 1e300 s made the summary print a 300-digit time */
    return parse_with(s, u, 0, out) || *out > PLD__MAX_TIME_S ? -1 : 0;
}

int pld__parse_size(const char *s, double *out)
{
    static const struct unit u[] = {
        MUL("B", 1),           MUL("kB", 1e3),           MUL("KB", 1e3),
        MUL("MB", 1e6),        MUL("GB", 1e9),           MUL("KiB", 1024.0),
        MUL("MiB", 1048576.0), MUL("GiB", 1073741824.0), END};
    return parse_with(s, u, 0, out);
}

int pld__parse_rate(const char *s, double *out)
{
    static const struct unit u[] = {MUL("k", 1e3), MUL("M", 1e6), MUL("G", 1e9), MUL("T", 1e12),
                                    END};
    /* vector_rate = 1e-300 made one op take 1e300 s */
    return parse_with(s, u, 0, out) || (*out != 0 && (*out < 1 || *out > 1e21)) ? -1 : 0;
}

int pld__parse_factor(const char *s, double *out)
{
    static const struct unit none[] = {END};
    /* speed_factor = 1e308 made the run's time overflow */
    return parse_with(s, none, 0, out) || *out < 1e-6 || *out > 1e6 ? -1 : 0;
}

int pld__parse_count(const char *s, double *out)
{
    double v;
    static const struct unit none[] = {END};
    if (parse_with(s, none, 0, &v) || v < 1 || v > 65536 || v != (double)(int)v)
        return -1;
    *out = v;
    return 0;
}

const char *const pld__trust_names[PLD__NTRUST] = {"guess", "spec", "fitted", "checked"};

int pld__parse_trust(const char *s, double *out)
{
    for (int k = 0; k < PLD__NTRUST; k++) {
        char digit[2] = {(char)('0' + k), 0};
        if (strcmp(s, pld__trust_names[k]) == 0 || strcmp(s, digit) == 0) {
            *out = k;
            return 0;
        }
    }
    return -1;
}

const char *pld__format_size(double bytes, char *buf, size_t len)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (bytes >= 1024.0 && k < 6) {
        bytes /= 1024.0;
        k++;
    }
    snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", bytes, names[k]);
    return buf;
}
