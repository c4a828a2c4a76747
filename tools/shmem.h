/* shmem.h: what pldsim-shmem-perf's files share.
 *
 * pldsim-shmem-perf runs NVSHMEM's device point-to-point perftests
 * (shmem_put_bw, shmem_put_signal_ping_pong_latency, ...:
 * perftest/device/pt-to-pt) on pld's put, get, notify and wait, between
 * exactly 2 PEs, with the perftests' flags and tables and simulated times.
 * pldsim-shmem-perf.c has main, the programs and the tables;
 * shmem_args.c the command line; shmem_kernels.c what the two PEs run. */
#ifndef PLDSIM_SHMEM_H
#define PLDSIM_SHMEM_H

#include <pld/pld.h>

#include <stdint.h>

/* What one iteration does. */
enum shmem_kind {
    SHMEM_PUT_BW,     /* PE 0 puts the size (both with --bidir) */
    SHMEM_GET_BW,     /* PE 0 gets the size (both with --bidir) */
    SHMEM_PUT_LAT,    /* PE 0: put + quiet, by thread, warp and block */
    SHMEM_GET_LAT,    /* PE 0: get, by thread, warp and block */
    SHMEM_PP_PUT,     /* ping-pong: put, fence, signal SET i+1; wait EQ i+1 */
    SHMEM_PP_PUT_SIG, /* ping-pong: put with signal SET i+1; wait EQ i+1 */
    SHMEM_PP_SIG,     /* ping-pong: signal SET i+1 alone; wait EQ i+1 */
};

/* One of the perftests. */
struct shmem_prog {
    const char *name; /* shmem_put_bw, ... */
    const char *job;  /* the table's "#job" line (the _uni/_bidi suffix is added) */
    enum shmem_kind kind;
};

extern const struct shmem_prog shmem_progs[];

/* The run: settings from the command line, then the results. */
struct shmem_state {
    const struct shmem_prog *prog;
    const char *prog_name; /* "pldsim-shmem_put_bw": the prefix of messages */
    int64_t minb, maxb, step, iters, warmup, ctas, threads, stride, mem_handle;
    const char *datatype, *reduce_op, *scope, *atomic_op, *dir, *issue;
    int bidir, msgrate, cudagraph, mmap, egm;
    int64_t chunk; /* --chunk: bytes a put or get stages through UB at a time */
    int64_t *sizes;
    int nsizes;
    double *elapsed[2]; /* per size: each PE's seconds for the timed iterations */
};

extern struct shmem_state M;

/* ---- shmem_args.c */

/* The whole command line; -1 to run, or the exit status after its
 * message (0 for --help and --version). */
int shmem_setup(int argc, char **argv, pld_config *cfg);

/* ---- shmem_kernels.c */

/* The host of the simulation: the windows, then each PE's kernel, which
 * runs every size's warm-up and timed iterations into M.elapsed. */
void shmem_host(const void *unused);

#endif
