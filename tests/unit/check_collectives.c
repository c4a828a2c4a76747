/* check_collectives.c: property tests of every builtin collective against a
 * serial reference.  Each run has one device count P (2..16); its cases draw
 * the builtin's parameters at random: sizes (many that do not divide by P or
 * by the 16 KiB chunk), reduce ops, FP32/FP16, roots, host or window inputs,
 * integer-valued data (must match bit for bit) or normal data (must match
 * within the stated tolerance).  All calls of a run share two signal windows,
 * which must read zero at the end: that is the reuse property.
 *
 * Tolerances, relative to sum_k |x_k| of the element (Sum), to |ref| (Prod):
 *   FP32: 1e-5 (Sum), 2^-20 * P (Prod);   FP16: 2^-9 * P (both).
 * Max, Min, broadcast, allgather and all_to_all are exact. */
#include "checktools.h"

#include <math.h>
#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum kind { AR_MESH, AR_RING, BCAST, AGATHER, RSCATTER, A2A, NKINDS };
static const char *const kind_name[] = {"allreduce/mesh", "allreduce/ring", "broadcast",
                                        "allgather",      "reduce_scatter", "all_to_all"};

/* Cases per kind per run; 15 runs (P = 2..16) give 1005 per builtin. */
#define CASES_PER_KIND 67
#define NMAX           12000 /* elements of a row for allreduce and broadcast */
#define SMAX           400   /* elements of a row of the [P, S] builtins */

struct tcase {
    enum kind kind;
    pl_dtype dt;
    pld_reduce_op op;
    int64_t n;
    int root;
    int int_data;
    int host_input;       /* all_to_all: input is a host tensor, not a window view */
    pl_tensor in, out;    /* [P, 1, n] or [P, P, n] */
    pld_dtensor tgt, aux; /* window views for this case */
};

static uint64_t rng;
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int64_t uniform(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

/* Sizes: a third tiny (below P and the 32-byte row), a third medium, a third
 * large (several 16 KiB chunks for the mesh). */
static int64_t draw_size(int64_t max)
{
    switch (uniform(0, 2)) {
    case 0:
        return uniform(1, 40);
    case 1:
        return uniform(41, max / 8);
    default:
        return uniform(max / 8 + 1, max);
    }
}

static void fill_input(struct tcase *c)
{
    int64_t n = pl_shape_numel(c->in.shape);
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (c->op == PLD_REDUCE_PROD)
            v = c->int_data ? (uniform(0, 7) == 0 ? 2.0 : (uniform(0, 1) ? 1.0 : -1.0))
                            : 1.0 + 0.1 * (double)(int64_t)uniform(-5, 5) / 5.0;
        else if (c->int_data)
            v = (double)uniform(-4, 4);
        else {
            /* approximately normal: sum of uniforms */
            v = 0;
            for (int k = 0; k < 4; k++)
                v += (double)(next_u64() >> 11) / 9007199254740992.0 - 0.5;
        }
        pl_tensor_set(c->in, i, v);
    }
}

static struct tcase *cases;
static int ncases, P;
/* The reuse test: every call gets windows of its own and no barrier follows
 * it, so calls run back to back and only the signals are shared. */
static int back_to_back;
static pl_tensor sig_after; /* [P, cells]: both signals as read at the end */

struct dev_args {
    pld_dtensor sig_mesh, sig_ring;
};

static void case_kernel(struct tcase *c, pld_dtensor sm, pld_dtensor sr)
{
    int me = pld_rank(pld_get_comm_ctx(sm));
    pl_tensor in = pl_at(c->in, me), out = pl_at(c->out, me);
    switch (c->kind) {
    case AR_MESH:
    case AR_RING:
        pld_tensor_put(c->tgt, .peer = me, .src = in);
        pld_tensor_allreduce(c->tgt, c->kind == AR_RING ? sr : sm, .op = c->op,
                             .mode = c->kind == AR_RING ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH);
        pld_tensor_get(out, .peer = me, .src = c->tgt);
        break;
    case BCAST:
        pld_tensor_put(c->tgt, .peer = me, .src = in);
        pld_tensor_broadcast(c->tgt, sm, .root = c->root);
        pld_tensor_get(out, .peer = me, .src = c->tgt);
        break;
    case AGATHER:
        pld_tensor_allgather(in, c->tgt, sm);
        pld_tensor_get(out, .peer = me, .src = c->tgt);
        break;
    case RSCATTER:
        pld_tensor_put(c->tgt, .peer = me, .src = in);
        pld_tensor_reduce_scatter(c->tgt, sm, .op = c->op);
        pld_tensor_get(out, .peer = me, .src = c->tgt);
        break;
    case A2A:
        if (c->host_input) {
            pld_tensor_all_to_all(in, c->tgt, sm);
        } else {
            pld_tensor_put(c->aux, .peer = me, .src = in);
            pld_tensor_all_to_all(c->aux, c->tgt, sm);
        }
        pld_tensor_get(out, .peer = me, .src = c->tgt);
        break;
    case NKINDS:
        break;
    }
    /* Upstream's lowerings end at their last barrier: a fast rank may start
     * the next collective, and write into our window, while we still read
     * this one's result.  Reusing one window across calls therefore needs a
     * barrier once the result is read (step 16 uses separate windows). */
    if (!back_to_back)
        pld_tensor_barrier(sm);
}

static void read_signals(pld_dtensor sm, pld_dtensor sr)
{
    int me = pld_rank(pld_get_comm_ctx(sm));
    pl_tensor row = pl_at(sig_after, me);
    for (int i = 0; i < P; i++)
        pl_write(row, PL_IDX(i), pl_read(sm, PL_IDX(i, 0)));
    for (int r = 0; r < 2 * (P - 1); r++)
        for (int j = 0; j < P; j++)
            pl_write(row, PL_IDX(P + r * P + j), pl_read(sr, PL_IDX(r, j)));
}

static void per_device(const struct dev_args *a)
{
    for (int i = 0; i < ncases; i++)
        pl_incore(case_kernel, &cases[i], a->sig_mesh, a->sig_ring);
    pl_incore(read_signals, a->sig_mesh, a->sig_ring);
}

