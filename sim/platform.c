/* platform.c: turns --platform into a loaded SimGrid platform.  A model name
 * (a2a3sim, a5, ...) or a FILE.model is generated into platform XML for the
 * devices asked for; a FILE.xml is loaded as it is.  Then ranks are mapped
 * to hosts "dev<id>"; their device numbers come from the model, or for a
 * FILE.xml from its <prop>s. */
#include "sim.h"

#include <errno.h>
#include <float.h>
#include <simgrid/link.h>
#include <sys/stat.h>
#include <xbt/sysdep.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *platform; /* what --platform accepts */
    const char *model;    /* models/<model>.model */
} aliases[] = {
    {"a2a3sim", "a2a3"},      {"a2a3", "a2a3"}, {"a5sim", "a5"},        {"a5", "a5"},
    {"hgx-h100", "hgx-h100"}, {"ring", "ring"}, {"torus2d", "torus2d"}, {"torus3d", "torus3d"},
    {"fat-tree", "fat-tree"}, {NULL, NULL}};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Writes the platform to `out` (NULL: it could not be opened) and closes
 * it.  Returns 0, or -1 on any failure. */
static int write_platform(FILE *out, const struct pld__model *m, int ndev, const int dims[3],
                          int nd)
{
    int werr = !out || pld__platform_write(out, m, ndev, dims, nd) != 0;
    if (out && fclose(out) != 0)
        werr = 1;
    return werr ? -1 : 0;
}

/* Copies the platform file `from` to `to` (--save-platform of a FILE.xml). */
static int copy_file(const char *from, const char *to)
{
    char *text = pld__sim_read_file(from);
    FILE *f = text ? fopen(to, "w") : NULL;
    int bad = !f || fputs(text, f) == EOF;
    if (f && fclose(f) != 0)
        bad = 1;
    free(text);
    if (bad)
        return pld__config_error(PLD_EIO, "--save-platform: cannot write %s: %s", to,
                                 strerror(errno));
    return 0;
}

/* Where --save-platform (or PLD_SAVE_PLATFORM) puts the platform, or NULL.
 * The scale benchmark used to ask with PLDSIM_SAVE_PLATFORM, under another
 * prefix than every other variable; that name still works, with a note. */
static const char *save_platform_path(const struct pld__run_env *env)
{
    if (env->cfg->save_platform && *env->cfg->save_platform)
        return env->cfg->save_platform;
    const char *old = getenv("PLDSIM_SAVE_PLATFORM");
    if (old && *old) {
        fprintf(stderr,
                "pldsim: note: PLDSIM_SAVE_PLATFORM is deprecated; use --save-platform FILE "
                "or PLD_SAVE_PLATFORM\n");
        return old;
    }
    return NULL;
}

/* Generates the platform of `m` for the devices the run asks for, and loads
 * it into SimGrid (through a temporary file, removed at once).  SimGrid
 * takes the interconnect from the file; the ranks take their device numbers
 * from `m` itself (*generated), not parsed back from the file's <prop>s. */
