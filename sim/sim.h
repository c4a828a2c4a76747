/* sim.h: internals of the SimGrid backend. */
#ifndef PLD_SIM_H
#define PLD_SIM_H

#include "../src/backend.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>

#define PLD__MAX_OVERRIDES 32

/* One link whose numbers differ from the model's (topology key `link`). */
struct pld__link_override {
    int a, b;   /* the devices it joins */
    double bw;  /* B/s, 0 = unchanged */
    double lat; /* s, when has_lat */
    int has_lat;
};

/* A platform model: the interconnect and one device, as read from a
 * models/NAME.model file or a --topology spec (docs/models.md). */
struct pld__model {
    char name[32];
    char topology[16];  /* hccs, mesh, star, ring, torus2d, torus3d, fattree */
    int dims[3], ndims; /* device counts per dimension, when given */
    int node_size;      /* hccs/fattree: devices per node, fully meshed */
    int nodes;          /* fattree: node count */
    int max_devices;
    double link_bw;    /* B/s, each direction, per link between devices */
    double link_lat;   /* s */
    double nic_bw;     /* B/s, each direction, device <-> node switch */
    double nic_lat;    /* s */
    double fabric_lat; /* s, switch <-> switch between nodes */
    double uplink_bw;  /* B/s, node switch <-> fabric; 0 = unlimited */
    int duplex;        /* links carry each direction at full rate */
    struct pld__link_override overrides[PLD__MAX_OVERRIDES];
    int noverrides;
    struct {
        int device;
        double factor;
    } slow[PLD__MAX_OVERRIDES]; /* stragglers: compute slowdowns */
    int nslow;
    struct pld__device dev;
};

/* Parses a --topology spec on top of `base` (whose link and device numbers
 * are the defaults).  Returns 0 or PLD_EUSAGE after naming the bad field. */
int pld__topology_parse(const char *spec, const struct pld__model *base, struct pld__model *m);

/* Parses model text (`origin` names it in messages).  Returns 0, or
 * PLD_EPLATFORM after printing the bad line. */
int pld__model_parse(const char *text, const char *origin, struct pld__model *m);

/* Fills `d` with the a2a3 model's device numbers (the defaults for hosts
 * of a user platform file that lack a <prop>). */
void pld__model_default_device(struct pld__device *d);

/* Parses one device property (`key` = `value`) into `d`.  Returns 1 if the
 * key is a device property, 0 if not, -1 if the value is malformed. */
int pld__device_set(struct pld__device *d, const char *key, const char *value);

/* Names of the device properties, NULL-terminated. */
extern const char *const pld__device_keys[];

/* How many devices the platform of `m` has when `needed` are asked for
 * (a torus or a fixed-size spec may hold more); fills the dimensions.
 * Returns the count, or a negative PLD_E* code after printing why. */
int pld__model_devices(const struct pld__model *m, int needed, int dims[3], int *nd);

/* Writes the SimGrid platform of `m` with `ndev` devices (topology.c). */
int pld__platform_write(FILE *out, const struct pld__model *m, int ndev, const int dims[3], int nd);

/* Loads the platform named by cfg->platform (a model name or FILE.xml) into
 * the SimGrid engine, maps ranks to hosts, reads device properties into
 * R->ranks[].dev and R->host_dev.  Returns 0 or a PLD_E* code (printed). */
int pld__sim_load_platform(struct pld__run *R, sg_host_t *rank_hosts, sg_host_t *cpu);

/* progress.c: the clock of the progress lines, part of the engine's
 * per-run state. */
struct pld__progress {
    double interval;      /* s of wall time between lines; 0 = off */
    double started, last; /* wall clock at the start and at the last line */
    uint64_t ticks;       /* transfers counted */
};
/* Starts the clock of the progress lines (PLD_PROGRESS). */
void pld__progress_start(struct pld__progress *p);
/* Counts one transfer; every interval, prints how far the run has got. */
void pld__progress_tick(struct pld__progress *p, const struct pld__run *R);

/* C++ shim (shim.cpp). */
/* simgrid_load_platform, with SimGrid's exceptions turned into a message in
 * `err`; returns 0 or -1. */
int pld__sgx_load_platform(const char *path, char *err, size_t errlen);
/* Seals the loaded platform (routes become queryable). */
void pld__sgx_seal(void);
/* Links on the route from -> to (0 when there is no path), with the sum of
 * their latencies in `lat` (s) and the bottleneck bandwidth in `bw` (B/s). */
int pld__sgx_route(sg_host_t from, sg_host_t to, double *lat, double *bw);
/* Registers `cb` to run when SimGrid finds every actor blocked. */
void pld__sgx_on_deadlock(void (*cb)(void));

#endif
