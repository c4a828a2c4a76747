/* pld_run.h: run configuration, the common command-line flags, backends,
 * error codes, and pld_run() itself. */
#ifndef PLD_PLD_RUN_H
#define PLD_PLD_RUN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: every failure of the library maps to one.  pld_run() returns
 * 0 or the negative code; pld_exit_code() turns it into a process status. */
#define PLD_ERRNO_MAP(XX)                                                                          \
    XX(EINVAL, -1, "invalid argument or API misuse")                                               \
    XX(EUSAGE, -2, "bad command-line flag")                                                        \
    XX(EPLATFORM, -3, "platform or model could not be loaded")                                     \
    XX(EDEVICES, -4, "device list does not fit the program or the platform")                       \
    XX(EUBOVERFLOW, -5, "unified buffer (UB) overflow")                                            \
    XX(EDEADLOCK, -6, "deadlock: every live rank is blocked")                                      \
    XX(ENOTSUP, -7, "not supported by this backend")                                               \
    XX(ENOMEM, -8, "out of memory")                                                                \
    XX(EIO, -9, "input/output error")                                                              \
    XX(ERACE, -10, "data race detected")

typedef enum pld_errno {
    PLD_OK = 0,
#define PLD__ERR_ENUM(name, code, text) PLD_##name = (code),
    PLD_ERRNO_MAP(PLD__ERR_ENUM)
#undef PLD__ERR_ENUM
} pld_errno;

/* Text for an error code ("unknown error" for others). */
const char *pld_strerror(int code);
/* The code's name without prefix ("EDEADLOCK"). */
const char *pld_err_name(int code);

/* The process exit status for a pld_run() result: 0 for success, 2 for usage
 * and configuration errors (flags, platform, device list), 3 for API misuse
 * at run time, 4 for a deadlock, 5 for a data race (--races=error).
 * (Tutorials use 1 for a golden mismatch.) */
int pld_exit_code(int rc);

/* What the race detector does (--races). */
enum pld_races {
    PLD_RACES_DEFAULT = 0, /* error up to 64 ranks, off above */
    PLD_RACES_OFF,
    PLD_RACES_WARN, /* report, do not fail */
    PLD_RACES_ERROR /* report, and the run fails with PLD_ERACE */
};

/* The most ranks one run may have. */
#define PLD_MAX_RANKS 16384

/* How many --cfg and how many --log settings a run takes. */
#define PLD_MAX_SIMGRID_ARGS 32

/* Everything a run needs to know, filled by pld_config_init() and then by
 * pld_parse_args() or by hand. */