static void host(const void *unused)
{
    (void)unused;
    pld_buffer a = pld_alloc_window_buffer(PL_SHAPE(P, SMAX > NMAX / P ? SMAX : NMAX), PL_FP32,
                                           .name = "target");
    pld_buffer b = pld_alloc_window_buffer(PL_SHAPE(P, SMAX), PL_FP32, .name = "input");
    pld_buffer sm = pld_alloc_window_buffer(PL_SHAPE(P, 1), PL_INT32, .name = "sig_mesh");
    pld_buffer sr = pld_alloc_window_buffer(PL_SHAPE(2 * (P - 1), P), PL_INT32, .name = "sig_ring");
    if (back_to_back) {
        /* one [P, n] region per call in each of two buffers */
        int64_t n = cases[0].n;
        pld_buffer ta = pld_alloc_window_buffer(PL_SHAPE(ncases, P, n), PL_FP32, .name = "targets");
        pld_buffer tb = pld_alloc_window_buffer(PL_SHAPE(ncases, P, n), PL_FP32, .name = "inputs");
        for (int i = 0; i < ncases; i++) {
            struct tcase *c = &cases[i];
            pld_dtensor all_a = pld_window(ta, PL_SHAPE(ncases, P, n), c->dt);
            pld_dtensor all_b = pld_window(tb, PL_SHAPE(ncases, P, n), c->dt);
            c->tgt = pl_at(all_a, i);
            if (c->kind <= BCAST)
                c->tgt.shape = PL_SHAPE(1, n); /* the first row of the region */
            c->aux = pl_at(all_b, i);
        }
    }
    for (int i = 0; i < ncases && !back_to_back; i++) {
        struct tcase *c = &cases[i];
        if (c->kind <= BCAST)
            c->tgt = pld_window(a, PL_SHAPE(1, c->n), c->dt);
        else
            c->tgt = pld_window(a, PL_SHAPE(P, c->n), c->dt);
        if (c->kind == A2A)
            c->aux = pld_window(b, PL_SHAPE(P, c->n), c->dt);
    }
    struct dev_args d = {pld_window(sm, PL_SHAPE(P, 1), PL_INT32),
                         pld_window(sr, PL_SHAPE(2 * (P - 1), P), PL_INT32)};
    for (int r = 0; r < P; r++)
        pld_dispatch(r, per_device, d);
}

static void make_cases(int count, int64_t fixed_n)
{
    ncases = count;
    cases = calloc((size_t)ncases, sizeof *cases);
    for (int i = 0; i < ncases; i++) {
        struct tcase *c = &cases[i];
        c->kind = (enum kind)(i % NKINDS);
        c->dt = (c->kind == BCAST || c->kind >= AGATHER) && uniform(0, 1) ? PL_FP16
                : uniform(0, 2) == 0                                      ? PL_FP16
                                                                          : PL_FP32;
        c->op = (pld_reduce_op)uniform(PLD_REDUCE_SUM, PLD_REDUCE_PROD);
        c->n = fixed_n ? fixed_n : c->kind <= BCAST ? draw_size(NMAX) : draw_size(SMAX);
        c->root = (int)uniform(0, P - 1);
        c->int_data = uniform(0, 1);
        c->host_input = uniform(0, 1);
        int per_rank_rows = c->kind == RSCATTER || c->kind == A2A ? P : 1;
        c->in = pl_tensor_new(PL_SHAPE(P, per_rank_rows, c->n), c->dt, "in");
        int out_rows = c->kind == AGATHER || c->kind == A2A || c->kind == RSCATTER ? P : 1;
        c->out = pl_tensor_new(PL_SHAPE(P, out_rows, c->n), c->dt, "out");
        fill_input(c);
    }
}

/* The serial reference: value and tolerance of out[r][row][j]. */
static double in_at(const struct tcase *c, int rank, int64_t row, int64_t j)
{
    int rows = (int)c->in.shape.dim[1];
    return pl_tensor_get(c->in, ((int64_t)rank * rows + row) * c->n + j);
}

static double reduce_ref(const struct tcase *c, int64_t row, int64_t j, double *tol)
{
    double acc = in_at(c, 0, row, j), mag = fabs(acc);
    for (int k = 1; k < P; k++) {
        double v = in_at(c, k, row, j);
        mag += fabs(v);
        switch (c->op) {
        case PLD_REDUCE_MAX:
            acc = v > acc ? v : acc;
            break;
        case PLD_REDUCE_MIN:
            acc = v < acc ? v : acc;
            break;
        case PLD_REDUCE_PROD:
            acc *= v;
            break;
        default:
            acc += v;
        }
    }
    *tol = 0;
    if (!c->int_data && (c->op == PLD_REDUCE_SUM || c->op == PLD_REDUCE_PROD)) {
        double scale = c->op == PLD_REDUCE_SUM ? mag : fabs(acc);
        *tol = c->dt == PL_FP16          ? ldexp(scale * P, -9)
               : c->op == PLD_REDUCE_SUM ? 1e-5 * scale
                                         : ldexp(scale * P, -20);
    }
    if (c->int_data && c->op == PLD_REDUCE_SUM && c->dt == PL_FP16)
        *tol = 0; /* small integers: exact in FP16 too */
    return acc;
}

static int check_case(const struct tcase *c, char *why, size_t len)
{
    int rows = (int)c->out.shape.dim[1];
    for (int r = 0; r < P; r++)
        for (int row = 0; row < rows; row++)
            for (int64_t j = 0; j < c->n; j++) {
                double got = pl_tensor_get(c->out, ((int64_t)r * rows + row) * c->n + j);
                double want, tol = 0;
                switch (c->kind) {
                case AR_MESH:
                case AR_RING:
                    want = reduce_ref(c, 0, j, &tol);
                    break;
                case BCAST:
                    want = in_at(c, c->root, 0, j);
                    break;
                case AGATHER:
                    want = in_at(c, row, 0, j);
                    break;
                case RSCATTER:
                    /* only row r is reduced; the other rows keep rank r's input */
                    want = row == r ? reduce_ref(c, r, j, &tol) : in_at(c, r, row, j);
                    break;
                default: /* A2A: row s of rank r's target = rank s's row r */
                    want = in_at(c, row, r, j);
                }
                if (!(fabs(got - want) <= tol)) {
                    snprintf(why, len,
                             "%s %s op=%d n=%lld root=%d int=%d P=%d: rank %d row %d [%lld] = "
                             "%.9g, expected %.9g (tolerance %.3g)",
                             kind_name[c->kind], pl_dtype_name(c->dt), (int)c->op, (long long)c->n,
                             c->root, c->int_data, P, r, row, (long long)j, got, want, tol);
                    return 0;
                }
            }
    return 1;
}

