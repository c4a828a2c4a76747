/* sim.h: internals of the SimGrid backend. */
#ifndef PLD_SIM_H
#define PLD_SIM_H

#include "../src/core/internal.h"
#include "../src/backend/backend.h"
#include "../src/model/model.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>

/* How many devices the platform of `m` has when `needed` are asked for
 * (a torus or a fixed-size spec may hold more); fills the dimensions.
 * Returns the count, or a negative PLD_E* code after printing why. */
int pld__model_devices(const struct pld__model *m, int needed, int dims[3], int *nd);

/* Writes the SimGrid platform of `m` with `ndev` devices (topology.c). */
int pld__platform_write(FILE *out, const struct pld__model *m, int ndev, const int dims[3], int nd);

/* The text of the file at `path`, NUL-terminated (malloc'd), or NULL
 * (platform_precheck.c). */
char *pld__sim_read_file(const char *path);
/* Refuses, in one line, what a platform file holds that SimGrid 3.32 dies
 * on instead of refusing: a routing="..." it does not know, a NUL byte, a
 * route from a point to itself outside a Full zone, a route given twice, a
 * link id declared twice (platform_precheck.c).  Returns 0 or PLD_EPLATFORM. */
int pld__sim_precheck_platform(const char *path);
/* Does a lone flow on the platform the run will load take what its links
 * say, always (sim/flows.c)?  Not when a platform file gives a link a
 * profile (a bandwidth, latency or state file, or a <trace>), or has Wi-Fi
 * links; a generated platform has neither. */
int pld__sim_lone_flows_exact(const pld_config *cfg);
/* Does the platform the run will load have SPLITDUPLEX links (a generated
 * one always does; a FILE.xml, if its text says so)? */
int pld__sim_split_duplex(const pld_config *cfg);
/* Loads the platform named by cfg->platform (a model name or FILE.xml) into
 * the SimGrid engine, maps ranks to hosts, reads each rank's device numbers
 * into devs[] (P of them) and hands them, the host's and the platform's
 * name to the front end (fe->set_device, fe->set_platform_desc).  Returns 0
 * or a PLD_E* code (printed). */
int pld__sim_load_platform(const struct pld__run_env *env, const struct pld__frontend *fe,
                           sg_host_t *rank_hosts, sg_host_t *cpu, struct pld__device *devs);

/* progress.c: the clock of the progress lines, part of the engine's
 * per-run state. */
struct pld__progress {
    double interval;      /* s of wall time between lines; 0 = off */
    double started, last; /* wall clock at the start and at the last line */
    uint64_t ticks;       /* transfers counted */
};
/* Starts the clock of the progress lines (PLD_PROGRESS): 0, or
 * PLD_EUSAGE after one message when the variable is not a number of
 * seconds >= 0 (a typo would otherwise silently mean the default). */
int pld__progress_start(struct pld__progress *p);
/* Counts one transfer; every interval, prints how far the run has got. */
void pld__progress_tick(struct pld__progress *p, const uint64_t *transfers);

/* C++ shim (shim.cpp). */
/* simgrid_load_platform, with SimGrid's exceptions turned into a message in
 * `err`; returns 0 or -1. */
int pld__sgx_load_platform(const char *path, char *err, size_t errlen);
/* Seals the loaded platform (routes become queryable). */
void pld__sgx_seal(void);
/* Links on the route from -> to (0 when there is no path), with the sum of
 * their latencies in `lat` (s) and the bottleneck bandwidth in `bw` (B/s);
 * the numbers (0, 1, ... in order of first use) of the links that flows
 * share go in ids[] (at most `cap`; their count in *shared): every link but
 * a FATPIPE, on which each flow has the whole bandwidth.  *wifi is set when
 * one of them is a Wi-Fi link. */
int pld__sgx_route(sg_host_t from, sg_host_t to, double *lat, double *bw, int *ids, int cap,
                   int *wifi, int *shared);
/* Every link on the route from -> to, FATPIPEs included, by the numbers
 * pld__sgx_route gives (at most `cap` in ids[]); returns their count (0:
 * no path), with the sum of their latencies in `lat` (s). */
int pld__sgx_route_all(sg_host_t from, sg_host_t to, int *ids, int cap, double *lat);
/* Link number `id`'s name (the platform's), with its bandwidth in `bw`
 * (B/s); NULL for a number not handed out. */
const char *pld__sgx_link_name(int id, double *bw);
/* A --cfg=KEY:VALUE and a --log=SPEC setting, SimGrid's refusal turned
 * into a message in `err`; each returns 0 or -1. */
int pld__sgx_cfg(const char *key_value, char *err, size_t errlen);
int pld__sgx_log(const char *spec, char *err, size_t errlen);
/* The file SimGrid's tracing writes (tracing/filename), NULL when off. */
const char *pld__sgx_trace_file(void);
/* Whether SimGrid's tracing, as configured, traces links as resources. */
int pld__sgx_traces_links(void);
/* Registers `cb` to run when SimGrid finds every actor blocked. */
void pld__sgx_on_deadlock(void (*cb)(void));
/* Runs fn() in maestro once SimGrid's clock reaches `date` (s), before any
 * actor runs at that date: no actor sleeps for it.  Returns the timer. */
void *pld__sgx_timer_set(double date, void (*fn)(void));
/* Cancels a timer that has not fired yet. */
void pld__sgx_timer_cancel(void *timer);
/* Runs fn(arg) in maestro once SimGrid's clock reaches `date` (s). */
void *pld__sgx_timer_set_arg(double date, void (*fn)(void *), void *arg);
/* Lets pld__sgx_comm_start shorten a comm's latency (a latency-factor
 * callback of 1 otherwise); 0, or -1 with SimGrid's refusal in err. */
int pld__sgx_latency_hook(char *err, size_t errlen);
/* Starts a SimGrid flow (comm) of `bytes` (rounded to whole bytes) from
 * `from` to `to` now, from an actor or from maestro, with the route's
 * latency times `lat_factor` (< 0: 1; 0 < f < 1 needs the hook); returns it
 * for pld__sgx_comm_wait. */
void *pld__sgx_comm_start(sg_host_t from, sg_host_t to, double bytes, double lat_factor);
/* Blocks the calling actor until that flow has ended; frees it. */
void pld__sgx_comm_wait(void *comm);

#endif