static int load_model(const struct pld__run_env *env, const struct pld__model *m,
                      const struct pld__model **generated)
{
    int maxid = 0, dims[3], nd;
    for (int r = 0; r < env->P; r++)
        if (env->cfg->device_ids[r] > maxid)
            maxid = env->cfg->device_ids[r];
    if (maxid + 1 > m->max_devices)
        return pld__config_error(PLD_EDEVICES,
                                 "model %s holds at most %d devices (ids 0..%d); device id %d was "
                                 "asked for",
                                 m->name, m->max_devices, m->max_devices - 1, maxid);
    int ndev = pld__model_devices(m, maxid + 1, dims, &nd);
    if (ndev < 0)
        return ndev;
    const char *tmpdir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/pldsim-platform-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return pld__config_error(PLD_EIO, "cannot create a temporary platform file in %s: %s",
                                 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    const char *keep = save_platform_path(env);
    if (write_platform(fdopen(fd, "w"), m, ndev, dims, nd) ||
        (keep && *keep && write_platform(fopen(keep, "w"), m, ndev, dims, nd))) {
        unlink(path);
        return pld__config_error(PLD_EIO, "cannot write the generated platform %s: %s",
                                 keep && *keep ? keep : path, strerror(errno));
    }
    char err[512];
    int rc = pld__sgx_load_platform(path, err, sizeof err);
    unlink(path);
    if (rc)
        return pld__config_error(PLD_EPLATFORM, "generated platform for model %s did not load: %s",
                                 m->name, err);
    *generated = m;
    return 0;
}

/* The text of the builtin model that --platform NAME names, or NULL. */
static const char *builtin_model_text(const char *platform, const char **model)
{
    *model = NULL;
    for (int i = 0; aliases[i].platform; i++)
        if (strcmp(aliases[i].platform, platform) == 0)
            *model = aliases[i].model;
    return *model ? pld__builtin_model_text(*model) : NULL;
}

static int read_props(sg_host_t h, struct pld__device *d, const char *platform)
{
    for (int k = 0; pld__device_keys[k]; k++) {
        const char *v = sg_host_get_property_value(h, pld__device_keys[k]);
        if (v && pld__device_set(d, pld__device_keys[k], v) != 1)
            return pld__config_error(PLD_EPLATFORM,
                                     "%s: host %s: <prop id=\"%s\" value=\"%s\"/> is not a valid "
                                     "value (see docs/models.md for units)",
                                     platform, sg_host_get_name(h), pld__device_keys[k], v);
    }
    if (!pld__device_usable(d))
        return pld__config_error(PLD_EPLATFORM,
                                 "%s: host %s: hbm_bw, vector_rate and speed_factor must be > 0 "
                                 "and ub_usable_bytes <= ub_bytes",
                                 platform, sg_host_get_name(h));
    return 0;
}

/* SimGrid takes a link of zero bandwidth, or an infinite one, and aborts
 * the process when a flow crosses it; a negative latency it takes too, and
 * the run gets faster.  A platform file's links are checked first. */
static int check_links(const char *platform)
{
    sg_link_t *links = sg_link_list();
    size_t n = sg_link_count();
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        double bw = sg_link_get_bandwidth(links[i]), lat = sg_link_get_latency(links[i]);
        if (!(bw > 0) || bw > DBL_MAX)
            rc = pld__config_error(PLD_EPLATFORM,
                                   "%s: link %s has bandwidth %g B/s; expected a finite "
                                   "bandwidth > 0",
                                   platform, sg_link_get_name(links[i]), bw);
        else if (!(lat >= 0) || lat > DBL_MAX)
            rc = pld__config_error(PLD_EPLATFORM,
                                   "%s: link %s has latency %g s; expected a finite latency >= 0",
                                   platform, sg_link_get_name(links[i]), lat);
    }
    xbt_free(links);
    return rc;
}

int pld__sim_lone_flows_exact(const pld_config *cfg)
{
    if (cfg->topology || !ends_with(cfg->platform, ".xml"))
        return 1; /* pldsim wrote it: no profiles, no Wi-Fi */
    char *text = pld__sim_read_file(cfg->platform);
    /* bandwidth_file, latency_file, state_file; <trace>, <trace_connect> */
    int plain = text && !strstr(text, "_file") && !strstr(text, "<trace") &&
                !strstr(text, "WIFI") && !strstr(text, "wifi");
    free(text);
    return plain;
}

int pld__sim_split_duplex(const pld_config *cfg)
{
    if (cfg->topology || !ends_with(cfg->platform, ".xml"))
        return 1; /* every generated platform's links are */
    char *text = pld__sim_read_file(cfg->platform);
    int found = text && strstr(text, "SPLITDUPLEX");
    free(text);
    return found;
}