/* Runs `host` on devices 0..P-1 on the simulator, and asserts it succeeds. */
static void run_on_p(void (*host_fn)(const void *))
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    char list[16];
    snprintf(list, sizeof list, "0-%d", P - 1);
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    ck_assert_int_eq(pld_run(&cfg, host_fn, NULL), 0);
}

START_TEST(builtins_match_the_serial_reference)
{
    P = 2 + _i;
    rng = 0x5eed0000u + (uint64_t)P;
    make_cases(CASES_PER_KIND * NKINDS, 0);
    sig_after = pl_tensor_new(PL_SHAPE(P, P + 2 * (P - 1) * P), PL_INT32, "signals");
    run_on_p(host);

    int per_kind[NKINDS] = {0};
    char why[512];
    for (int i = 0; i < ncases; i++) {
        ck_assert_msg(check_case(&cases[i], why, sizeof why), "case %d: %s", i, why);
        per_kind[cases[i].kind]++;
    }
    for (int k = 0; k < NKINDS; k++)
        ck_assert_int_eq(per_kind[k], CASES_PER_KIND);
    /* Reuse: after ~400 calls on the same two signals, every cell is zero. */
    for (int64_t i = 0; i < pl_shape_numel(sig_after.shape); i++)
        ck_assert_msg(pl_tensor_get(sig_after, i) == 0, "signal cell %lld reads %g after the run",
                      (long long)i, pl_tensor_get(sig_after, i));
}
END_TEST

/* 100 builtin calls back to back (no barrier between them, each on its own
 * windows, all on the same two signals): every result is right, and both
 * signals read zero at the end. */
START_TEST(back_to_back_calls_reuse_one_signal)
{
    P = 3 + 2 * _i; /* 3 and 5: odd counts, uneven splits */
    rng = 0xbacc0000u + (uint64_t)P;
    back_to_back = 1;
    make_cases(102, 48);
    sig_after = pl_tensor_new(PL_SHAPE(P, P + 2 * (P - 1) * P), PL_INT32, "signals");
    char why[512];
    run_on_p(host);
    for (int i = 0; i < ncases; i++)
        ck_assert_msg(check_case(&cases[i], why, sizeof why), "call %d: %s", i, why);
    for (int64_t i = 0; i < pl_shape_numel(sig_after.shape); i++)
        ck_assert_msg(pl_tensor_get(sig_after, i) == 0, "signal cell %lld reads %g after the run",
                      (long long)i, pl_tensor_get(sig_after, i));
}
END_TEST

/* ---- all_to_all_v: variable counts, fixed transfers ---- */

#define V_MAX  3  /* MAX_RECV: rows each rank owns per peer */
#define V_COLS 16 /* a 64-byte row */

/* What rank r sends to d: 0..V_MAX+1 rows, so some exceed the capacity
 * (clamped) and some are empty. */
static int v_count(int r, int d)
{
    return (r + 2 * d) % (V_MAX + 2);
}

struct v_args {
    pld_dtensor in, tgt, sig, rc;
    pl_tensor counts, out, rc_out; /* this rank's rows of the host tensors */
};

static void v_kernel(const struct v_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(a->tgt)), p = pld_nranks(pld_get_comm_ctx(a->tgt));
    for (int d = 0; d < p; d++)
        for (int k = 0; k < V_MAX; k++)
            for (int j = 0; j < V_COLS; j++)
                pl_write(a->in, PL_IDX(d * V_MAX + k, j), me * 1000 + d * 10 + k + j * 0.5);
    for (int call = 0; call < 2; call++) /* twice: the signal clears itself */
        pld_tensor_all_to_all_v(a->in, a->tgt, a->sig, a->counts, a->rc);
    pl_store(pl_load(a->tgt, PL_IDX(0, 0), PL_SHAPE(p * V_MAX, V_COLS)), PL_IDX(0, 0), a->out);
    for (int s = 0; s < p; s++)
        pl_write(a->rc_out, PL_IDX(s), pl_read(a->rc, PL_IDX(s, 0)));
    pl_write(a->rc_out, PL_IDX(p),
             pl_read(a->sig, PL_IDX(0, 0)) + pl_read(a->sig, PL_IDX(p - 1, 0)));
}

static void v_device(const struct v_args *a)
{
    pl_incore(v_kernel, a);
}

static pl_tensor v_counts, v_out, v_rc_out;

static void v_host(const void *unused)
{
    (void)unused;
    pl_shape rows = PL_SHAPE(P * V_MAX, V_COLS), cells = PL_SHAPE(P, 1);
    pld_buffer in = pld_alloc_window_buffer(rows, PL_FP32, .name = "in");
    pld_buffer tgt = pld_alloc_window_buffer(rows, PL_FP32, .name = "tgt");
    pld_buffer sig = pld_alloc_window_buffer(64, .name = "sig"); /* a line of its own */
    pld_buffer rc = pld_alloc_window_buffer(cells, PL_INT32, .name = "rc");
    for (int r = 0; r < P; r++) {
        struct v_args a = {pld_window(in, rows, PL_FP32),
                           pld_window(tgt, rows, PL_FP32),
                           pld_window(sig, cells, PL_INT32),
                           pld_window(rc, cells, PL_INT32),
                           pl_at(v_counts, r),
                           pl_at(v_out, r),
                           pl_at(v_rc_out, r)};
        pld_dispatch(r, v_device, a);
    }
}

