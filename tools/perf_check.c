/* perf_check.c: -c's data: the inputs every rank writes, the results they
 * must read back, and the checked calls that count the wrong elements. */
#include "perf.h"

#include <stdlib.h>

/* -c moves its data through a host tensor per rank, one row chunk of up to
 * CHECK_COLS elements at a time: filled and compared on the host side,
 * copied to and from the window by pld_tensor_put and pld_tensor_get.  One
 * bounds-checked, race-recorded copy per chunk instead of a pl_write or
 * pl_read per element (a 64 MiB row made 16.8 M of those per rank, in
 * each of the two phases: nearly all of a --check sweep's time). */
#define CHECK_COLS ((int64_t)1 << 20)

/* Rank 0 adds 1 to the first element it checks, as if the collective had
 * got it wrong, so that a test can see -c count it and the run fail
 * (tests/model/check_whatif.c); only the first checked call is touched. */
int perf_corrupt_for_test;

/* Small integers, so every reduction is exact in FP16 too and a wrong
 * element is an error, not rounding. */
double perf_input_value(int r, int64_t j)
{
    return (double)((r * 7 + j * 3) % 5) - 2;
}

/* The reduction over ranks of element j of each rank's input. */
static double reduce_over_ranks(int64_t j)
{
    double acc = perf_input_value(0, j);
    for (int r = 1; r < S.P; r++) {
        double v = perf_input_value(r, j);
        acc = S.op == PLD_REDUCE_MAX    ? (v > acc ? v : acc)
              : S.op == PLD_REDUCE_MIN  ? (v < acc ? v : acc)
              : S.op == PLD_REDUCE_PROD ? acc * v
                                        : acc + v;
    }
    return acc;
}

/* From a table: perf_input_value depends on j only through j % 5, and -c
 * asks for every element of every rank (a P-step loop each was a quarter of
 * a 16 MiB -c run's time, once the copies were bulk). */
double perf_reduce_ref(int64_t j)
{
    return S.ref[j % 5];
}

/* Rank me's fill of row `row` of its input, j0 .. j0+w of n, through `buf`. */
static void fill_chunk(pl_tensor buf, const struct views *v, int me, int row, int64_t j0, int64_t w)
{
    float *f = S.dt == PL_FP32 ? buf.data : NULL; /* the common case, without a call per element */
    for (int64_t j = 0; j < w; j++) {
        double x = perf_input_value(me, row * v->n + j0 + j);
        if (f)
            f[j] = (float)x;
        else
            pl_tensor_set(buf, j, x);
    }
    pld_tensor_put(v->in, .peer = me, .src = buf, .dst_offsets = PL_IDX(row, j0),
                   .src_offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, w), .chunk_rows = 1,
                   .chunk_cols = 4096);
}

/* The wrong elements of row `row` of rank me's target, j0 .. j0+w of n. */
static long check_chunk(pl_tensor buf, const struct views *v, int me, int row, int64_t j0,
                        int64_t w)
{
    pld_tensor_get(buf, .peer = me, .src = v->tgt, .dst_offsets = PL_IDX(0, 0),
                   .src_offsets = PL_IDX(row, j0), .shape = PL_SHAPE(1, w), .chunk_rows = 1,
                   .chunk_cols = 4096);
    if (perf_corrupt_for_test && me == 0) {
        pl_tensor_set(buf, 0, pl_tensor_get(buf, 0) + 1);
        perf_corrupt_for_test = 0;
    }
    const float *f = S.dt == PL_FP32 ? buf.data : NULL;
    long wrong = 0;
    for (int64_t j = 0; j < w; j++) {
        double want;
        S.coll->expected(me, row, v->n, j0 + j, &want);
        wrong += (f ? f[j] : pl_tensor_get(buf, j)) != want;
    }
    return wrong;
}

/* nccl-tests checks in a call of its own after the timed ones. */
long perf_checked_call(const struct dev_args *a, const struct views *v, int64_t n, int half)
{
    int me = a->rank;
    for (int row = 0; row < v->rows; row++)
        for (int64_t j0 = 0; j0 < n; j0 += CHECK_COLS)
            fill_chunk(a->check_buf, v, me, row, j0, n - j0 < CHECK_COLS ? n - j0 : CHECK_COLS);
    if (half == 1 && S.coll->in_place)
        pld_tensor_put(v->tgt, .peer = me, .src = v->in, .chunk_cols = 4096);
    pld_tensor_barrier(a->bar);
    perf_one_call(a, v, half, 0);
    long wrong = 0;
    double want;
    for (int row = 0; row < v->rows; row++)
        if (S.coll->expected(me, row, n, 0,
                             &want)) /* rows that hold a result, the only ones read */
            for (int64_t j0 = 0; j0 < n; j0 += CHECK_COLS)
                wrong += check_chunk(a->check_buf, v, me, row, j0,
                                     n - j0 < CHECK_COLS ? n - j0 : CHECK_COLS);
    /* the next call writes into windows that peers may still read */
    pld_tensor_barrier(a->bar);
    return wrong;
}

int perf_check_init(void)
{
    int64_t w = 1;
    for (int k = 0; k < S.nsteps; k++)
        if (S.steps[k].n > w)
            w = S.steps[k].n;
    if (!(S.check_bufs = calloc((size_t)S.P, sizeof *S.check_bufs)))
        return perf_fail_usage("out of memory for %s check buffers", "the");
    for (int r = 0; r < S.P; r++)
        S.check_bufs[r] =
            pl_tensor_new(PL_SHAPE(1, w < CHECK_COLS ? w : CHECK_COLS), S.dt, "check");
    for (int j = 0; j < 5; j++)
        S.ref[j] = reduce_over_ranks(j);
    perf_corrupt_for_test = getenv("PLDSIM_PERF_TEST_CORRUPT") != NULL;
    return 0;
}
