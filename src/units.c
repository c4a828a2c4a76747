/* units.c: numbers with units, as written in models and topology specs. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct unit {
    const char *name;
    double factor;
};

static int parse_with(const char *s, const struct unit *units, int unit_required, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    double v = strtod(s, &end);
    if (end == s || v < 0 || v != v)
        return -1;
    if (*end == '\0') {
        if (unit_required)
            return -1;
        *out = v;
        return 0;
    }
    for (const struct unit *u = units; u->name; u++)
        if (strcmp(end, u->name) == 0) {
            *out = v * u->factor;
            return 0;
        }
    return -1;
}

int pld__parse_bandwidth(const char *s, double *out)
{
    static const struct unit u[] = {
        {"Bps", 1},          {"kBps", 1e3},          {"KBps", 1e3},           {"MBps", 1e6},
        {"GBps", 1e9},       {"TBps", 1e12},         {"KiBps", 1024.0},       {"MiBps", 1048576.0},
        {"GiBps", 1073741824.0}, {"bps", 0.125},     {"Kbps", 125.0},         {"kbps", 125.0},
        {"Mbps", 1.25e5},    {"Gbps", 1.25e8},       {"Tbps", 1.25e11},       {NULL, 0},
    };
    return parse_with(s, u, 0, out);
}

int pld__parse_time(const char *s, double *out)
{
    static const struct unit u[] = {{"s", 1},     {"ms", 1e-3},  {"us", 1e-6},
                                    {"ns", 1e-9}, {"ps", 1e-12}, {NULL, 0}};
    return parse_with(s, u, 0, out);
}

int pld__parse_size(const char *s, double *out)
{
    static const struct unit u[] = {{"B", 1},          {"kB", 1e3},          {"KB", 1e3},
                                    {"MB", 1e6},       {"GB", 1e9},          {"KiB", 1024.0},
                                    {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {NULL, 0}};
    return parse_with(s, u, 0, out);
}

int pld__parse_rate(const char *s, double *out)
{
    static const struct unit u[] = {{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {NULL, 0}};
    return parse_with(s, u, 0, out);
}