START_TEST(all_to_all_v_delivers_blocks_and_clamped_counts)
{
    P = 2 + _i; /* 2..8 */
    v_counts = pl_tensor_new(PL_SHAPE(P, P), PL_INT32, "send_counts");
    v_out = pl_tensor_new(PL_SHAPE(P, P * V_MAX, V_COLS), PL_FP32, "out");
    v_rc_out = pl_tensor_new(PL_SHAPE(P, P + 1), PL_INT32, "recv_counts");
    for (int r = 0; r < P; r++)
        for (int d = 0; d < P; d++)
            pl_tensor_set(v_counts, r * P + d, v_count(r, d));
    run_on_p(v_host);
    for (int me = 0; me < P; me++) {
        for (int s = 0; s < P; s++) {
            int want = v_count(s, me) < V_MAX ? v_count(s, me) : V_MAX;
            ck_assert_msg(pl_tensor_get(v_rc_out, me * (P + 1) + s) == want,
                          "P=%d: rank %d's recv_counts[%d] = %g, expected %d", P, me, s,
                          pl_tensor_get(v_rc_out, me * (P + 1) + s), want);
            /* the first `want` rows of the block cross; the rows after them
             * keep what they held, zeros in a fresh window (upstream bounds
             * the transfer by the count: pypto#2536) */
            for (int k = 0; k < V_MAX; k++)
                for (int j = 0; j < V_COLS; j++) {
                    double got = pl_tensor_get(
                        v_out, ((int64_t)me * P * V_MAX + s * V_MAX + k) * V_COLS + j);
                    double expect = k < want ? s * 1000 + me * 10 + k + j * 0.5 : 0;
                    ck_assert_msg(got == expect,
                                  "P=%d: rank %d block %d row %d col %d = %g, not %g", P, me, s, k,
                                  j, got, expect);
                }
        }
        ck_assert_msg(pl_tensor_get(v_rc_out, me * (P + 1) + P) == 0,
                      "P=%d: rank %d's signal does not read zero after the calls", P, me);
    }
    pl_tensor_free(&v_counts);
    pl_tensor_free(&v_out);
    pl_tensor_free(&v_rc_out);
}
END_TEST

/* ---- all_to_all_v with core_num: the host's builtin on B blocks ----
 * RFC #2521: B = L if L < P else floor(L / P) * P blocks, K = B / P lanes
 * a peer (or block b serving the peers d % B == b), a [P, stride] signal
 * whose lanes reset themselves.  Counts differ per rank (a window), some
 * past the capacity, some zero; two calls on one signal. */

#define VC_MAX 5

static int vc_cores, vc_stride;
static pl_tensor vc_out, vc_rc_out;

struct vc_args {
    pld_dtensor in, tgt, sig, rc, cnt;
    pl_tensor out, rc_out; /* this rank's rows of the host tensors */
    int phase;
};

static int vc_no_collect;

static int vc_count(int r, int d)
{
    return (r + 2 * d) % (VC_MAX + 2);
}

static void vc_kernel(const struct vc_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(a->tgt)), p = pld_nranks(pld_get_comm_ctx(a->tgt));
    if (a->phase == 0) {
        for (int d = 0; d < p; d++) {
            pl_write(a->cnt, PL_IDX(d), vc_count(me, d));
            for (int k = 0; k < VC_MAX; k++)
                for (int j = 0; j < V_COLS; j++)
                    pl_write(a->in, PL_IDX(d * VC_MAX + k, j), me * 1000 + d * 10 + k + j * 0.5);
        }
        return;
    }
    pl_store(pl_load(a->tgt, PL_IDX(0, 0), PL_SHAPE(p * VC_MAX, V_COLS)), PL_IDX(0, 0), a->out);
    double cells = 0;
    for (int s = 0; s < p; s++) {
        pl_write(a->rc_out, PL_IDX(s), pl_read(a->rc, PL_IDX(s)));
        for (int k = 0; k < vc_stride; k++)
            cells += fabs(pl_read(a->sig, PL_IDX(s, k)));
    }
    pl_write(a->rc_out, PL_IDX(p), cells);
}

static void vc_device(const struct vc_args *a)
{
    pl_incore(vc_kernel, a);
}

static void vc_host(const void *unused)
{
    (void)unused;
    pl_shape rows = PL_SHAPE(P * VC_MAX, V_COLS);
    pld_buffer in = pld_alloc_window_buffer(rows, PL_FP32, .name = "in");
    pld_buffer tgt = pld_alloc_window_buffer(rows, PL_FP32, .name = "tgt");
    pld_buffer sig =
        pld_alloc_window_buffer(((int64_t)P * vc_stride * 4 + 63) / 64 * 64, .name = "lanes");
    pld_buffer rc = pld_alloc_window_buffer(64, .name = "rc");
    pld_buffer cnt = pld_alloc_window_buffer(64, .name = "cnt");
    struct vc_args a = {.in = pld_window(in, rows, PL_FP32),
                        .tgt = pld_window(tgt, rows, PL_FP32),
                        .sig = pld_window(sig, PL_SHAPE(P, vc_stride), PL_INT32),
                        .rc = pld_window(rc, PL_SHAPE(P), PL_INT32),
                        .cnt = pld_window(cnt, PL_SHAPE(P), PL_INT32)};
    for (int r = 0; r < P; r++)
        pld_dispatch(r, vc_device, a);
    for (int call = 0; call < 2; call++)
        pld_tensor_all_to_all_v(a.in, a.tgt, a.sig, a.cnt, a.rc, .core_num = vc_cores);
    if (vc_no_collect) /* --no-data: nothing to store into the host's tensors */
        return;
    a.phase = 1;
    for (int r = 0; r < P; r++) {
        a.out = pl_at(vc_out, r);
        a.rc_out = pl_at(vc_rc_out, r);
        pld_dispatch(r, vc_device, a);
    }
}

