/* model.c: platform models.  One set of keys serves both forms:
 *  - model files (models/NAME.model): `key = value` lines, `#` comments;
 *  - topology specs (--topology KIND:DIMS,key=value,...).
 * See docs/models.md for every key, its unit, default and range.
 *
 * Why the parser is hand-written: both grammars are a flat list of
 * key/value pairs whose values carry units (56GBps, 1.5us, 4x4), and each
 * refusal must name the key, the file:line or the flag, and the range.  A
 * config library (libconfig, inih) would parse the lines but not the units
 * or the spec form, and its messages would not say what pldsim accepts.
 * The grammar is small, and fuzzed (fuzz_topology, fuzz_model). */
#include "model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const topologies[] = {"hccs",    "mesh",    "star",     "ring", "torus2d",
                                         "torus3d", "fattree", "superpod", NULL};

const char *pld__builtin_model_text(const char *name)
{
    for (int i = 0; pld__builtin_models[i].name; i++)
        if (strcmp(pld__builtin_models[i].name, name) == 0)
            return pld__builtin_models[i].text;
    return NULL;
}

void pld__model_device(const struct pld__model *m, int id, struct pld__device *d)
{
    *d = m->dev;
    for (int i = 0; i < m->nslow; i++)
        if (m->slow[i].device == id)
            d->speed_factor = m->slow[i].factor;
}

static void model_defaults(struct pld__model *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->topology, sizeof m->topology, "hccs");
    m->node_size = 8;
    m->max_devices = PLD_MAX_RANKS;
    m->duplex = 1;
    m->dev.speed_factor = 1;
    /* a model written before these keys existed: one core, one engine */
    m->dev.aiv_cores = 1;
    m->dev.sdma_engines = 1;
    m->dev.aic_cores = 1; /* and no cube figures: a matmul is refused */
}

/* "4x4" or "16" or "2x2x4" into m->dims; returns the count of dims or -1. */
static int parse_dims(const char *v, int dims[3])
{
    int n = 0;
    const char *p = v;
    while (*p && n < 3) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 1 || d > PLD_MAX_RANKS)
            return -1;
        dims[n++] = (int)d;
        if (*end == 'x')
            p = end + 1;
        else if (*end == '\0')
            return n;
        else
            return -1;
    }
    return -1;
}

