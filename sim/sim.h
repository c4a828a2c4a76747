/* sim.h: internals of the SimGrid backend. */
#ifndef PLD_SIM_H
#define PLD_SIM_H

#include "../src/backend.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>

/* A platform model: the interconnect and one device, as read from a
 * models/NAME.model file (see docs/models.md for every key). */
struct pld__model {
    char name[32];
    int node_size; /* devices per node, fully meshed */
    int max_devices;
    double link_bw;    /* B/s, each direction, per device pair in a node */
    double link_lat;   /* s */
    double nic_bw;     /* B/s, each direction, device <-> node switch */
    double nic_lat;    /* s */
    double fabric_lat; /* s, switch <-> switch between nodes */
    struct pld__device dev;
};

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

/* Writes a SimGrid platform for `ndev` devices of model `m` to `out`. */
int pld__platform_write(FILE *out, const struct pld__model *m, int ndev);

/* Loads the platform named by cfg->platform (a model name or FILE.xml) into
 * the SimGrid engine, maps ranks to hosts, reads device properties into
 * R->ranks[].dev and R->host_dev.  Returns 0 or a PLD_E* code (printed). */
int pld__sim_load_platform(struct pld__run *R, sg_host_t *rank_hosts, sg_host_t *cpu);

/* C++ shim (shim.cpp). */
/* simgrid_load_platform, with SimGrid's exceptions turned into a message in
 * `err`; returns 0 or -1. */
int pld__sgx_load_platform(const char *path, char *err, size_t errlen);
/* Seals the loaded platform (routes become queryable). */
void pld__sgx_seal(void);
/* Links on the route from -> to; 0 when there is no path. */
int pld__sgx_route_links(sg_host_t from, sg_host_t to);
/* Registers `cb` to run when SimGrid finds every actor blocked. */
void pld__sgx_on_deadlock(void (*cb)(void));

#endif