START_TEST(core_num_spreads_the_all_to_all_v_over_blocks_and_resets_its_lanes)
{
    /* one block on a lane signal; K = 2; L not a multiple of P; B < P;
     * K = 2 at P = 4; lanes with no rows (K = 16 > VC_MAX) */
    static const struct {
        int P, cores, stride;
    } c[] = {{2, 1, 2}, {2, 4, 4}, {2, 5, 4}, {4, 3, 3}, {4, 9, 8}, {3, 48, 48}};
    P = c[_i].P;
    vc_cores = c[_i].cores;
    vc_stride = c[_i].stride;
    vc_out = pl_tensor_new(PL_SHAPE(P, P * VC_MAX, V_COLS), PL_FP32, "out");
    vc_rc_out = pl_tensor_new(PL_SHAPE(P, P + 1), PL_INT32, "recv_counts");
    run_on_p(vc_host);
    for (int me = 0; me < P; me++) {
        for (int s = 0; s < P; s++) {
            int want = vc_count(s, me) < VC_MAX ? vc_count(s, me) : VC_MAX;
            ck_assert_msg(pl_tensor_get(vc_rc_out, me * (P + 1) + s) == want,
                          "P=%d L=%d: rank %d's recv_counts[%d] = %g, expected %d", P, vc_cores, me,
                          s, pl_tensor_get(vc_rc_out, me * (P + 1) + s), want);
            for (int k = 0; k < VC_MAX; k++)
                for (int j = 0; j < V_COLS; j++) {
                    double got = pl_tensor_get(
                        vc_out, ((int64_t)me * P * VC_MAX + s * VC_MAX + k) * V_COLS + j);
                    double expect = k < want ? s * 1000 + me * 10 + k + j * 0.5 : 0;
                    ck_assert_msg(got == expect,
                                  "P=%d L=%d: rank %d block %d row %d col %d = %g, not %g", P,
                                  vc_cores, me, s, k, j, got, expect);
                }
        }
        ck_assert_msg(pl_tensor_get(vc_rc_out, me * (P + 1) + P) == 0,
                      "P=%d L=%d: rank %d's lanes do not read zero after the calls", P, vc_cores,
                      me);
    }
    pl_tensor_free(&vc_out);
    pl_tensor_free(&vc_rc_out);
}
END_TEST

/* Issue 51, class 2: with the send counts in a window buffer allocated by
 * bytes (no dtype), --timing-only dropped their writes, so every block
 * moved whole and the trace lacked the counts' reads: at P = 3 the run
 * moved more and took longer than with data.  A view that holds INT32
 * keeps the buffer's values now: the time and bytes are the data run's. */
START_TEST(timing_only_all_to_all_v_moves_what_the_data_run_moves)
{
    static const int cores[] = {1, 4};
    P = 3;
    vc_cores = cores[_i];
    vc_stride = cores[_i];
    pld_run_stats st[2];
    for (int timed = 0; timed < 2; timed++) {
        /* SimGrid runs once a process: each run in a child of its own */
        int fd[2];
        ck_assert_int_eq(pipe(fd), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            vc_out = pl_tensor_new(PL_SHAPE(P, P * VC_MAX, V_COLS), PL_FP32, "out");
            vc_rc_out = pl_tensor_new(PL_SHAPE(P, P + 1), PL_INT32, "recv_counts");
            pld_config cfg;
            pld_config_init(&cfg);
            cfg.summary = 0;
            cfg.no_data = cfg.timing_only = timed;
            pld_run_stats mine = {0};
            if (pld_config_set_devices(&cfg, "0-2") == 0 && pld_run(&cfg, vc_host, NULL) == 0)
                pld_last_run_stats(&mine);
            _exit(write(fd[1], &mine, sizeof mine) == (ssize_t)sizeof mine ? 0 : 1);
        }
        close(fd[1]);
        ck_assert_int_eq(read(fd[0], &st[timed], sizeof st[timed]), (ssize_t)sizeof st[timed]);
        close(fd[0]);
        waitpid(pid, NULL, 0);
        ck_assert_msg(st[timed].time_s > 0, "the %s run failed", timed ? "timing-only" : "data");
    }
    ck_assert_msg(st[1].bytes_moved == st[0].bytes_moved && st[1].time_s == st[0].time_s,
                  "core_num %d: timing-only %llu B in %.3f us, with data %llu B in %.3f us",
                  vc_cores, (unsigned long long)st[1].bytes_moved, st[1].time_s * 1e6,
                  (unsigned long long)st[0].bytes_moved, st[0].time_s * 1e6);
}
END_TEST

/* Under --no-data the counts in a window are not kept, so every block
 * moves whole: the run says so, once, at the call (issue 51, class 2). */
START_TEST(no_data_all_to_all_v_says_its_counts_are_not_kept)
{
    P = 3;
    vc_cores = vc_stride = 1;
    vc_no_collect = 1;
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.no_data = 1;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0-2"), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, vc_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(count_lines_with(err, "warning"), 1);
    ck_assert_contains(err, "check_collectives.c:");
    ck_assert_contains(err, ": pld_tensor_all_to_all_v: warning: --no-data keeps no send_counts "
                            "('cnt' is in a window), so every block moves whole (5 rows) where the "
                            "data run moves its count; --timing-only keeps them");
    free(err);
}
END_TEST

/* stride < B is refused on the host, before anything is dispatched */
START_TEST(core_num_all_to_all_v_refuses_a_signal_narrower_than_its_blocks)
{
    P = 2;
    vc_cores = 5;
    vc_stride = 3;
    vc_out = pl_tensor_new(PL_SHAPE(P, P * VC_MAX, V_COLS), PL_FP32, "out");
    vc_rc_out = pl_tensor_new(PL_SHAPE(P, P + 1), PL_INT32, "recv_counts");
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, vc_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_int_eq(count_error_lines(err), 1);
    ck_assert_contains(err, ": host: pld_tensor_all_to_all_v: core_num 5 needs an INT32 signal of "
                            "shape [2, stride] with stride >= 4 (one column per block: core_num 5 "
                            "launches B = 4 blocks); got 'lanes' [2, 3] INT32");
    free(err);
    pl_tensor_free(&vc_out);
    pl_tensor_free(&vc_rc_out);
}
END_TEST

/* ---- host builtins: the collectives called by the host orchestrator ---- */

#define H_COLS 64

struct h_args {
    pl_tensor x, y;         /* this rank's rows of the host tensors */
    pld_dtensor data, rows; /* [1, H_COLS] and [P, H_COLS] windows */
    int phase;              /* 0: publish x into data; 1: copy data and rows out */
};

static void h_kernel(const struct h_args *a)
{
    if (a->phase == 0) {
        pl_store(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, H_COLS)), PL_IDX(0, 0), a->data);
        return;
    }
    pl_store(pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, H_COLS)), PL_IDX(0, 0), a->y);
    pl_store(pl_load(a->rows, PL_IDX(0, 0), PL_SHAPE(P, H_COLS)), PL_IDX(1, 0), a->y);
}

static void h_device(const struct h_args *a)
{
    pl_incore(h_kernel, a);
}

static pl_tensor h_x, h_y;