int pld__sim_load_platform(const struct pld__run_env *env, const struct pld__frontend *fe,
                           sg_host_t *rank_hosts, sg_host_t *cpu, struct pld__device *devs)
{
    char desc[PLD__PLATFORM_DESC]; /* the platform's name, for the summary line */
    const char *p = env->cfg->platform;
    int rc = 0;

    struct pld__model m;
    const struct pld__model *generated = NULL; /* the model the platform was made from */
    if (env->cfg->topology) {
        /* The spec replaces the interconnect; device numbers come from
         * the --platform model when it is a builtin one, else from a2a3. */
        const char *model, *text = builtin_model_text(p, &model);
        if (!text)
            text = builtin_model_text("a2a3", &model);
        struct pld__model base;
        if ((rc = pld__model_parse(text, model, &base)) == 0 &&
            (rc = pld__topology_parse(env->cfg->topology, &base, &m)) == 0)
            rc = load_model(env, &m, &generated);
        if (rc)
            return rc;
        snprintf(desc, sizeof desc, "topology %s", env->cfg->topology);
        fe->set_platform_desc(desc);
    } else if (ends_with(p, ".xml")) {
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            return pld__config_error(PLD_EPLATFORM,
                                     "platform file %s is a directory; expected a SimGrid "
                                     "platform XML file",
                                     p);
        FILE *f = fopen(p, "r");
        if (!f)
            return pld__config_error(PLD_EPLATFORM, "cannot read platform file %s: %s", p,
                                     strerror(errno));
        fclose(f);
        if ((rc = pld__sim_precheck_platform(p)))
            return rc;
        char err[512];
        if (pld__sgx_load_platform(p, err, sizeof err) != 0)
            return pld__config_error(PLD_EPLATFORM, "malformed platform file %s: %s", p, err);
        if ((rc = check_links(p)))
            return rc;
        const char *keep = save_platform_path(env);
        if (keep && (rc = copy_file(p, keep)))
            return rc;
    } else if (ends_with(p, ".model")) {
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            return pld__config_error(PLD_EPLATFORM,
                                     "model file %s is a directory; expected a .model file", p);
        char *text = pld__sim_read_file(p);
        if (!text)
            return pld__config_error(PLD_EPLATFORM, "cannot read model file %s: %s", p,
                                     strerror(errno));
        rc = pld__model_parse(text, p, &m);
        free(text);
        if (!rc)
            rc = load_model(env, &m, &generated);
    } else {
        const char *model, *text = builtin_model_text(p, &model);
        if (!text)
            return pld__config_error(PLD_EPLATFORM,
                                     "unknown platform '%s'; expected a2a3sim, a2a3, a5sim, a5, "
                                     "hgx-h100, ring, torus2d, torus3d, fat-tree, a SimGrid "
                                     "FILE.xml or a FILE.model",
                                     p);
        rc = pld__model_parse(text, model, &m);
        if (!rc)
            rc = load_model(env, &m, &generated);
    }
    if (rc)
        return rc;
    if (!env->cfg->topology) {
        snprintf(desc, sizeof desc, "%s", strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
        fe->set_platform_desc(desc);
    }
    p = desc;

    int ndev = 0;
    for (int id = 0; id < PLD_MAX_RANKS; id++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", id);
        if (!sg_host_by_name(name))
            break;
        ndev++;
    }
    for (int r = 0; r < env->P; r++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", env->cfg->device_ids[r]);
        rank_hosts[r] = sg_host_by_name(name);
        if (!rank_hosts[r] && ndev == 0)
            return pld__config_error(PLD_EDEVICES,
                                     "platform %s has no host '%s' for rank %d, nor a dev0: "
                                     "pldsim runs rank r on host devN, N the r-th id of -d, so "
                                     "its hosts must be named dev0, dev1, ...",
                                     p, name, r);
        if (!rank_hosts[r])
            return pld__config_error(PLD_EDEVICES,
                                     "platform %s has no host '%s' for rank %d: it holds %d "
                                     "devices (dev0..dev%d); use -d with ids below %d",
                                     p, name, r, ndev, ndev - 1, ndev);
        if (generated) {
            pld__model_device(generated, env->cfg->device_ids[r], &devs[r]);
        } else {
            pld__device_defaults(&devs[r]);
            if ((rc = read_props(rank_hosts[r], &devs[r], p)))
                return rc;
        }
        fe->set_device(r, &devs[r]);
    }
    *cpu = sg_host_by_name("host");
    /* a generated platform's host has no <prop>s: it is the model's device
     * (a straggler's factor is its own, not the host's) */
    struct pld__device host = generated ? generated->dev : devs[0];
    if (!*cpu)
        *cpu = rank_hosts[0];
    else if (!generated && (rc = read_props(*cpu, &host, p)))
        return rc;
    fe->set_device(PLD__HOST, &host);
    return 0;
}
