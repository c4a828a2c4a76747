/* units.h: numbers with units, as model files, topology specs and the
 * flags that take a time write them (units.c).  A leaf: it needs no other
 * header, and the model parser, the device keys and the options include
 * it. */
#ifndef PLD_UNITS_H
#define PLD_UNITS_H

/* Physical quantities with units (units.c).  Each parses a number with an
 * optional unit into SI base units and returns 0, or -1 if `s` is not of
 * that kind.  Bandwidth: Bps kBps MBps GBps TBps KiBps MiBps GiBps (bytes)
 * or bps Kbps Mbps Gbps Tbps (bits); time: s ms us ns ps; size: B kB MB GB
 * KiB MiB GiB; rate: an SI suffix k M G T or none.  A bandwidth is 0 or
 * at least 1 B/s: a slower one makes a transfer's time overflow. */
int pld__parse_bandwidth(const char *s, double *out);
int pld__parse_time(const char *s, double *out);
int pld__parse_size(const char *s, double *out);
int pld__parse_rate(const char *s, double *out);
/* A whole number from 1 to 65536, no unit (core and engine counts). */
int pld__parse_count(const char *s, double *out);

#endif /* PLD_UNITS_H */