typedef struct pld_config {
    const char *platform;          /* model name (a2a3sim, a2a3, ...) or FILE.xml */
    int ndevices;                  /* P: the length of device_ids */
    int device_ids[PLD_MAX_RANKS]; /* rank r runs on device device_ids[r] */
    const char *backend;           /* "sim" (default; PLD_BACKEND overrides) */
    const char *trace;             /* text trace file, or NULL */
    uint64_t seed;                 /* for inputs (pl_fill_randn); default 0 */
    int summary;                   /* print the one-line run summary (default 1) */
    const char *network_model;     /* sim: CM02 (default) or LV08 */
    const char *topology;          /* sim: a --topology spec, or NULL */
    int no_data;                   /* timing only: window payloads are not kept */
    int timing_only;               /* no values at all (implies no_data); the same times */
    int detailed_summary;          /* --summary: per rank, per link, critical path */
    int races;                     /* enum pld_races */
    int no_cacheline_check;        /* do not warn about buffers sharing a 64-byte line */
    double wait_timeout;           /* s a wait may block (simulated on sim); 0 = the backend's
                                      default: no limit on sim, 60 s on threads and mpi */
    const char *dump_outputs;      /* after the run, write every host tensor here, or NULL */
    /* sim: how SimGrid switches between ranks (its contexts/factory): NULL
     * for its fast default (coroutines on the caller's OS thread); "thread"
     * runs every rank on an OS thread of its own, for an embedded
     * interpreter that cannot swap its per-thread state (pld_embed.h).
     * Also "raw", "ucontext", "boost".  Other backends ignore it. */
    const char *context_factory;
    /* Windows kept from run to run (upstream: prepare(persistent=True)), or
     * NULL: every buffer this run allocates starts from the bytes (data and
     * signal cells, every rank's copy) that the store holds for the same
     * buffer name in the same comm group, and the store gets every buffer's
     * bytes when the run ends.  Not on the mpi backend. */
    struct pld_windows *keep_windows;
    /* With keep_windows: zero the kept windows before reuse instead (upstream
     * reset_persistent_windows=True); their allocation is still kept. */
    int reset_kept_windows;
    /* sim: SimGrid's own settings, passed through (--cfg=KEY:VALUE and
     * --log=SPEC, in order), applied after pldsim's defaults so that they
     * override them.  A key or value SimGrid refuses is a usage error. */
    const char *simgrid_cfg[PLD_MAX_SIMGRID_ARGS];
    int nsimgrid_cfg;
    const char *simgrid_log[PLD_MAX_SIMGRID_ARGS];
    int nsimgrid_log;
    /* sim: write the platform XML the run simulates on to this file (the
     * generated one, or a copy of --platform FILE.xml), or NULL */
    const char *save_platform;
    /* Write the run summary as JSON (docs/summary.md) to this file, "-" for
     * stdout, or NULL: --summary=json, --summary-json FILE. */
    const char *summary_json;
    /* --trace FILE.svg draws time to scale, all of it, instead of cutting
     * idle stretches short (--trace-linear, PLD_TRACE_LINEAR=1). */
    int trace_linear;
} pld_config;

/* A store of window buffers kept from one run to the next (upstream's
 * persistent worker, prepare(persistent=True)), for pld_config.keep_windows.
 * Entries are keyed by comm group (its world ranks) and buffer name.  What
 * carries over is bytes only: each run is a simulation of its own from time
 * 0, and the end of a run orders all its accesses before the next run's
 * (as upstream's worker finishes a dispatch before the next), so the race
 * detector starts clean.  pld_windows_new returns NULL when out of
 * memory; pld_windows_free takes NULL. */
typedef struct pld_windows pld_windows;
pld_windows *pld_windows_new(void);
void pld_windows_free(pld_windows *w);

/* Serialises the store (malloc'd bytes in *out, *len of them), so that it
 * can cross processes (pldsim-py forks one per sim run), and replaces a
 * store's contents by such bytes.  Return 0, PLD_ENOMEM, or PLD_EINVAL for
 * bytes that are not a store. */
int pld_windows_save(const pld_windows *w, unsigned char **out, size_t *len);
int pld_windows_load(pld_windows *w, const unsigned char *in, size_t len);

/* How many comm-domain windows runs using `w` have allocated: a run adds 1
 * for each comm group (the world counts as one) with a buffer that the
 * store did not hold (upstream's worker counts the same allocations). */
int64_t pld_windows_allocations(const pld_windows *w);

/* Defaults: platform a2a3sim, devices 0,1 (P = 2), backend from PLD_BACKEND
 * or "sim", no trace, seed 0, summary on, network model CM02. */
void pld_config_init(pld_config *cfg);

