/* gin.h: what pldsim-gin-perf's files share.
 *
 * pldsim-gin-perf runs nccl-tests' device-API GIN programs (ginPutBW_perf,
 * ginPutLatency_pingPong_perf, ...: src/device_api/gin) on pld's one-sided
 * calls: put, get, notify and wait, between exactly 2 ranks, with the
 * suite's flags, sweep and tables, and simulated times.
 * pldsim-gin-perf.c has main, the programs and the table; gin_args.c the
 * command line; gin_kernels.c what the two ranks run. */
#ifndef PLDSIM_GIN_H
#define PLDSIM_GIN_H

#include <pld/pld.h>

#include <stdint.h>

/* The operation of a program (its --gin_op for the put programs). */
enum gin_op { GIN_PUT, GIN_PUT_SIGNAL, GIN_PUT_COUNTER, GIN_GET, GIN_SIGNAL };

/* One of the suite's programs. */
struct gin_prog {
    const char *name;     /* ginPutBW_perf, ... */
    const char *title;    /* the "# ..." line's name, %s: the op's (PUT, PUT_SIGNAL) */
    int throughput;       /* 1: bandwidth and message rate; 0: latency */
    int ping_pong;        /* latency: 1 ping-pong, 0 ping */
    enum gin_op fixed_op; /* the op of a program without --gin_op */
    unsigned op_mask;     /* the --gin_op values it takes (1 << op); 0: none */
};

extern const struct gin_prog gin_progs[];

/* The run: settings from the command line, then the results. */
struct gin_state {
    const struct gin_prog *prog;
    const char *prog_name; /* "pldsim-ginPutBW_perf": the prefix of messages */
    enum gin_op op;
    int64_t minb, maxb, stepb, factor;
    int warmup, iters, ctas, threads, tx_depth;
    const char *rsm;
    int strong, skip_credit, aggregate, bidir;
    int64_t chunk;  /* --chunk: bytes a put or get stages through UB at a time */
    int sdma;       /* --sdma: puts go on an SDMA engine (put_async), each waited */
    int64_t *sizes; /* the sweep */
    int nsizes;
    double *elapsed; /* per size: rank 0's seconds for -n iterations (and rank 1's with --gin_bd) */
    double *elapsed1;
};

extern struct gin_state G;

/* ---- gin_args.c */

/* The whole command line: defaults, argv, the devices (exactly 2) and the
 * sweep.  Returns -1 to run, or the exit status after its message (0 for
 * --help and --version). */
int gin_setup(int argc, char **argv, pld_config *cfg);

/* ---- gin_kernels.c */

/* The host of the simulation: the windows, then each rank's kernel, which
 * runs every size's warm-up and timed iterations into G.elapsed. */
void gin_host(const void *unused);

#endif
