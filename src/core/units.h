/* units.h: numbers with units, as model files, topology specs and the
 * flags that take a time write them (units.c).  A leaf: it needs no other
 * header, and the model parser, the device keys and the options include
 * it. */
#ifndef PLD_UNITS_H
#define PLD_UNITS_H

#include <stddef.h>

/* Physical quantities with units (units.c).  Each parses a number with an
 * optional unit into SI base units and returns 0, or -1 if `s` is not of
 * that kind.  Bandwidth: Bps kBps MBps GBps TBps KiBps MiBps GiBps (bytes)
 * or bps Kbps Mbps Gbps Tbps (bits); time: s ms us ns ps; size: B kB MB GB
 * KiB MiB GiB; rate: an SI suffix k M G T or none.  Bounds keep every
 * time the model computes finite and within what the simulated clock
 * resolves to the nanosecond (issue 41): a bandwidth is 0 or at least
 * 1 B/s, a time at most PLD__MAX_TIME_S, a rate 0 or from 1 to 1e21. */
#define PLD__MAX_TIME_S 1e6
int pld__parse_bandwidth(const char *s, double *out);
int pld__parse_time(const char *s, double *out);
int pld__parse_size(const char *s, double *out);
int pld__parse_rate(const char *s, double *out);
/* A multiplier from 1e-6 to 1e6, no unit (a device's speed factor). */
int pld__parse_factor(const char *s, double *out);
/* A whole number from 1 to 65536, no unit (core and engine counts). */
int pld__parse_count(const char *s, double *out);

/* How far a cost can be trusted (issue 53): the names of pld__trust, or
 * their numbers 0-3 (the platform writer's form); out gets the number.
 * 0, or -1 for anything else. */
int pld__parse_trust(const char *s, double *out);

/* How far a cost can be trusted, weakest first: a guess (no source), a
 * spec figure, fitted to calibration runs, fitted and checked on
 * held-out runs (docs/validation.md). */
enum pld__trust { PLD__GUESS, PLD__SPEC, PLD__FITTED, PLD__CHECKED, PLD__NTRUST };
extern const char *const pld__trust_names[PLD__NTRUST];

/* Writes `bytes` for a message in binary units, from "512 B" through
 * "1.5 GiB" to EiB, into buf (len bytes); returns buf. */
const char *pld__format_size(double bytes, char *buf, size_t len);

#endif /* PLD_UNITS_H */