static void h_host(const void *unused)
{
    (void)unused;
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, H_COLS), PL_FP32, .name = "data");
    pld_buffer rows = pld_alloc_window_buffer(PL_SHAPE(P, H_COLS), PL_FP32, .name = "rows");
    pld_buffer s = pld_alloc_window_buffer(64, .name = "sig");
    pld_dtensor data = pld_window(d, PL_SHAPE(1, H_COLS), PL_FP32);
    pld_dtensor sig = pld_window(s, PL_SHAPE(P, 1), PL_INT32);
    struct h_args a = {.data = data, .rows = pld_window(rows, PL_SHAPE(P, H_COLS), PL_FP32)};
    for (int r = 0; r < P; r++) {
        a.x = pl_at(h_x, r);
        pld_dispatch(r, h_device, a);
    }
    /* called here, on the host: each is a builtin kernel on every rank */
    pld_tensor_allgather(data, a.rows, sig); /* rows[s] = rank s's x */
    pld_tensor_allreduce(data, sig, .op = PLD_REDUCE_MAX);
    pld_tensor_barrier(sig);
    a.phase = 1;
    for (int r = 0; r < P; r++) {
        a.y = pl_at(h_y, r);
        pld_dispatch(r, h_device, a);
    }
}

START_TEST(host_builtins_run_the_collective_on_every_rank)
{
    P = 2 + 2 * _i; /* 2, 4, 6 */
    h_x = pl_tensor_new(PL_SHAPE(P, 1, H_COLS), PL_FP32, "x");
    h_y = pl_tensor_new(PL_SHAPE(P, 1 + P, H_COLS), PL_FP32, "y");
    for (int64_t i = 0; i < P * H_COLS; i++)
        pl_tensor_set(h_x, i, (double)((i * 7919) % 1000) - 500);
    run_on_p(h_host);
    for (int r = 0; r < P; r++)
        for (int j = 0; j < H_COLS; j++) {
            double max = -1e9;
            for (int s = 0; s < P; s++) {
                double xs = pl_tensor_get(h_x, s * H_COLS + j);
                max = xs > max ? xs : max;
                ck_assert(pl_tensor_get(h_y, ((int64_t)r * (1 + P) + 1 + s) * H_COLS + j) == xs);
            }
            ck_assert_msg(pl_tensor_get(h_y, (int64_t)r * (1 + P) * H_COLS + j) == max,
                          "P=%d rank %d col %d: max %g, got %g", P, r, j, max,
                          pl_tensor_get(h_y, (int64_t)r * (1 + P) * H_COLS + j));
        }
    pl_tensor_free(&h_x);
    pl_tensor_free(&h_y);
}
END_TEST

/* ---- the host ring allreduce: upstream's own protocol and constraints ---- */

#define R_COLS 120 /* divisible by 2, 3, 4 and 5 */

static int ring_cols = R_COLS, ring_sig_rows; /* what the host passes: bad on purpose in errors */
static pl_tensor r_x, r_y;

struct r_args {
    pl_tensor x, y;
    pld_dtensor data;
    int phase;
};

static void r_kernel(const struct r_args *a)
{
    if (a->phase == 0)
        pl_store(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, ring_cols)), PL_IDX(0, 0), a->data);
    else
        pl_store(pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, ring_cols)), PL_IDX(0, 0), a->y);
}

static void r_device(const struct r_args *a)
{
    pl_incore(r_kernel, a);
}

static void r_host(const void *unused)
{
    (void)unused;
    /* whole cache lines, so that the two buffers share none */
    pld_buffer d = pld_alloc_window_buffer((ring_cols * 4 + 63) / 64 * 64, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(2 * P - 1, P), PL_INT32, .name = "ring");
    pld_dtensor data = pld_window(d, PL_SHAPE(1, ring_cols), PL_FP32);
    pld_dtensor sig = pld_window(s, PL_SHAPE(ring_sig_rows, P), PL_INT32);
    struct r_args a = {.data = data};
    for (int r = 0; r < P; r++) {
        a.x = pl_at(r_x, r);
        pld_dispatch(r, r_device, a);
    }
    /* twice on one signal: the epilogue leaves it zero for the second */
    pld_tensor_allreduce(data, sig, .mode = PLD_ALLREDUCE_RING);
    pld_tensor_allreduce(data, sig, .mode = PLD_ALLREDUCE_RING);
    a.phase = 1;
    for (int r = 0; r < P; r++) {
        a.y = pl_at(r_y, r);
        pld_dispatch(r, r_device, a);
    }
}

START_TEST(the_host_ring_allreduce_sums_and_leaves_its_signal_zero)
{
    P = 2 + _i; /* 2..5 */
    ring_cols = R_COLS;
    ring_sig_rows = 2 * P - 1;
    r_x = pl_tensor_new(PL_SHAPE(P, 1, R_COLS), PL_FP32, "x");
    r_y = pl_tensor_new(PL_SHAPE(P, 1, R_COLS), PL_FP32, "y");
    for (int64_t i = 0; i < P * R_COLS; i++)
        pl_tensor_set(r_x, i, (double)((i * 7919) % 100) - 50);
    run_on_p(r_host);
    for (int j = 0; j < R_COLS; j++) {
        double sum = 0;
        for (int s = 0; s < P; s++)
            sum += pl_tensor_get(r_x, s * R_COLS + j);
        for (int r = 0; r < P; r++)
            ck_assert_msg(pl_tensor_get(r_y, r * R_COLS + j) == P * sum,
                          "P=%d rank %d col %d: got %g, expected %g (twice reduced)", P, r, j,
                          pl_tensor_get(r_y, r * R_COLS + j), P * sum);
    }
    pl_tensor_free(&r_x);
    pl_tensor_free(&r_y);
}
END_TEST

START_TEST(the_host_ring_allreduce_refuses_what_upstream_refuses)
{
    static const struct {
        int P, cols, rows;
        const char *text;
    } c[] = {
        {3, 64, 5, "target 'data' has 64 elements, not divisible by the 3 ranks"},
        {17, 68, 33, "the host ring allreduce supports at most 16 ranks; this run has 17"},
        {4, 64, 6, "needs an INT32 signal of shape [2(P-1)+1, P] = [7, 4]"},
    };
    P = c[_i].P;
    ring_cols = c[_i].cols;
    ring_sig_rows = c[_i].rows;
    r_x = pl_tensor_new(PL_SHAPE(P, 1, ring_cols), PL_FP32, "x");
    r_y = pl_tensor_new(PL_SHAPE(P, 1, ring_cols), PL_FP32, "y");
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    char list[16];
    snprintf(list, sizeof list, "0-%d", P - 1);
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, r_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_contains(err, ": host: pld_tensor_allreduce: ");
    ck_assert_contains(err, c[_i].text);
    free(err);
    pl_tensor_free(&r_x);
    pl_tensor_free(&r_y);
}
END_TEST

