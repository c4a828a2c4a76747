/* perf.h: what pldsim-perf's files share.
 *
 * pldsim-perf is split as nccl-tests splits its own sources: a driver
 * (pldsim-perf.c: main; perf_args.c: the command line; perf_sweep.c: the
 * sizes and the simulations that time them), the program each rank runs
 * (perf_kernel.c, with -c's data in perf_check.c), the table, CSV and JSON
 * (perf_output.c), and one file per collective (perf_allreduce.c, ...),
 * each the counterpart of nccl-tests' src/<coll>.cu.  They share one state,
 * S: a run is one sweep, so its settings and results are a single object
 * that every file reads, as nccl-tests' globals are. */
#ifndef PLDSIM_PERF_H
#define PLDSIM_PERF_H

#include "perf_jobs.h" /* perf_prog */

#include <pld/pld.h>

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The nccl-tests release whose output format this matches. */
#define NCCL_TESTS_FORMAT "2.19.6"

/* The most sizes one sweep may have (-i steps can ask for millions). */
#define MAX_SIZES 65536

/* One row of the table: nccl-tests' size (bytes) and count (elements)
 * columns, and the elements of each rank's window row (0: nothing to move). */
struct step {
    int64_t size, count, n;
};

/* What one rank's kernel is handed: its rank and its views of the windows. */
struct dev_args {
    int rank;
    pld_dtensor target, input, sig, ring_sig, bar;
    pld_dtensor target2; /* the second target of a collective with two_targets */
    pl_tensor check_buf; /* -c: this rank's host tensor of [1, CHECK_COLS] at most */
};

/* The views one call of `n` row elements uses. */
struct views {
    pld_dtensor tgt, in, tgt2;
    int rows;
    int64_t n;
};

/* One collective, as nccl-tests' src/<coll>.cu describes it: its names, how
 * its buffers are laid out, its call, its expected results and its bus
 * bandwidth. */
struct perf_coll {
    const char *name; /* pldsim's name: allreduce, ... */
    const char *nccl; /* nccl-tests' program: all_reduce_perf, ... */
    /* 1: each rank's window holds a row per peer (P rows), and the sizes
     * are rounded as nccl-tests rounds per-rank parts; 0: one row */
    int per_peer_rows;
    /* 1: the builtin works in place on the window, so the out-of-place
     * half first copies a separate send buffer into it; 0: the builtin
     * reads a separate buffer, so both halves time the same call */
    int in_place;
    /* 1: out-of-place calls take turns between two target windows */
    int two_targets;
    int has_op;   /* 1: the redop column names -o's op; 0: "none" */
    int has_root; /* 1: the root column is -r's root; 0: -1 */
    /* The algorithm that the header and the CSV name; NULL: "builtin". */
    const char *(*mode)(void);
    /* One call of the builtin on rank a->rank's views. */
    void (*call)(const struct dev_args *a, const struct views *v);
    /* What element j (of n) of row `row` of rank me's target must hold
     * after a call, into *want; 0 for a row that holds no result. */
    int (*expected)(int me, int row, int64_t n, int64_t j, double *want);
    /* nccl-tests' <coll>GetBw: busbw = algbw * this, for P ranks. */
    double (*busbw_factor)(double P);
};

/* The bus-bandwidth factors that several collectives share: (P-1)/P where
 * a rank moves the parts of its P-1 peers, 1 where it moves the whole
 * buffer. */
static inline double perf_busbw_parts(double n)
{
    return (n - 1) / n;
}
static inline double perf_busbw_whole(double n)
{
    (void)n;
    return 1;
}

/* The collectives, one per file. */
extern const struct perf_coll perf_allreduce, perf_broadcast, perf_allgather, perf_reduce_scatter,
    perf_alltoall, perf_sendrecv;

/* The run: its settings (from the command line) and its results. */
struct perf_state {
    const struct perf_coll *coll;
    int P;
    pld_allreduce_mode mode;
    pld_reduce_op op;
    pl_dtype dt;
    int root, check_iters, iters, warmup, blocking, average, cycles;
    int64_t minb, maxb, stepb, factor;
    struct step *steps; /* the sweep, once */
    int nsteps;
    int64_t *warm; /* row elements of each warm-up size (factor 2, as nccl-tests) */
    int nwarm;
    /* per row (cycle-major), per half (0 out-of-place, 1 in-place), per rank */
    double *rank_time;
    long *wrong;        /* per row and half */
    int *made;          /* per row and half: timed calls simulated (the rest derived) */
    int all_iterations; /* --all-iterations: no steady-state shortcut */
    int jobs;           /* -j: simulations at once (0: one per core) */
    int only;           /* in a size's own simulation: that size's index; -1: all */
    /* 0: both halves of each row; 1: out-of-place only; 2: in-place only
     * (hccl_test times one call per size, not nccl-tests' two) */
    int one_half;
    pl_tensor *check_bufs; /* -c: per rank, made before the run as host tensors must be */
    double ref[5];         /* perf_reduce_ref's table */
    struct timespec wall0;
    double last_progress;
    json_t *json, *results; /* -J's document, and its rows until they join it */
};

