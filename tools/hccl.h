/* hccl.h: what pldsim-hccl-test's files share.
 *
 * pldsim-hccl-test runs CANN's HCCL Test programs (all_reduce_test, ...)
 * on pld's builtins: hccl_test's flags and its table, with simulated times.
 * It drives the same engine as pldsim-perf (perf.h: the kernel, the sweep
 * of sizes as simulations, -c's data), with hccl_test's sizes, its one
 * timed call per size and its table in place of nccl-tests' ones:
 * pldsim-hccl-test.c has main and the programs, hccl_args.c the command
 * line, hccl_output.c the table. */
#ifndef PLDSIM_HCCL_H
#define PLDSIM_HCCL_H

#include "perf.h"

/* One of hccl_test's programs. */
struct hccl_prog {
    const char *name;             /* hccl_test's: all_reduce_test, ... */
    const struct perf_coll *coll; /* the builtin that runs it; NULL: refused */
    const char *why_not;          /* for a refused one: what pld lacks */
    int half;                     /* S.one_half: 1 out-of-place, 2 in-place */
    /* 1: -b's size is the whole of every rank's data, and each rank's part
     * is 1/P of it (all_gather_test, reduce_scatter_test) */
    int per_rank_parts;
    int align_to_ranks; /* 1: the count is rounded up to P's multiple (alltoall_test) */
    int has_op;         /* 1: -o applies; else a warning, as hccl_test gives */
};

/* The programs, in the order CANN's docs list them; NULL-terminated. */
extern const struct hccl_prog hccl_progs[];

/* The run's hccl_test settings, beside perf's S. */
struct hccl_state {
    const struct hccl_prog *prog;
    const char *prog_name; /* "pldsim-all_reduce_test": the prefix of every message */
    int64_t *data_size;    /* per size: the data_size column, hccl_test's loop variable */
    int64_t minb, maxb;    /* -b and -e, as the opening line names them */
    int check;             /* -c: 0 off, 1 on, 2 on with details */
    int overflow;          /* 1: hccl_test would skip the check (its NULL) */
    int op_ignored;        /* 1: -o given to a program without a reduction */
    int npus, ranks;       /* -p, and --ranks (mpirun -n's count) */
};

extern struct hccl_state H;

/* The program called `name` (with or without "pldsim-"); NULL if none. */
const struct hccl_prog *hccl_prog_by_name(const char *name);

/* ---- hccl_args.c */

/* The whole command line: defaults, argv, the devices and the sweep.
 * Returns -1 to run, or the exit status after its message (0 for --help
 * and --version). */
int hccl_setup(int argc, char **argv, pld_config *cfg);

/* ---- hccl_output.c */

/* pldsim's note of what is simulated, on stderr, before the run. */
void hccl_print_opening(const pld_config *cfg);

/* After the run, on stdout, what hccl_test prints: its opening line, then
 * size by size its warnings, its header (once) and the row.  Returns the
 * exit status: 0, or 1 when a check failed.  (hccl_test prints its opening
 * line before it runs; here a run that fails prints none of it.) */
int hccl_print_results(void);

#endif
