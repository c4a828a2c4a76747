/* run.c: configuration, backend selection, and pld_run() itself (the
 * common command-line flags are options.c's). */
#include "internal.h"
#include "mem.h"
#include "observe.h"
#include "detect.h"
#include "backend.h"
#include "cost.h"
#include "units.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pld_run_stats last_stats;

/* mpi is not here: it is a module, loaded only when asked for */
const struct pld_backend *const pld__backends[] = {&pld_backend_sim, &pld_backend_threads, NULL};

void pld_config_init(pld_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->platform = "a2a3sim";
    cfg->ndevices = 2;
    cfg->device_ids[0] = 0;
    cfg->device_ids[1] = 1;
    const char *env = getenv("PLD_BACKEND");
    cfg->backend = env && *env ? env : "sim";
    cfg->summary = 1;
    cfg->network_model = "CM02";
}

/* One refusal of a device list: `from` and the list, then, when the list
 * has more than the item at fault, that item and its place, then what is
 * wrong.  A list of thousands of ids is cut to its start and its length,
 * and the item to 24 characters, so that the line stays short (it quoted
 * the whole list: 49 KB for 10 000 ids). */
static int device_list_error(const char *from, const char *list, const char *item, int nth,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int device_list_error(const char *from, const char *list, const char *item, int nth,
                             const char *fmt, ...)
{
    char shown[96], where[80] = "", what[160];
    size_t len = strlen(list), ilen = strcspn(item, ",");
    if (len <= 40)
        snprintf(shown, sizeof shown, "'%s'", list);
    else
        snprintf(shown, sizeof shown, "'%.32s...' (%zu characters)", list, len);
    if (ilen != len)
        snprintf(where, sizeof where, " at '%.*s%s' (item %d)", (int)(ilen > 24 ? 24 : ilen), item,
                 ilen > 24 ? "..." : "", nth);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pld__config_error(PLD_EUSAGE, "%s %s%s: %s", from, shown, where, what);
}

int pld__config_set_devices(pld_config *cfg, const char *list, const char *from)
{
    static const char form[] = "expected ids like 0,1,2,3 or 0-7";
    int n = 0, nth = 0;
    const char *p = list;
    static char seen[PLD_MAX_RANKS * 64];
    memset(seen, 0, sizeof seen);
    if (!list || !*list)
        return pld__config_error(PLD_EUSAGE, "%s: empty device list; %s", from, form);
    while (*p) {
        const char *item = p;
        char *end;
        nth++;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0)
            return device_list_error(from, list, item, nth, "%s", form);
        b = a;
        if (!errno && *end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || (!errno && b < a))
                return device_list_error(from, list, item, nth,
                                         "a range is FIRST-LAST with FIRST <= LAST");
        }
        if (errno || b >= (long)sizeof seen) {
            char id[32] = "an id";
            if (!errno)
                snprintf(id, sizeof id, "id %ld", b);
            return device_list_error(from, list, item, nth,
                                     "%s is too large; expected ids 0 to %ld", id,
                                     (long)sizeof seen - 1);
        }
        for (long id = a; id <= b; id++) {
            if (n == PLD_MAX_RANKS)
                return device_list_error(from, list, item, nth,
                                         "more than %d devices; expected at most %d", PLD_MAX_RANKS,
                                         PLD_MAX_RANKS);
            if (seen[id])
                return device_list_error(from, list, item, nth, "device %ld is listed twice", id);
            seen[id] = 1;
            cfg->device_ids[n++] = (int)id;
        }
        if (*end == ',' && end[1])
            p = end + 1;
        else if (*end == '\0')
            p = end;
        else
            return device_list_error(from, list, item, nth, "%s%s",
                                     *end == ',' ? "a ',' ends the list; " : "", form);
    }
    cfg->ndevices = n;
    return 0;
}

int pld_config_set_devices(pld_config *cfg, const char *list)
{
    return pld__config_set_devices(cfg, list, "-d/--device");
}

static const struct pld_backend *find_backend(const char *name)
{
    for (int i = 0; pld__backends[i]; i++)
        if (strcmp(pld__backends[i]->name, name) == 0)
            return pld__backends[i];
    return NULL;
}

/* The one teardown of a run, whatever point it reached: what every module
 * hung off R, its windows and its ranks.  The next run starts from a
 * zeroed struct, so nothing is reset anywhere else. */