/* Parses the common flags out of argv and removes them, leaving argv[0] and
 * the program's own flags in order (argc updated):
 *   -p, --platform NAME|FILE.xml   -d, --device LIST (e.g. 0,1,2,3 or 0-7)
 *   --backend NAME   --trace FILE   --trace-linear   --seed N   --network-model CM02|LV08
 *   --topology SPEC (e.g. ring:16,bw=56GBps,lat=2us)   --races MODE
 *   --wait-timeout TIME   --no-cacheline-check   --no-data   --summary
 *   --no-summary   --dump-outputs FILE   --save-platform FILE
 *   --cfg KEY:VALUE   --log SPEC
 * (--flag VALUE or --flag=VALUE).  Each option's PLD_* variable
 * (PLD_PLATFORM, PLD_DEVICE, ...; docs/api.md) is read first, so a flag
 * overrides it.  `--help` prints the common part of the usage and returns
 * 1 so the caller can add its own and exit 0.  `--version` prints
 * pld_print_version's line and returns 2: the caller exits 0.  A bad or missing value
 * prints one message naming the flag or variable and returns PLD_EUSAGE.
 * Otherwise returns 0.  Not thread-safe (getopt_long's state is global). */
int pld_parse_args(pld_config *cfg, int *argc, char **argv);

/* pldsim's version, e.g. "0.1.0". */
const char *pld_version(void);

/* Prints "NAME (pldsim) VERSION" to stdout, NAME being argv0's last
 * component: what every program's --version says. */
void pld_print_version(const char *argv0);

/* Prints the common flags' help to `out` (a FILE*). */
void pld_print_common_usage(void *out);

/* Parses a device list ("0,1,2", "0-7", "0-3,8") into cfg->device_ids.
 * Returns 0, or PLD_EUSAGE after printing why. */
int pld_config_set_devices(pld_config *cfg, const char *list);

typedef void (*pld__host_fn)(const void *args);

/* pld_run(&cfg, host, &args): runs host(&args) as the host orchestrator on
 * the configured backend and returns once every rank has finished.  Returns
 * 0, or a negative PLD_E* code after printing one message (a kernel error, a
 * deadlock report, a platform that cannot be loaded, ...).  One run per
 * process on the sim backend (a SimGrid limitation).  `host` must take a
 * pointer to args' type. */
#define pld_run(cfg, host, args)                                                                   \
    ((void)sizeof(((host)(args)), 0),                                                              \
     pld__run_host((cfg), (pld__host_fn)(void (*)(void))(host), (args)))
int pld__run_host(const pld_config *cfg, pld__host_fn host, const void *args);

/* Simulated seconds since the start of the run on the sim backend (wall
 * seconds on hardware backends).  Usable anywhere inside pld_run(). */
double pld_time(void);

/* Starts recording the primitives that the executing rank runs (kernel
 * or per-device function).  Step 11 uses it to show what a builtin lowers
 * to.  An error outside a run or on the host. */
void pld_record_begin(void);

/* Stops recording and returns the primitives, one line each: the op, the
 * peer, the window with the element index it touched, and the element
 * count (regions) or the value (signals).  The caller frees the string. */
char *pld_record_end(void);

/* Facts about the run that just finished (valid after pld_run returns). */
typedef struct pld_run_stats {
    double time_s;        /* simulated (sim) or wall (hardware) seconds */
    uint64_t bytes_moved; /* bytes carried between ranks by RMA and signals */
    int nranks;
    uint64_t transfers;    /* inter-rank transfers (RMA and signals): the network's work */
    int domains;           /* comm domains (window groups; the world is one) with buffers */
    int domains_allocated; /* of those, how many had a buffer that no kept window held */
    /* The device wall as upstream's runtime measures it, in seconds: per
     * rank the longest device span of one dispatch (from the dispatched
     * function's start on the device to its return), and here the longest
     * over ranks.  Host time before a dispatch reaches its device is not in
     * it.  0 when no dispatch ran. */
    double device_wall_s;
    /* Bytes of dense window copies the run allocated in this process: a
     * copy of each buffer for each rank of its comm group.  Sparse windows
     * (large INT32 signal arrays), whose memory is the cells written, and
     * the mpi backend's windows, which MPI allocates, are not counted. */
    uint64_t window_bytes;
} pld_run_stats;
void pld_last_run_stats(pld_run_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* PLD_PLD_RUN_H */