/* ---- core_num: the host allreduce over several cores per rank ---- */

static int c_cores, c_elems, c_stride;
static pl_tensor c_x, c_y, c_sig_out;

struct c_args {
    pl_tensor x, y, sig_out;
    pld_dtensor data, sig;
    int phase;
};

static void c_kernel(const struct c_args *a)
{
    if (a->phase == 0) {
        pl_store(pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, c_elems)), PL_IDX(0, 0), a->data);
        return;
    }
    pl_store(pl_load(a->data, PL_IDX(0, 0), PL_SHAPE(1, c_elems)), PL_IDX(0, 0), a->y);
    for (int p = 0; p < P; p++)
        for (int k = 0; k < c_stride; k++)
            pl_tensor_set(a->sig_out, p * c_stride + k,
                          pl_tile_get(pl_load(a->sig, PL_IDX(p, k), PL_SHAPE(1, 1)), 0));
}

static void c_device(const struct c_args *a)
{
    pl_incore(c_kernel, a);
}

static void c_host(const void *unused)
{
    (void)unused;
    pld_buffer d = pld_alloc_window_buffer(((int64_t)c_elems * 4 + 63) / 64 * 64, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(P, c_stride), PL_INT32, .name = "lanes");
    struct c_args a = {.data = pld_window(d, PL_SHAPE(1, c_elems), PL_FP32),
                       .sig = pld_window(s, PL_SHAPE(P, c_stride), PL_INT32)};
    for (int r = 0; r < P; r++) {
        a.x = pl_at(c_x, r);
        pld_dispatch(r, c_device, a);
    }
    /* twice on one signal: every lane's epilogue must leave its column zero */
    pld_tensor_allreduce(a.data, a.sig, .core_num = c_cores);
    pld_tensor_allreduce(a.data, a.sig, .core_num = c_cores);
    a.phase = 1;
    for (int r = 0; r < P; r++) {
        a.y = pl_at(c_y, r);
        a.sig_out = pl_at(c_sig_out, r);
        pld_dispatch(r, c_device, a);
    }
}

START_TEST(core_num_splits_the_allreduce_and_clears_every_lane)
{
    /* upstream's cases (an idle lane, a wide stride, several chunks) and more */
    static const struct {
        int P, cores, elems, stride;
    } c[] = {{2, 2, 1, 2}, {2, 4, 4127, 6}, {4, 2, 1041, 2}, {3, 8, 20000, 8}, {4, 48, 12345, 48}};
    P = c[_i].P;
    c_cores = c[_i].cores;
    c_elems = c[_i].elems;
    c_stride = c[_i].stride;
    c_x = pl_tensor_new(PL_SHAPE(P, 1, c_elems), PL_FP32, "x");
    c_y = pl_tensor_new(PL_SHAPE(P, 1, c_elems), PL_FP32, "y");
    c_sig_out = pl_tensor_new(PL_SHAPE(P, P, c_stride), PL_INT32, "sig_out");
    for (int64_t i = 0; i < (int64_t)P * c_elems; i++)
        pl_tensor_set(c_x, i, (double)((i * 7919) % 100) - 50);
    run_on_p(c_host);
    for (int j = 0; j < c_elems; j++) {
        double sum = 0;
        for (int s = 0; s < P; s++)
            sum += pl_tensor_get(c_x, (int64_t)s * c_elems + j);
        for (int r = 0; r < P; r++)
            ck_assert_msg(pl_tensor_get(c_y, (int64_t)r * c_elems + j) == P * sum,
                          "P=%d cores=%d rank %d element %d: got %g, expected %g", P, c_cores, r, j,
                          pl_tensor_get(c_y, (int64_t)r * c_elems + j), P * sum);
    }
    for (int64_t i = 0; i < (int64_t)P * P * c_stride; i++)
        ck_assert_msg(pl_tensor_get(c_sig_out, i) == 0, "signal cell %lld is %g after the calls",
                      (long long)i, pl_tensor_get(c_sig_out, i));
    pl_tensor_free(&c_x);
    pl_tensor_free(&c_y);
    pl_tensor_free(&c_sig_out);
}
END_TEST

START_TEST(core_num_refuses_what_upstream_refuses)
{
    static const struct {
        int cores, stride;
        const char *text;
    } c[] = {
        {49, 49, ".core_num 49 exceeds the 48 vector cores (aiv_cores) of dev0"},
        {4, 2, "core_num 4 needs an INT32 signal of shape [2, stride] with stride >= 4"},
    };
    P = 2;
    c_cores = c[_i].cores;
    c_elems = 64;
    c_stride = c[_i].stride;
    c_x = pl_tensor_new(PL_SHAPE(P, 1, c_elems), PL_FP32, "x");
    c_y = pl_tensor_new(PL_SHAPE(P, 1, c_elems), PL_FP32, "y");
    c_sig_out = pl_tensor_new(PL_SHAPE(P, P, c_stride), PL_INT32, "sig_out");
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, c_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_contains(err, ": host: pld_tensor_allreduce: ");
    ck_assert_contains(err, c[_i].text);
    free(err);
    pl_tensor_free(&c_x);
    pl_tensor_free(&c_y);
    pl_tensor_free(&c_sig_out);
}
END_TEST

/* ---- tile-level put/get: staged through the caller's tiles ---- */

#define T_ROWS 4
#define T_COLS 64

struct t_args {
    pld_dtensor src, dst, back, sig;
    int bad;      /* elements of dst and back that are not what the peer sent */
    double dt[6]; /* elapsed: tensor put, tile put, tensor pipelined, tile pipelined, get x2 */
};