static void run_free(struct pld__run *R)
{
    for (int r = 0; r < R->P; r++) {
        pld__ub_release_all(&R->ranks[r]);
        free(R->ranks[r].spans);
    }
    pld__kept_save(R);    /* before the windows go */
    pld__windows_free(R); /* releases the sparse windows too */
    pld__groups_free(R);
    pld__races_free(R);
    pld__deadlock_free(R);
    pld__host_writes_free(R);
    pld__async_free(R);
    pld__graphs_free(R);
    pld__gm_share_free(R);
    free(R->ranks);
    pld__R = NULL;
}

int pld__backend_check(const struct pld_backend *be, char *why, size_t len)
{
    /* the hooks every backend must have: the front end calls them unchecked */
    static const struct {
        size_t at;
        const char *name;
    } mandatory[] = {
#define PLD__HOOK(h) {offsetof(struct pld_backend, h), #h}
        PLD__HOOK(run),   PLD__HOOK(self),   PLD__HOOK(dispatch), PLD__HOOK(abort_run),
        PLD__HOOK(now),   PLD__HOOK(charge), PLD__HOOK(settle),   PLD__HOOK(read),
        PLD__HOOK(write), PLD__HOOK(notify), PLD__HOOK(wait),
#undef PLD__HOOK
    };
    if (!be || !be->name || !*be->name) {
        snprintf(why, len, "a backend table has no name");
        return -1;
    }
    if (be->size != sizeof(struct pld_backend)) {
        snprintf(why, len, "backend '%s': its table is %zu bytes, this libpld's %zu", be->name,
                 be->size, sizeof(struct pld_backend));
        return -1;
    }
    for (size_t i = 0; i < sizeof mandatory / sizeof mandatory[0]; i++) {
        void (*hook)(void);
        memcpy(&hook, (const char *)be + mandatory[i].at, sizeof hook);
        if (!hook) {
            snprintf(why, len, "backend '%s': no %s hook", be->name, mandatory[i].name);
            return -1;
        }
    }
    /* optional hooks that only work together */
    const char *half = !be->write_async != !be->wait_write     ? "write_async and wait_write"
                       : !be->idle != !be->kick                ? "idle and kick"
                       : !be->window_alloc != !be->window_free ? "window_alloc and window_free"
                                                               : NULL;
    if (half) {
        snprintf(why, len, "backend '%s': %s come together", be->name, half);
        return -1;
    }
    if (!(be->caps & PLD_CAP_DISTRIBUTED) != !be->window_alloc) {
        snprintf(why, len, "backend '%s': window_alloc is set exactly when it is distributed",
                 be->name);
        return -1;
    }
    return 0;
}

/* The front end's calls for the backends (struct pld__frontend): the
 * kernel-state copies by rank, so that a backend never holds the front
 * end's per-rank state. */
static void fe_kstate_save(int r, void *to)
{
    pld__kstate_save(&pld__R->ranks[r], to);
}

static void fe_kstate_load(int r, const void *from)
{
    pld__kstate_load(&pld__R->ranks[r], from);
}

static void fe_kstate_fork(int r, void *to)
{
    pld__kstate_fork(&pld__R->ranks[r], to);
}

static void fe_kstate_release(int r)
{
    pld__kstate_release(&pld__R->ranks[r]);
}

/* A saved state's UB and events are freed through a copy of the rank, so
 * that the state the rank holds stays as it is. */
static void fe_kstate_discard(int r, const void *from)
{
    struct pld__rank tmp = pld__R->ranks[r];
    pld__kstate_load(&tmp, from);
    pld__kstate_release(&tmp);
}

static void fe_report_deadlock(void)
{
    pld__report_deadlock(pld__R);
}

static int fe_error(void)
{
    return __atomic_load_n(&pld__R->error, __ATOMIC_ACQUIRE);
}

