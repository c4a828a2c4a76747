/* model.c: reads platform model files (models/NAME.model): `key = value`
 * lines with units, `#` comments. */
#include "sim.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const pld__device_keys[] = {"ub_bytes",     "ub_usable_bytes", "hbm_bw",
                                        "hbm_lat",      "vector_rate",     "launch_lat",
                                        "dispatch_lat", "signal_bytes",    NULL};

int pld__device_set(struct pld__device *d, const char *key, const char *value)
{
    struct {
        const char *key;
        double *field;
        int (*parse)(const char *, double *);
    } map[] = {
        {"ub_bytes", &d->ub_bytes, pld__parse_size},
        {"ub_usable_bytes", &d->ub_usable_bytes, pld__parse_size},
        {"hbm_bw", &d->hbm_bw, pld__parse_bandwidth},
        {"hbm_lat", &d->hbm_lat, pld__parse_time},
        {"vector_rate", &d->vector_rate, pld__parse_rate},
        {"launch_lat", &d->launch_lat, pld__parse_time},
        {"dispatch_lat", &d->dispatch_lat, pld__parse_time},
        {"signal_bytes", &d->signal_bytes, pld__parse_size},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(key, map[i].key) == 0) return map[i].parse(value, map[i].field) == 0 ? 1 : -1;
    return 0;
}

void pld__model_default_device(struct pld__device *d)
{
    struct pld__model m;
    for (int i = 0; pld__builtin_models[i].name; i++)
        if (strcmp(pld__builtin_models[i].name, "a2a3") == 0 &&
            pld__model_parse(pld__builtin_models[i].text, "a2a3", &m) == 0) {
            *d = m.dev;
            return;
        }
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

int pld__model_parse(const char *text, const char *origin, struct pld__model *m)
{
    memset(m, 0, sizeof *m);
    m->node_size = 8;
    m->max_devices = PLD_MAX_RANKS;
    char *copy = strdup(text);
    int lineno = 0, rc = 0;
    if (!copy) return PLD_ENOMEM;
    /* split by hand: strtok would skip empty lines and miscount them */
    for (char *p = copy; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *hash = strchr(p, '#');
        if (hash) *hash = '\0';
        char *line = trim(p);
        p = nl ? nl + 1 : NULL;
        if (!*line) continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            rc = pld__config_error(PLD_EPLATFORM, "%s:%d: expected 'key = value', got '%s'", origin,
                                   lineno, line);
            break;
        }
        *eq = '\0';
        char *key = trim(line), *val = trim(eq + 1);
        double v;
        int ok = 1;
        if (strcmp(key, "name") == 0)
            snprintf(m->name, sizeof m->name, "%s", val);
        else if (strcmp(key, "node_size") == 0)
            ok = pld__parse_rate(val, &v) == 0 && v >= 1 && (m->node_size = (int)v) == v;
        else if (strcmp(key, "max_devices") == 0)
            ok = pld__parse_rate(val, &v) == 0 && v >= 1 && v <= PLD_MAX_RANKS &&
                 (m->max_devices = (int)v) == v;
        else if (strcmp(key, "link_bw") == 0)
            ok = pld__parse_bandwidth(val, &m->link_bw) == 0 && m->link_bw > 0;
        else if (strcmp(key, "link_lat") == 0)
            ok = pld__parse_time(val, &m->link_lat) == 0;
        else if (strcmp(key, "nic_bw") == 0)
            ok = pld__parse_bandwidth(val, &m->nic_bw) == 0 && m->nic_bw > 0;
        else if (strcmp(key, "nic_lat") == 0)
            ok = pld__parse_time(val, &m->nic_lat) == 0;
        else if (strcmp(key, "fabric_lat") == 0)
            ok = pld__parse_time(val, &m->fabric_lat) == 0;
        else {
            int r = pld__device_set(&m->dev, key, val);
            if (r == 0) {
                rc = pld__config_error(PLD_EPLATFORM, "%s:%d: unknown key '%s'", origin, lineno,
                                       key);
                break;
            }
            ok = r == 1;
        }
        if (!ok) {
            rc = pld__config_error(PLD_EPLATFORM, "%s:%d: bad value '%s' for '%s'", origin, lineno,
                                   val, key);
            break;
        }
    }
    free(copy);
    if (rc) return rc;
    if (m->link_bw <= 0 || m->dev.hbm_bw <= 0 || m->dev.vector_rate <= 0 ||
        m->dev.ub_usable_bytes <= 0 || m->dev.ub_usable_bytes > m->dev.ub_bytes)
        return pld__config_error(PLD_EPLATFORM,
                                 "%s: incomplete model: link_bw, hbm_bw, vector_rate and "
                                 "ub_usable_bytes <= ub_bytes are required",
                                 origin);
    return 0;
}