/* The accepted form of each key, for messages. */
static const char *form_of(const char *key)
{
    static const struct {
        const char *key, *form;
    } forms[] = {
        {"topology", "one of hccs, mesh, star, ring, torus2d, torus3d, fattree, superpod"},
        {"dims", "a count or a shape such as 16, 4x4 or 2x2x4"},
        {"node_size", "a device count >= 1"},
        {"nodes", "a node count >= 1"},
        {"max_devices", "a device count from 1 to 16384"},
        {"link_bw", "a bandwidth such as 56GBps or 400Gbps (at least 1Bps)"},
        {"nic_bw", "a bandwidth such as 25GBps (at least 1Bps)"},
        {"uplink_bw", "a bandwidth such as 100GBps (at least 1Bps)"},
        {"link_lat", "a time such as 1us or 500ns (at most 1e6 s)"},
        {"nic_lat", "a time such as 1us (at most 1e6 s)"},
        {"fabric_lat", "a time such as 500ns (at most 1e6 s)"},
        {"duplex", "yes or no"},
        {"link", "A-B:bw=BANDWIDTH[:lat=TIME], e.g. 0-1:bw=10GBps:lat=2us"},
        {"slow", "DEVICE:FACTOR, e.g. 3:2.5 (device 3 computes 2.5x slower; 1e-6 to 1e6)"},
        {"base", "a builtin model whose device numbers to start from (a2a3, a5, hgx-h100)"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(forms[i].key, key) == 0)
            return forms[i].form;
    const char *form = pld__device_key_form(key);
    return form ? form : "see docs/models.md";
}

/* Short names used in topology specs. */
static const char *canonical_key(const char *key)
{
    if (strcmp(key, "bw") == 0)
        return "link_bw";
    if (strcmp(key, "lat") == 0)
        return "link_lat";
    if (strcmp(key, "nic") == 0)
        return "nic_bw";
    if (strcmp(key, "per_node") == 0)
        return "node_size";
    if (strcmp(key, "uplink") == 0)
        return "uplink_bw";
    return key;
}

/* The keys a model file or a spec has set, and where (a line, or a
 * field), so that each is given once: a second value would silently win.
 * link and slow add one entry each, so they may repeat. */
struct given {
    const char *key[128]; /* canonical names: at most every key once */
    int at[128];
    int n;
};

/* Where `key` was given before (> 0), or 0 after noting it at `at`. */
static int given_before(struct given *g, const char *key, int at)
{
    key = canonical_key(key);
    if (strcmp(key, "link") == 0 || strcmp(key, "slow") == 0)
        return 0;
    for (int k = 0; k < g->n; k++)
        if (strcmp(g->key[k], key) == 0)
            return g->at[k];
    if (g->n < 128) {
        g->key[g->n] = key;
        g->at[g->n++] = at;
    }
    return 0;
}

static int parse_link_override(const char *v, struct pld__link_override *o)
{
    char *end;
    memset(o, 0, sizeof *o);
    o->a = (int)strtol(v, &end, 10);
    if (end == v || *end != '-')
        return -1;
    const char *p = end + 1;
    o->b = (int)strtol(p, &end, 10);
    if (end == p || o->a < 0 || o->b < 0 || o->a == o->b)
        return -1;
    p = end;
    while (*p == ':') {
        char key[16], val[64];
        const char *eq = strchr(p + 1, '='), *next;
        if (!eq || (size_t)(eq - p - 1) >= sizeof key)
            return -1;
        memcpy(key, p + 1, (size_t)(eq - p - 1));
        key[eq - p - 1] = '\0';
        next = strchr(eq + 1, ':');
        size_t len = next ? (size_t)(next - eq - 1) : strlen(eq + 1);
        if (len >= sizeof val)
            return -1;
        memcpy(val, eq + 1, len);
        val[len] = '\0';
        if (strcmp(key, "bw") == 0) {
            if (pld__parse_bandwidth(val, &o->bw) || o->bw <= 0)
                return -1;
        } else if (strcmp(key, "lat") == 0) {
            if (pld__parse_time(val, &o->lat))
                return -1;
            o->has_lat = 1;
        } else {
            return -1;
        }
        p = next ? next : eq + 1 + len;
    }
    return *p == '\0' && (o->bw > 0 || o->has_lat) ? 0 : -1;
}

/* Sets one key.  Returns 0, or -1 for a bad value, -2 for an unknown key. */
static int model_set(struct pld__model *m, const char *key, const char *v)
{
    double d;
    key = canonical_key(key);
    if (strcmp(key, "name") == 0) {
        snprintf(m->name, sizeof m->name, "%s", v);
        return 0;
    }
    if (strcmp(key, "topology") == 0) {
        for (int i = 0; topologies[i]; i++)
            if (strcmp(topologies[i], v) == 0) {
                snprintf(m->topology, sizeof m->topology, "%s", v);
                return 0;
            }
        return -1;
    }
    if (strcmp(key, "dims") == 0)
        return (m->ndims = parse_dims(v, m->dims)) > 0 ? 0 : -1;
    if (strcmp(key, "node_size") == 0 || strcmp(key, "nodes") == 0 ||
        strcmp(key, "max_devices") == 0) {
        if (pld__parse_rate(v, &d) || d < 1 || d > PLD_MAX_RANKS || d != (int)d)
            return -1;
        *(strcmp(key, "node_size") == 0 ? &m->node_size
          : strcmp(key, "nodes") == 0   ? &m->nodes
                                        : &m->max_devices) = (int)d;
        return 0;
    }
    if (strcmp(key, "link_bw") == 0 || strcmp(key, "nic_bw") == 0 ||
        strcmp(key, "uplink_bw") == 0) {
        double *f = strcmp(key, "link_bw") == 0  ? &m->link_bw
                    : strcmp(key, "nic_bw") == 0 ? &m->nic_bw
                                                 : &m->uplink_bw;
        return pld__parse_bandwidth(v, f) == 0 && *f > 0 ? 0 : -1;
    }
    if (strcmp(key, "link_lat") == 0)
        return pld__parse_time(v, &m->link_lat);
    if (strcmp(key, "nic_lat") == 0)
        return pld__parse_time(v, &m->nic_lat);
    if (strcmp(key, "fabric_lat") == 0)
        return pld__parse_time(v, &m->fabric_lat);
    if (strcmp(key, "duplex") == 0) {
        if (strcmp(v, "yes") && strcmp(v, "no"))
            return -1;
        m->duplex = strcmp(v, "yes") == 0;
        return 0;
    }
    if (strcmp(key, "link") == 0) {
        if (m->noverrides == PLD__MAX_OVERRIDES)
            return -1;
        return parse_link_override(v, &m->overrides[m->noverrides++]);
    }
    if (strcmp(key, "slow") == 0) {
        char *end;
        long dev = strtol(v, &end, 10);
        if (end == v || *end != ':' || dev < 0 || dev >= PLD_MAX_RANKS ||
            m->nslow == PLD__MAX_OVERRIDES || pld__parse_factor(end + 1, &d))
            return -1;
        m->slow[m->nslow].device = (int)dev;
        m->slow[m->nslow++].factor = d;
        return 0;
    }
    if (strcmp(key, "base") == 0) {
        struct pld__model b;
        const char *text = pld__builtin_model_text(v);
        if (!text || pld__model_parse(text, v, &b) != 0)
            return -1;
        m->dev = b.dev;
        return 0;
    }
    int r = pld__device_set(&m->dev, key, v);
    return r == 1 ? 0 : r == 0 ? -2 : -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int check_complete(const struct pld__model *m, const char *origin)
{
    if (m->link_bw <= 0 || m->dev.ub_usable_bytes <= 0 || !pld__device_usable(&m->dev))
        return pld__config_error(PLD_EPLATFORM,
                                 "%s: incomplete model: link_bw, hbm_bw, vector_rate, "
                                 "speed_factor and ub_usable_bytes <= ub_bytes are required",
                                 origin);
    return 0;
}

int pld__model_parse(const char *text, const char *origin, struct pld__model *m)
{
    static const char bom[] = "\xEF\xBB\xBF"; /* U+FEFF in UTF-8 */
    model_defaults(m);
    /* editors on some systems start a UTF-8 file with a byte order mark;
     * it is no part of the first key (which it hid, as "got ''") */
    if (strncmp(text, bom, 3) == 0)
        text += 3;
    char *copy = strdup(text);
    int lineno = 0, rc = 0;
    struct given given = {.n = 0};
    if (!copy)
        return PLD_ENOMEM;
    /* split by hand: strtok would skip empty lines and miscount them */
    for (char *p = copy; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        /* anywhere else (a file pasted into another) it is invisible in
         * any message that quotes the line: name it and where it is */
        char *mark = strstr(p, bom);
        if (mark) {
            rc = pld__config_error(PLD_EPLATFORM,
                                   "%s:%d: a UTF-8 byte order mark (U+FEFF) at column %d; expected "
                                   "'key = value' in plain text (remove the mark; one at the very "
                                   "start of the file is allowed)",
                                   origin, lineno, (int)(mark - p) + 1);
            break;
        }
        char *line = trim(p);
        p = nl ? nl + 1 : NULL;
        if (!*line)
            continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            rc = pld__config_error(PLD_EPLATFORM, "%s:%d: expected 'key = value', got '%s'", origin,
                                   lineno, line);
            break;
        }
        *eq = '\0';
        char *key = trim(line), *val = trim(eq + 1);
        int first = given_before(&given, key, lineno);
        if (first) {
            rc = pld__config_error(PLD_EPLATFORM,
                                   "%s:%d: '%s' is given twice (first at line %d); give each key "
                                   "once",
                                   origin, lineno, key, first);
            break;
        }
        int r = model_set(m, key, val);
        if (r == -2) {
            rc = pld__config_error(PLD_EPLATFORM, "%s:%d: unknown key '%s'", origin, lineno, key);
            break;
        }
        if (r) {
            rc = pld__config_error(PLD_EPLATFORM, "%s:%d: bad value '%s' for '%s'; expected %s",
                                   origin, lineno, val, key, form_of(canonical_key(key)));
            break;
        }
    }
    free(copy);
    return rc ? rc : check_complete(m, origin);
}

/* The spec fields that describe nodes, with the kinds that have nodes: on
 * another kind the generator never reads them. */
static const char *kind_field_owner(const char *key)
{
    if (strcmp(key, "nodes") == 0)
        return "fattree and superpod";
    if (strcmp(key, "node_size") == 0 || strcmp(key, "nic_bw") == 0 ||
        strcmp(key, "nic_lat") == 0 || strcmp(key, "fabric_lat") == 0 ||
        strcmp(key, "uplink_bw") == 0)
        return "hccs, fattree and superpod";
    return NULL;
}

/* A field `key`=`v` of a spec whose first field gave `kind` (and `size`,
 * or NULL): one message if it contradicts or repeats them, or names
 * nodes the kind does not have; else 0. */
static int check_field_fits_kind(const char *spec, const char *key, const char *v, const char *kind,
                                 const char *size)
{
    const char *k = canonical_key(key), *owner = kind_field_owner(k);
    if (strcmp(k, "topology") == 0)
        return pld__config_error(PLD_EUSAGE,
                                 "--topology '%s': topology=%s %s the kind %s the spec starts "
                                 "with; the kind is the first field, given once",
                                 spec, v, strcmp(v, kind) ? "contradicts" : "repeats", kind);
    if (strcmp(k, "dims") == 0 && size)
        return pld__config_error(PLD_EUSAGE,
                                 "--topology '%s': dims=%s %s the size %s given with the kind "
                                 "(%s:%s); the size follows the kind, once",
                                 spec, v, strcmp(v, size) ? "contradicts" : "repeats", size, kind,
                                 size);
    if (owner && !strstr(owner, kind))
        return pld__config_error(PLD_EUSAGE,
                                 "--topology '%s': %s=%s does not apply to kind %s; %s is a "
                                 "field of %s",
                                 spec, key, v, kind, key, owner);
    return 0;
}

int pld__topology_parse(const char *spec, const struct pld__model *base, struct pld__model *m)
{
    static const char form[] = "KIND[:DIMS][,key=value...], e.g. mesh:8,bw=56GBps,lat=1.5us, "
                               "ring:16, torus2d:4x4, fattree:nodes=4,per_node=8,nic=25GBps";
    /* the base model's link and device numbers are the defaults */
    *m = *base;
    snprintf(m->name, sizeof m->name, "topology");
    snprintf(m->topology, sizeof m->topology, "hccs");
    m->ndims = m->nodes = m->noverrides = m->nslow = 0;
    size_t len = strlen(spec);
    if (len == 0 || spec[0] == ',' || spec[len - 1] == ',' || strstr(spec, ",,"))
        return pld__config_error(PLD_EUSAGE, "--topology '%s': %s; the form is %s", spec,
                                 len == 0 ? "empty" : "an empty field", form);
    char *copy = strdup(spec), *save = NULL;
    const char *size = NULL; /* the size after the kind, as given */
    int rc = 0, field = 0;
    struct given given = {.n = 0};
    if (!copy)
        return PLD_ENOMEM;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        if (++field == 1) {
            char *colon = strchr(tok, ':');
            if (colon)
                *colon = '\0';
            if (model_set(m, "topology", tok)) {
                rc = pld__config_error(PLD_EUSAGE,
                                       "--topology '%s': unknown kind '%s'; expected %s; the "
                                       "form is %s",
                                       spec, tok, form_of("topology"), form);
                break;
            }
            /* fattree's first field may already be a key=value */
            if (colon && strchr(colon + 1, '=')) {
                tok = colon + 1;
            } else {
                if (colon && model_set(m, "dims", colon + 1))
                    rc =
                        pld__config_error(PLD_EUSAGE, "--topology '%s': bad size '%s'; expected %s",
                                          spec, colon + 1, form_of("dims"));
                if (colon)
                    size = colon + 1;
                continue;
            }
        }
        char *eq = strchr(tok, '=');
        if (!eq) {
            rc = pld__config_error(PLD_EUSAGE,
                                   "--topology '%s': '%s' is not key=value; the form is %s", spec,
                                   tok, form);
            break;
        }
        *eq = '\0';
        if ((rc = check_field_fits_kind(spec, tok, eq + 1, m->topology, size)))
            break;
        if (given_before(&given, tok, field)) {
            rc = pld__config_error(PLD_EUSAGE,
                                   "--topology '%s': '%s' is given twice; give each field once",
                                   spec, tok);
            break;
        }
        int r = model_set(m, tok, eq + 1);
        if (r == -2)
            rc = pld__config_error(PLD_EUSAGE,
                                   "--topology '%s': unknown field '%s'; fields are bw, lat, nic, "
                                   "nic_lat, fabric_lat, uplink, nodes, per_node, duplex, link, "
                                   "slow, base and the device keys of docs/models.md",
                                   spec, tok);
        else if (r)
            rc =
                pld__config_error(PLD_EUSAGE, "--topology '%s': bad value '%s' for %s; expected %s",
                                  spec, eq + 1, tok, form_of(canonical_key(tok)));
    }
    int tree = strcmp(m->topology, "fattree") == 0 || strcmp(m->topology, "superpod") == 0;
    if (!rc && tree && m->nodes > 0 && m->ndims > 0 &&
        (m->ndims != 1 || m->dims[0] != m->nodes * m->node_size)) {
        char shape[48] = "";
        for (int k = 0; k < m->ndims; k++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d", k ? "x" : "",
                     m->dims[k]);
        rc = pld__config_error(PLD_EUSAGE,
                               "--topology '%s': nodes=%d of per_node=%d devices is %d devices, "
                               "but the size is %s; give the size or the nodes",
                               spec, m->nodes, m->node_size, m->nodes * m->node_size, shape);
    }
    free(copy);
    if (rc)
        return rc;
    if (tree && m->nodes > 0 && m->ndims == 0) {
        m->dims[0] = m->nodes * m->node_size;
        m->ndims = 1;
    }
    if (strcmp(m->topology, "mesh") == 0 && m->ndims == 1)
        m->node_size = m->dims[0];
    return check_complete(m, "--topology");
}

/* Here, not in device.c: the defaults are the a2a3 model, parsed, so the
 * key table stays a leaf below the parser. */
void pld__device_defaults(struct pld__device *d)
{
    struct pld__model m;
    const char *text = pld__builtin_model_text("a2a3");
    if (text && pld__model_parse(text, "a2a3", &m) == 0)
        *d = m.dev;
}