static void fe_fail_first(int code)
{
    int zero = 0;
    __atomic_compare_exchange_n(&pld__R->error, &zero, code, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void fe_note(unsigned what)
{
    if (what & PLD__NOTE_TIMED_OUT)
        pld__R->timed_out = 1;
    if (what & PLD__NOTE_NOTIFIERS_UNKNOWN)
        pld__R->notifiers_unknown = 1;
}

/* A rank's device id is the one -d gave it, whatever the backend. */
static void fe_set_device(int rank, const struct pld__device *dev)
{
    if (rank == PLD__HOST) {
        pld__R->host_dev = *dev;
        return;
    }
    pld__R->ranks[rank].dev = *dev;
    pld__R->ranks[rank].device_id = pld__R->cfg->device_ids[rank];
}

static void fe_set_platform_desc(const char *desc)
{
    snprintf(pld__R->platform_desc, sizeof pld__R->platform_desc, "%s", desc);
}

static void fe_mute_host(int mute)
{
    pld__mute_host = mute;
}

static uint64_t fe_bytes_moved(void)
{
    return pld__R->bytes_moved;
}

static const struct pld__frontend frontend = {
    .run_task = pld__run_task,
    .kstate_size = pld__kstate_size,
    .kstate_save = fe_kstate_save,
    .kstate_load = fe_kstate_load,
    .kstate_fork = fe_kstate_fork,
    .kstate_release = fe_kstate_release,
    .kstate_discard = fe_kstate_discard,
    .report_deadlock = fe_report_deadlock,
    .guard_escape = pld__guard_escape,
    .error = fe_error,
    .fail_first = fe_fail_first,
    .note = fe_note,
    .set_device = fe_set_device,
    .set_platform_desc = fe_set_platform_desc,
    .mute_host = fe_mute_host,
    .bytes_moved = fe_bytes_moved,
    .wait_export = pld__wait_export,
    .wait_import = pld__wait_import,
    .landed = pld__observe_landed,
};

int pld__run_host(const pld_config *cfg, pld__host_fn host, const void *args)
{
    static int runs;
    struct pld__run R;
    int rc;

    if (!cfg || !host)
        return pld__config_error(PLD_EINVAL, "pld_run: config and host function are required");
    const struct pld_backend *be = find_backend(cfg->backend ? cfg->backend : "sim");
#ifdef PLD_HAVE_MPI
    if (!be && cfg->backend && strcmp(cfg->backend, "mpi") == 0) {
        char why[512];
        be = pld__mpi_backend(why, sizeof why);
        if (!be)
            return pld__config_error(PLD_EUSAGE,
                                     "cannot load the mpi backend: %s (set PLD_MPI_MODULE to "
                                     "the path of pld_mpi.so, or reinstall pldsim)",
                                     why);
    }
#endif
    if (!be && cfg->backend && strcmp(cfg->backend, "mpi") == 0)
        return pld__config_error(PLD_EUSAGE,
                                 "this build has no mpi backend: configure did not find MPI.  "
                                 "Install it (apt-get install libopenmpi-dev openmpi-bin), rerun "
                                 "./configure --with-mpi and make, then start the program with "
                                 "mpirun -np P PROG --backend mpi");
    if (!be) {
        char names[256] = "";
        for (int i = 0; pld__backends[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     pld__backends[i]->name);
#ifdef PLD_HAVE_MPI
        snprintf(names + strlen(names), sizeof names - strlen(names), ", mpi");
#endif
        return pld__config_error(PLD_EUSAGE, "unknown backend '%s'; this build has: %s",
                                 cfg->backend, names);
    }
    char why[256];
    if (pld__backend_check(be, why, sizeof why))
        return pld__config_error(PLD_EINVAL, "%s", why);
    if (cfg->ndevices < 1 || cfg->ndevices > PLD_MAX_RANKS)
        return pld__config_error(PLD_EDEVICES, "the device list has %d devices; expected 1..%d",
                                 cfg->ndevices, PLD_MAX_RANKS);
    if (runs++ && strcmp(be->name, "sim") == 0)
        return pld__config_error(PLD_ENOTSUP,
                                 "pld_run: the sim backend runs once per process (SimGrid "
                                 "cannot be restarted)");

    if (cfg->context_factory && strcmp(cfg->context_factory, "thread") != 0 &&
        strcmp(cfg->context_factory, "raw") != 0 && strcmp(cfg->context_factory, "ucontext") != 0 &&
        strcmp(cfg->context_factory, "boost") != 0)
        return pld__config_error(PLD_EUSAGE,
                                 "context factory '%s': expected thread, raw, ucontext or boost",
                                 cfg->context_factory);
    if ((rc = pld__sparse_configure()) != 0)
        return rc;
    if ((be->caps & PLD_CAP_DISTRIBUTED) &&
        (cfg->trace || cfg->detailed_summary || cfg->summary_json))
        return pld__config_error(PLD_ENOTSUP,
                                 "--trace and --summary are not available on the %s backend: "
                                 "each process sees only its own rank's events (run on sim or "
                                 "threads for a trace)",
                                 be->name);
    if ((be->caps & PLD_CAP_DISTRIBUTED) && cfg->keep_windows)
        return pld__config_error(PLD_ENOTSUP,
                                 "kept windows (pld_config.keep_windows, a persistent worker) are "
                                 "not available on the %s backend: each process holds only its "
                                 "own rank's window",
                                 be->name);
    memset(&R, 0, sizeof R);
    pld__trust_reset(&R);
    R.cfg = cfg;
    R.be = be;
    R.self_at = be->self_at;
    R.P = cfg->ndevices;
    R.graph_stuck = pld__graph_stuck;
    R.graph_report = pld__graph_report;
    R.ranks = calloc((size_t)R.P, sizeof *R.ranks);
    if (!R.ranks)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", R.P);
    snprintf(R.platform_desc, sizeof R.platform_desc, "%s", cfg->platform);
    pld__dynamic_reset();
    if ((cfg->trace || cfg->detailed_summary || cfg->summary_json) &&
        (rc = pld__trace_open(&R, cfg->trace))) {
        run_free(&R);
        return rc;
    }
    pld__R = &R;
    pld__races_begin(&R);
    /* the backend reads the run through env and returns what it found in
     * out, which the run takes over */
    struct pld__run_env env = {.P = R.P, .cfg = cfg, .transfers = &R.transfers};
    struct pld__run_result out = {0};
    /* mpirun delivers Ctrl-C to its processes and reports it itself */
    if (!(be->caps & PLD_CAP_DISTRIBUTED))
        pld__interrupt_arm();
    rc = be->run(&env, host, args, &frontend, &out);
    pld__interrupt_disarm();
    R.end_time = out.end_time;
    if (out.error)
        R.error = out.error;
    if (out.job_bytes_moved)
        R.bytes_moved = out.bytes_moved;
    int races = pld__races_found(&R);
    if (races && rc == 0 && R.races_mode == PLD_RACES_ERROR)
        rc = pld__config_error(PLD_ERACE,
                               "%d data race%s found (--races=error; --races=warn reports them "
                               "without failing the run)",
                               races, races == 1 ? "" : "s");
    if (R.trace) {
        int trc = pld__trace_close(&R);
        if (!rc)
            rc = trc;
    }
    if (cfg->dump_outputs && !pld__mute_host) {
        int drc = pld__host_tensors_dump(cfg->dump_outputs);
        if (!rc)
            rc = drc;
    }
    double wall = 0;
    for (int r = 0; r < R.P; r++)
        if (pld__device_wall(&R.ranks[r]) > wall)
            wall = pld__device_wall(&R.ranks[r]);
    last_stats = (pld_run_stats){.time_s = R.end_time,
                                 .device_wall_s = wall,
                                 .bytes_moved = R.bytes_moved,
                                 .nranks = R.P,
                                 .transfers = R.transfers,
                                 .domains = R.domains,
                                 .domains_allocated = R.domains_allocated,
                                 .window_bytes = R.window_bytes};
    if (cfg->summary && !pld__mute_host && (rc == 0 || rc == PLD_EDEADLOCK || R.end_time > 0)) {
        char moved[32];
        /* said on the line itself: outputs a reader compares next are unwritten */
        const char *only = cfg->timing_only ? " (timing only: no values)" : "";
        pld__format_size((double)R.bytes_moved, moved, sizeof moved);
        if (be->caps & PLD_CAP_TIMED) {
            /* how far the time can be trusted: by label, with its kinds */
            char guessed[512], trust[512];
            int labelled = pld__trust_line(&R, trust, sizeof trust);
            printf("[pldsim] backend=%s platform=%s P=%d time=%.3f us moved=%s%s%s%s%s\n", be->name,
                   R.platform_desc, R.P, R.end_time * 1e6, moved, only, rc ? " (failed)" : "",
                   labelled ? " trust: " : "", labelled ? trust : "");
            if (pld__trust_mostly_guessed(&R, guessed, sizeof guessed))
                printf("[pldsim] %s\n", guessed);
        } else {
            char per[32];
            pld__format_size((double)(R.bytes_moved / (uint64_t)R.P), per, sizeof per);
            printf("[pldsim] backend=%s P=%d wall=%.3f us moved=%s (%s per rank)%s%s\n", be->name,
                   R.P, R.end_time * 1e6, moved, per, only, rc ? " (failed)" : "");
        }
        fflush(stdout);
    }
    run_free(&R);
    return rc;
}

double pld_time(void)
{
    return pld__now();
}

void pld_last_run_stats(pld_run_stats *out)
{
    *out = last_stats;
}