/* The one run of this process (pldsim-perf.c). */
extern struct perf_state S;

/* Settings that main needs after parsing. */
struct cli {
    const char *devices;    /* --devices LIST, or NULL */
    const char *csv, *json; /* --csv's and -J's files, or NULL */
    const char *ngpus_arg;  /* -g's text, to refuse it beside --devices; or NULL */
    int ngpus;              /* -g's count (default 1) */
};

/* ---- perf_args.c: the command line */

/* The whole command line, as main takes it: the defaults, argv, then what
 * the flags imply (the device list, --root against it, the sweep).  Never
 * exits; returns -1 to run, or the exit status after its message (0 for
 * --help and --version).  The fuzzer (tests/fuzz/fuzz_perf_args.c) calls it
 * once per input, after perf_reset. */
int perf_setup(int argc, char **argv, pld_config *cfg, struct cli *cli);

/* One refusal line on stderr, "pldsim-perf: <fmt with arg> (see --help)";
 * returns the usage status, 2. */
int perf_fail_usage(const char *fmt, const char *arg);

/* ---- perf_sweep.c: the sizes, and the simulations that time them */

/* nccl-tests' setupArgs and <coll>GetCollByteCount for `bytes`. */
struct step perf_make_step(int64_t bytes);

/* Builds the sweep from -b -e -f -i; 0, or the exit status of a refusal. */
int perf_make_sweep(void);

/* Wall-clock seconds since S.wall0, for the progress lines. */
double perf_wall_now(void);

/* How many sizes are simulated at once, or 0 for the sweep as one
 * simulation (said on stderr when -j asked for more). */
int perf_sweep_jobs(const pld_config *cfg);

/* Runs the sweep into S's results, `jobs` sizes at once (0: as one
 * simulation).  Returns 0 or the exit status, after its message. */
int perf_run_sweep(pld_config *cfg, int jobs);

/* Where rank r's time (s) of row `row`, half `half` is kept. */
double *perf_rank_time(int row, int half, int r);

/* ---- perf_kernel.c: what the host and each rank run */

/* Window rows per rank: P for a collective with per_peer_rows, else 1. */
int perf_window_rows(void);

/* The host of one simulation: the windows, then one kernel per rank, which
 * runs the warm-up and the timed rows (of S.only, or of every size). */
void perf_host(const void *unused);

/* One call of the collective, the `it`-th in a row, in half `half` (0:
 * out-of-place, with the send buffer's copy; 1: in-place). */
void perf_one_call(const struct dev_args *a, const struct views *views, int half, int it);

/* ---- perf_check.c: -c's data */

/* A test hook (PLDSIM_PERF_TEST_CORRUPT set): nonzero while rank 0 is to
 * spoil the first element it checks; a size's own simulation other than
 * the first clears it, so that only one element is ever spoiled. */
extern int perf_corrupt_for_test;

/* The value rank r puts at element j (small integers: exact in FP16). */
double perf_input_value(int r, int64_t j);

/* The reduction over ranks of element j of each rank's input, by -o's op
 * (from S.ref, which perf_check_init fills). */
double perf_reduce_ref(int64_t j);

/* -c's host tensors, reference table and test hook, made before the run;
 * 0, or the exit status after a message. */
int perf_check_init(void);

/* -c: fresh inputs, one call of n row elements, and the number of wrong
 * elements in rank a->rank's results. */
long perf_checked_call(const struct dev_args *a, const struct views *v, int64_t n, int half);

/* ---- perf_output.c: the table, CSV and JSON */

/* The output files the command line asked for (NULL: not asked). */
struct perf_outputs {
    FILE *csv, *json;
    const char *csv_path;
    char json_path[4200]; /* -J's file as opened: FILE or FILE.N */
};

/* Opens --csv's and -J's files; 0, or the exit status after a message. */
int perf_open_outputs(const struct cli *cli, struct perf_outputs *out);

/* The header down to the out-of-place line, and the JSON's opening. */
void perf_print_opening(const pld_config *cfg, int argc, char **argv,
                        const struct perf_outputs *out);

/* The rest of the header (how the sweep is run: `jobs` as perf_sweep_jobs
 * says, `shortcut` whether repeated calls are derived) and the devices;
 * flushes stdout. */
void perf_print_setup(const pld_config *cfg, int jobs, int shortcut);

/* The table, its CSV, the footer and the JSON document, from S's results;
 * returns the exit status (1 for wrong elements, too low a bandwidth under
 * NCCL_TESTS_MIN_BW, or a failed write). */
int perf_print_results(const struct perf_outputs *out);

/* Lets go of the JSON document on every way out; returns `status`. */
int perf_done(int status);

#endif
