/* model.h: platform models, as read from a models/NAME.model file or a
 * --topology spec (docs/models.md): the interconnect and one device.  Plain
 * data, parsed in src/model.c; the simulator turns a model into a SimGrid
 * platform (sim/topology.c), and every backend takes its device numbers
 * from one (struct pld__device, internal.h). */
#ifndef PLD_MODEL_H
#define PLD_MODEL_H

#include "internal.h"
#include "units.h"

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
    char topology[16];  /* hccs, mesh, star, ring, torus2d, torus3d, fattree, superpod */
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

/* Device `id`'s numbers under `m`: the model's device, with its straggler
 * factor (key `slow`) when it has one. */
void pld__model_device(const struct pld__model *m, int id, struct pld__device *d);

/* The builtin model's text for `name` (a2a3, a5, hgx-h100, ...), or NULL. */
const char *pld__builtin_model_text(const char *name);

#endif