static void t_kernel(struct t_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(a->src)), peer = 1 - me;
    for (int r = 0; r < T_ROWS; r++)
        for (int j = 0; j < T_COLS; j++)
            pl_write(a->src, PL_IDX(r, j), me * 1000 + r * 100 + j);
    pld_tensor_barrier(a->sig); /* the gets below read what the peer just wrote */
    pl_tile stage = pl_load(a->src, PL_IDX(0, 0), PL_SHAPE(1, 16));
    pl_tile stage2 = pl_load(a->src, PL_IDX(0, 16), PL_SHAPE(1, 16));
    double t = pld_time();
    pld_tensor_put(a->dst, .peer = peer, .src = a->src, .chunk_rows = 1, .chunk_cols = 16);
    a->dt[0] = pld_time() - t;
    t = pld_time();
    pld_tile_put(a->dst, .peer = peer, .src = a->src, .stage = stage);
    a->dt[1] = pld_time() - t;
    t = pld_time();
    pld_tensor_put(a->dst, .peer = peer, .src = a->src, .chunk_rows = 1, .chunk_cols = 16,
                   .pipeline = 1);
    a->dt[2] = pld_time() - t;
    t = pld_time();
    pld_tile_put(a->dst, .peer = peer, .src = a->src, .stage = stage, .stage2 = stage2);
    a->dt[3] = pld_time() - t;
    t = pld_time();
    pld_tensor_get(a->back, .peer = peer, .src = a->src, .dst_offsets = PL_IDX(0, 0),
                   .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(2, T_COLS), .chunk_rows = 1,
                   .chunk_cols = 16);
    a->dt[4] = pld_time() - t;
    t = pld_time();
    pld_tile_get(a->back, .peer = peer, .src = a->src, .stage = stage, .dst_offsets = PL_IDX(2, 0),
                 .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(2, T_COLS));
    a->dt[5] = pld_time() - t;
    pld_tensor_barrier(a->sig); /* the peer's puts into my dst are done */
    for (int r = 0; r < T_ROWS; r++)
        for (int j = 0; j < T_COLS; j++) {
            a->bad += pl_read(a->dst, PL_IDX(r, j)) != peer * 1000 + r * 100 + j;
            /* back: rows 1..2 of the peer's src, got twice */
            a->bad += pl_read(a->back, PL_IDX(r, j)) != peer * 1000 + (1 + r % 2) * 100 + j;
        }
}

static struct t_args t_out[2];

static void t_device(struct t_args *const *a)
{
    pl_incore(t_kernel, *a);
}

static void t_host(const void *unused)
{
    (void)unused;
    pl_shape sh = PL_SHAPE(T_ROWS, T_COLS);
    pld_buffer s = pld_alloc_window_buffer(sh, PL_FP32, .name = "src");
    pld_buffer d = pld_alloc_window_buffer(sh, PL_FP32, .name = "dst");
    pld_buffer b = pld_alloc_window_buffer(sh, PL_FP32, .name = "back");
    pld_buffer g = pld_alloc_window_buffer(64, .name = "sig");
    for (int r = 0; r < 2; r++) {
        t_out[r] = (struct t_args){.src = pld_window(s, sh, PL_FP32),
                                   .dst = pld_window(d, sh, PL_FP32),
                                   .back = pld_window(b, sh, PL_FP32),
                                   .sig = pld_window(g, PL_SHAPE(2, 1), PL_INT32)};
        struct t_args *p = &t_out[r];
        pld_dispatch(r, t_device, p);
    }
}

/* Staged through the caller's tiles, a put or get moves the same data at the
 * same price as the tensor-level form with the stage's chunks. */
START_TEST(tile_put_and_get_cost_what_the_tensor_forms_with_those_chunks_cost)
{
    P = 2;
    run_on_p(t_host);
    for (int r = 0; r < 2; r++) {
        const double *dt = t_out[r].dt;
        ck_assert(dt[0] > 0 && dt[2] > 0 && dt[4] > 0);
        /* equal up to the rounding of the absolute times they are read from */
        ck_assert_msg(fabs(dt[1] - dt[0]) < 1e-15, "rank %d: tile put %.17g, tensor put %.17g", r,
                      dt[1], dt[0]);
        ck_assert_msg(fabs(dt[3] - dt[2]) < 1e-15,
                      "rank %d: pipelined tile put %.17g, tensor %.17g", r, dt[3], dt[2]);
        ck_assert_msg(fabs(dt[5] - dt[4]) < 1e-15, "rank %d: tile get %.17g, tensor get %.17g", r,
                      dt[5], dt[4]);
        ck_assert(dt[2] < dt[0]); /* double buffering overlaps the two legs */
        ck_assert_int_eq(t_out[r].bad, 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("collectives");
    TCase *tc = tcase_create("property");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, builtins_match_the_serial_reference, 0, 15); /* P = 2..16 */
    suite_add_tcase(s, tc);
    TCase *reuse = tcase_create("reuse");
    tcase_set_timeout(reuse, 60);
    tcase_add_loop_test(reuse, back_to_back_calls_reuse_one_signal, 0, 2);
    suite_add_tcase(s, reuse);
    TCase *v = tcase_create("all_to_all_v");
    tcase_set_timeout(v, 60);
    tcase_add_loop_test(v, all_to_all_v_delivers_blocks_and_clamped_counts, 0, 7); /* P = 2..8 */
    tcase_add_loop_test(v, core_num_spreads_the_all_to_all_v_over_blocks_and_resets_its_lanes, 0,
                        6);
    tcase_add_test(v, core_num_all_to_all_v_refuses_a_signal_narrower_than_its_blocks);
    tcase_add_loop_test(v, timing_only_all_to_all_v_moves_what_the_data_run_moves, 0, 2);
    tcase_add_test(v, no_data_all_to_all_v_says_its_counts_are_not_kept);
    tcase_add_loop_test(v, host_builtins_run_the_collective_on_every_rank, 0, 3);
    tcase_add_loop_test(v, the_host_ring_allreduce_sums_and_leaves_its_signal_zero, 0, 4);
    tcase_add_loop_test(v, the_host_ring_allreduce_refuses_what_upstream_refuses, 0, 3);
    tcase_add_loop_test(v, core_num_splits_the_allreduce_and_clears_every_lane, 0, 5);
    tcase_add_loop_test(v, core_num_refuses_what_upstream_refuses, 0, 2);
    tcase_add_test(v, tile_put_and_get_cost_what_the_tensor_forms_with_those_chunks_cost);
    suite_add_tcase(s, v);
    return run_suite(s);
}
