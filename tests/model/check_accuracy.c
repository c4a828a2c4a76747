/* check_accuracy.c: simulated times of every builtin, and of the
 * hand-rolled allreduce steps, against closed forms derived for our exact
 * protocol (docs/models.md, "Closed forms"), on contention-free topologies:
 * a full mesh (every pair has its own duplex link) and, for the ring
 * allreduce, a ring.  The closed forms use the a2a3 device numbers and the
 * link numbers of the spec; the tolerance is the 0.5 %, though the
 * match is exact to rounding.  bench/simgrid-floor, which makes the ring
 * allreduce's SimGrid activities without pldsim, must match pldsim exactly.
 *
 * Symbols (docs/models.md): a = link latency, B = link bandwidth, h and H =
 * hbm_lat and hbm_bw, V = vector_rate, sg = signal_lat, pl = poll_lat,
 * s = signal_bytes, lp and Bp = pull_lat and pull_bw, ls and Bs =
 * push_lat and push_bw (a rate of 0 is no limit).  Unit costs: a notify
 * N = sg + a + s/B; a notify to oneself Ns = sg + h + 2s/H; a wait that
 * needs no waiting W = pl; a GM access G(b) = h + b/H; a pull of b bytes
 * (remote_load, a get's chunk) Xl(b) = lp + a + b/min(B, Bp); a push
 * (remote_store, a put's chunk) Xs(b) = ls + a + b/min(B, Bs); a vector op
 * on e elements e/V.  A kernel's collective moves chunks of 16 KiB; a
 * builtin's kernel (the host form) tiles of 256 elements, 1 KiB of FP32. */
#include "checktools.h"
#include "../../sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BW         56e9
#define LAT        1e-6
#define CHUNK      16384.0 /* bytes: a kernel's collective moves chunks of 16 KiB */
#define HOST_CHUNK 1024.0  /* bytes: a builtin's kernel, tiles of 256 FP32 elements */

static double chunk_bytes = CHUNK; /* the chunk of the closed form being computed */

static struct pld__device D; /* a2a3's device numbers */

static double G(double b)
{
    return D.hbm_lat + b / D.hbm_bw;
}
/* The bandwidth a mover gets on a quiet route: the route's, or its own
 * rate when that is slower. */
static double eff_bw(double rate)
{
    return rate > 0 && rate < BW ? rate : BW;
}
static double Xl(double b)
{
    return D.pull_lat + LAT + b / eff_bw(D.pull_bw);
}
static double Xs(double b)
{
    return D.push_lat + LAT + b / eff_bw(D.push_bw);
}
static double N(void)
{
    return D.signal_lat + LAT + D.signal_bytes / BW;
}
static double Ns(void)
{
    return D.signal_lat + D.hbm_lat + 2 * D.signal_bytes / D.hbm_bw;
}
static double Vop(double bytes)
{
    return bytes / 4 / D.vector_rate; /* FP32 elements */
}
/* A credit barrier entered by every rank at once: P-1 notifies, then P-1
 * waits whose credits have all arrived (one poll each). */
static double barrier(int P)
{
    return (P - 1) * (N() + D.poll_lat);
}

/* Sums f over the chunks of n bytes. */
static double over_chunks(double n, double (*f)(double c, int P), int P)
{
    double t = 0, ch = chunk_bytes;
    for (double off = 0; off < n; off += ch)
        t += f(n - off < ch ? n - off : ch, P);
    return t;
}

static double mesh_chunk(double c, int P)
{
    return G(c) + (P - 1) * (Xl(c) + Vop(c)) + barrier(P) + G(c);
}
static double get_chunk(double c, int P)
{
    (void)P;
    return Xl(c) + G(c);
}
static double put_chunk(double c, int P)
{
    (void)P;
    return G(c) + Xs(c);
}
static double put_self_chunk(double c, int P)
{
    (void)P;
    return G(c) + G(2 * c); /* a put to oneself is a local copy */
}

enum kind { AR_MESH, AR_RING, BCAST, AGATHER, RSCATTER, A2A, NKINDS };
static const char *const kind_name[] = {"allreduce/mesh", "allreduce/ring", "broadcast",
                                        "allgather",      "reduce_scatter", "all_to_all"};

/* n: bytes of the whole vector (allreduce, broadcast) or of one row of the
 * [P, S] builtins. */
static double closed_form(enum kind k, int P, double n)
{
    double t = 0;
    switch (k) {
    case AR_MESH:
        t = barrier(P) + over_chunks(n, mesh_chunk, P);
        return t + (P - 1) * Ns();
    case AR_RING: {
        double c = n / P; /* every chunk is n/P: n divides by P here */
        for (int r = 0; r < 2 * (P - 1); r++) {
            t += 2 * N() + D.poll_lat + (r > 0 ? D.poll_lat : 0);
            for (double off = 0; off < c; off += chunk_bytes) {
                double b = c - off < chunk_bytes ? c - off : chunk_bytes;
                t += Xl(b) + G(b) + (r < P - 1 ? G(b) + Vop(b) : 0);
            }
        }
        return t + D.poll_lat + 2 * 2 * (P - 1) * Ns();
    }
    case BCAST: /* a rank that is not the root: the slowest */
        return barrier(P) + over_chunks(n, get_chunk, P) + (P - 1) * Ns();
    case AGATHER:
    case A2A:
        t = (P - 1) * over_chunks(n, put_chunk, P) + over_chunks(n, put_self_chunk, P);
        return t + barrier(P) + (P - 1) * Ns();
    case RSCATTER:
        t = barrier(P);
        for (double off = 0; off < n; off += chunk_bytes) {
            double c = n - off < chunk_bytes ? n - off : chunk_bytes;
            t += G(c) + (P - 1) * (Xl(c) + Vop(c)) + barrier(P) + G(c);
        }
        return t + (P - 1) * Ns();
    default:
        return 0;
    }
}

/* ---- the measured side ---- */

static enum kind K;
static int P;
static int64_t NBYTES;
static double start[64], end[64];

struct dev_args {
    int rank;
    pld_dtensor target, input, sig, ring_sig;
};

static void kernel(const struct dev_args *a)
{
    double t0 = pld_time();
    switch (K) {
    case AR_MESH:
        pld_tensor_allreduce(a->target, a->sig, .mode = PLD_ALLREDUCE_MESH);
        break;
    case AR_RING:
        pld_tensor_allreduce(a->target, a->ring_sig, .mode = PLD_ALLREDUCE_RING);
        break;
    case BCAST:
        pld_tensor_broadcast(a->target, a->sig, .root = 0);
        break;
    case AGATHER:
        pld_tensor_allgather(pl_at(a->input, 0), a->target, a->sig);
        break;
    case RSCATTER:
        pld_tensor_reduce_scatter(a->target, a->sig);
        break;
    case A2A:
        pld_tensor_all_to_all(a->input, a->target, a->sig);
        break;
    case NKINDS:
        break;
    }
    start[a->rank] = t0;
    end[a->rank] = pld_time();
}

static void per_device(const struct dev_args *a)
{
    pl_incore(kernel, a);
}

static void host(const void *unused)
{
    (void)unused;
    int64_t e = NBYTES / 4, rows = K >= AGATHER ? P : 1;
    pld_buffer t = pld_alloc_window_buffer(PL_SHAPE(rows, e), PL_FP32, .name = "target");
    pld_buffer in = pld_alloc_window_buffer(PL_SHAPE(rows, e), PL_FP32, .name = "input");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(P, 1), PL_INT32, .name = "signal");
    pld_buffer rs = pld_alloc_window_buffer(PL_SHAPE(2 * (P - 1), P), PL_INT32, .name = "ring");
    for (int r = 0; r < P; r++) {
        struct dev_args a = {r, pld_window(t, PL_SHAPE(rows, e), PL_FP32),
                             pld_window(in, PL_SHAPE(rows, e), PL_FP32),
                             pld_window(s, PL_SHAPE(P, 1), PL_INT32),
                             pld_window(rs, PL_SHAPE(2 * (P - 1), P), PL_INT32)};
        pld_dispatch(r, per_device, a);
    }
}

/* P and the largest size: the matrix stops where a case would take more
 * than about a second to simulate (pldsim-perf covers larger sweeps). */
static const struct {
    int P;
    int64_t max_bytes;
} grid[] = {{2, 64 << 20}, {4, 16 << 20}, {8, 4 << 20}, {16, 1 << 20}, {64, 64 << 10}};

#define MAX_CASES 400
static struct {
    enum kind k;
    int P;
    int64_t n;
} cases[MAX_CASES];
static int ncases;

static void plan(void)
{
    for (int k = 0; k < NKINDS; k++)
        for (size_t g = 0; g < sizeof grid / sizeof grid[0]; g++)
            for (int64_t n = 4096; n <= grid[g].max_bytes; n *= 4) {
                /* the [P, S] builtins' n is one row: keep P rows within the cap */
                int64_t bytes = k >= AGATHER ? n / grid[g].P : n;
                if (bytes < 256)
                    continue;
                cases[ncases].k = (enum kind)k;
                cases[ncases].P = grid[g].P;
                cases[ncases++].n = bytes;
            }
}

START_TEST(builtin_matches_its_closed_form)
{
    K = cases[_i].k;
    P = cases[_i].P;
    NBYTES = cases[_i].n;
    char spec[128], list[16];
    snprintf(spec, sizeof spec, "%s:%d,bw=56GBps,lat=1us,dispatch_lat=0",
             K == AR_RING ? "ring" : "mesh", P);
    snprintf(list, sizeof list, "0-%d", P - 1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.no_data = 1;
    cfg.topology = spec;
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    ck_assert_int_eq(pld_run(&cfg, host, NULL), 0);
    double t0 = start[0], t1 = 0;
    for (int r = 0; r < P; r++) {
        t0 = start[r] < t0 ? start[r] : t0;
        t1 = end[r] > t1 ? end[r] : t1;
        ck_assert_msg(start[r] == start[0], "ranks did not start together");
    }
    chunk_bytes = CHUNK;
    double want = closed_form(K, P, (double)NBYTES), got = t1 - t0;
    double rel = fabs(got - want) / want;
    printf("%-15s P=%-3d %10lld B  simulated %12.4f us  closed form %12.4f us  rel %.2e\n",
           kind_name[K], P, (long long)NBYTES, got * 1e6, want * 1e6, rel);
    ck_assert_msg(rel <= 0.005, "%s P=%d n=%lld: simulated %.9g s, closed form %.9g s (%.3f %%)",
                  kind_name[K], P, (long long)NBYTES, got, want, 100 * rel);
}
END_TEST

/* ---- the same builtins called by the host orchestrator ---- */

/* The host form dispatches the builtin's kernel to every rank: one launch,
 * then the kernel form's closed form in the builtin's 1 KiB tiles (its
 * kernel is upstream's template, not the compiler's lowering of the
 * kernel form, which moves 16 KiB chunks).  The host ring is upstream's own
 * protocol (src/collectives/allreduce_ring_host.c): a round barrier per
 * step on its own row, the last row a final barrier, then the epilogue's
 * self-notifies, (2P-1)(P-1) of them. */
enum { HOST_RING = NKINDS };

static double host_closed_form(int k, int P, double n)
{
    chunk_bytes = HOST_CHUNK;
    if (k != HOST_RING)
        return D.launch_lat + closed_form((enum kind)k, P, n);
    double t = D.launch_lat + (2 * (P - 1) + 1) * barrier(P), c = n / P;
    for (int s = 0; s < 2 * (P - 1); s++)
        for (double off = 0; off < c; off += HOST_CHUNK) {
            double b = c - off < HOST_CHUNK ? c - off : HOST_CHUNK;
            t += Xl(b) + G(b) + (s < P - 1 ? G(b) + Vop(b) : 0);
        }
    return t + (2 * P - 1) * (P - 1) * Ns();
}

static int HK;
static double after[64];

static void note_end(const int *rank)
{
    after[*rank] = pld_time(); /* this task starts when the builtin's has ended */
}

static void host_form(const void *unused)
{
    (void)unused;
    int64_t e = NBYTES / 4, rows = HK >= AGATHER && HK != HOST_RING ? P : 1;
    pld_buffer t = pld_alloc_window_buffer(PL_SHAPE(rows, e), PL_FP32, .name = "target");
    pld_buffer in = pld_alloc_window_buffer(PL_SHAPE(rows, e), PL_FP32, .name = "input");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(P, 1), PL_INT32, .name = "signal");
    pld_buffer rs = pld_alloc_window_buffer(PL_SHAPE(2 * P - 1, P), PL_INT32, .name = "ring");
    pld_dtensor tv = pld_window(t, PL_SHAPE(rows, e), PL_FP32);
    pld_dtensor iv = pld_window(in, PL_SHAPE(rows, e), PL_FP32);
    pld_dtensor sv = pld_window(s, PL_SHAPE(P, 1), PL_INT32);
    switch (HK) {
    case AR_MESH:
        pld_tensor_allreduce(tv, sv);
        break;
    case HOST_RING:
        pld_tensor_allreduce(tv, pld_window(rs, PL_SHAPE(2 * P - 1, P), PL_INT32),
                             .mode = PLD_ALLREDUCE_RING);
        break;
    case BCAST:
        pld_tensor_broadcast(tv, sv, .root = 0);
        break;
    case AGATHER:
        pld_tensor_allgather(pl_at(iv, 0), tv, sv);
        break;
    case RSCATTER:
        pld_tensor_reduce_scatter(tv, sv);
        break;
    case A2A:
        pld_tensor_all_to_all(iv, tv, sv);
        break;
    }
    for (int r = 0; r < P; r++)
        pld_dispatch(r, note_end, r);
}

static const int host_kinds[] = {AR_MESH, HOST_RING, BCAST, AGATHER, RSCATTER, A2A};

START_TEST(host_builtin_matches_its_closed_form)
{
    static const int ps[] = {2, 4, 8, 16};
    static const int64_t sizes[] = {4096, 262144};
    HK = host_kinds[_i / 8];
    P = ps[_i % 8 / 2];
    NBYTES = sizes[_i % 2];
    if (HK >= AGATHER && HK != HOST_RING)
        NBYTES /= P; /* one row of the [P, S] builtins */
    char spec[128], list[16];
    snprintf(spec, sizeof spec, "mesh:%d,bw=56GBps,lat=1us,dispatch_lat=0", P);
    snprintf(list, sizeof list, "0-%d", P - 1);
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.no_data = 1;
    cfg.topology = spec;
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    ck_assert_int_eq(pld_run(&cfg, host_form, NULL), 0);
    double got = 0;
    for (int r = 0; r < P; r++)
        got = after[r] > got ? after[r] : got;
    double want = host_closed_form(HK, P, (double)NBYTES), rel = fabs(got - want) / want;
    printf("host %-15s P=%-3d %10lld B  simulated %12.4f us  closed form %12.4f us  rel %.2e\n",
           HK == HOST_RING ? "allreduce/ring" : kind_name[HK], P, (long long)NBYTES, got * 1e6,
           want * 1e6, rel);
    ck_assert_msg(rel <= 0.005, "host form: simulated %.9g s, closed form %.9g s (%.3f %%)", got,
                  want, 100 * rel);
}
END_TEST

/* ---- core_num: the host mesh allreduce on K cores per rank ---- */

/* Every core takes n/K bytes and runs the mesh on them, in the builtin's
 * 1 KiB tiles, with a signal lane of its own; the K cores of a rank pull
 * from a peer at once, so each flow has B/K of the link, unless the core's
 * own pull rate is slower: X_K(c) = lp + a + c max(K/B, 1/Bp).  The
 * latency, GM and vector terms shrink with K; the bandwidth term stays
 * (P-1) n/B, the link limit. */
static double cores_closed_form(int P, double n, int K)
{
    double t = D.launch_lat + barrier(P), share = n / K;
    double per_byte = D.pull_bw > 0 && 1 / D.pull_bw > K / BW ? 1 / D.pull_bw : K / BW;
    for (double off = 0; off < share; off += HOST_CHUNK) {
        double c = share - off < HOST_CHUNK ? share - off : HOST_CHUNK;
        t += 2 * G(c) + (P - 1) * (D.pull_lat + LAT + c * per_byte + Vop(c)) + barrier(P);
    }
    return t + (P - 1) * Ns();
}

static int CK; /* cores of the next host_cores run */

static void host_cores(const void *unused)
{
    (void)unused;
    int64_t e = NBYTES / 4;
    pld_buffer t = pld_alloc_window_buffer(PL_SHAPE(1, e), PL_FP32, .name = "target");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(P, 64), PL_INT32, .name = "lanes");
    pld_tensor_allreduce(pld_window(t, PL_SHAPE(1, e), PL_FP32),
                         pld_window(s, PL_SHAPE(P, 64), PL_INT32), .core_num = CK);
    for (int r = 0; r < P; r++)
        pld_dispatch(r, note_end, r);
}

START_TEST(core_num_time_shrinks_to_the_link_limit)
{
    static const int ks[] = {1, 2, 4, 8, 16};
    P = 2 + 2 * (_i / 2); /* 2, 4 */
    NBYTES = _i % 2 ? 1 << 20 : 256 << 10; /* 1 KiB tiles: 1024 per rank at 1 MiB */
    double prev = 0;
    char *path = write_temp(".txt", "");
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        CK = ks[j];
        /* each run is its own process: SimGrid runs once per process */
        fflush(stdout);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            char spec[128], list[16];
            snprintf(spec, sizeof spec, "mesh:%d,bw=56GBps,lat=1us,dispatch_lat=0", P);
            snprintf(list, sizeof list, "0-%d", P - 1);
            pld_config cfg;
            pld_config_init(&cfg);
            cfg.summary = 0;
            cfg.no_data = 1;
            cfg.topology = spec;
            if (pld_config_set_devices(&cfg, list) || pld_run(&cfg, host_cores, NULL))
                _exit(2);
            double got = 0;
            for (int r = 0; r < P; r++)
                got = after[r] > got ? after[r] : got;
            FILE *f = fopen(path, "w");
            fprintf(f, "%.17g\n", got);
            fclose(f);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "K=%d: the run failed (status %d, signal %d)", CK,
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        char *out = slurp(path);
        double got = strtod(out, NULL), want = cores_closed_form(P, (double)NBYTES, CK);
        free(out);
        double rel = fabs(got - want) / want, floor = (P - 1) * (double)NBYTES / BW;
        printf("cores K=%-3d P=%d %9lld B  simulated %10.4f us  closed form %10.4f us  rel %.2e  "
               "link limit %.4f us\n",
               CK, P, (long long)NBYTES, got * 1e6, want * 1e6, rel, floor * 1e6);
        ck_assert_msg(rel <= 0.005, "K=%d: simulated %.9g s, closed form %.9g s", CK, got, want);
        ck_assert_msg(got > floor, "K=%d: %.9g s is under the link limit %.9g s", CK, got, floor);
        if (j > 0)
            ck_assert_msg(got < prev, "K=%d is not faster than K=%d", CK, ks[j - 1]);
        prev = got;
    }
    unlink(path);
    free(path);
}
END_TEST

/* ---- the hand-rolled steps, run as programs ---- */

/* Closed form of a whole tutorial run (dispatch_lat = 0: every rank starts
 * its kernel at once, after one launch). */
static double step_closed_form(const char *step, int P)
{
    double L = D.launch_lat, g = G(256), w = N() + D.poll_lat, c = 256.0 / P;
    if (strcmp(step, "08_allreduce_mesh") == 0) /* stage, barrier, P-1 pulls, store */
        return L + 4 * g + (P - 1) * w + (P - 1) * (Xl(256) + Vop(256));
    if (strcmp(step, "09_allreduce_two_phase") == 0)
        return L + 2 * g + 2 * (P - 1) * w + 2 * G(c) + (P - 1) * (Xl(c) + Vop(c)) +
               (P - 1) * Xl(c) + G(2 * c) + P * G(c);
    if (strcmp(step, "10_allreduce_ring") == 0) /* staged in and out chunk by chunk */
        return L + 2 * P * G(c) + N() + (P - 1) * (D.poll_lat + Xl(c) + 2 * G(c) + Vop(c) + N()) +
               (P - 1) * (D.poll_lat + Xl(c) + G(c)) + (P - 2) * N() + 2 * P * G(c);
    if (strcmp(step, "12_broadcast") == 0) /* the root stores before its notifies */
        return L + 2 * g + (P - 1) * w + Xl(256) + g;
    if (strcmp(step, "13_allgather") == 0)
        return L + 2 * g + (P - 1) * w + (P - 1) * Xl(256) + G(512) + P * g;
    if (strcmp(step, "14_reduce_scatter") == 0)
        return L + 2 * P * g + (P - 1) * w + g + (P - 1) * (Xl(256) + Vop(256)) + g;
    if (strcmp(step, "15_all_to_all") == 0) /* puts: pushes */
        return L + (P - 1) * (g + Xs(256)) + g + G(512) + (P - 1) * w + 2 * P * g;
    return 0;
}

static const char *const steps[] = {
    "08_allreduce_mesh", "09_allreduce_two_phase", "10_allreduce_ring", "12_broadcast",
    "13_allgather",      "14_reduce_scatter",      "15_all_to_all"};
static const int step_p[] = {2, 4, 8, 16, 64};

START_TEST(hand_rolled_step_matches_its_closed_form)
{
    const char *step = steps[_i / 5];
    int p = step_p[_i % 5];
    int ring = strcmp(step, "10_allreduce_ring") == 0;
    struct cmd_result r =
        run_cmd("%s -d 0-%d --topology %s:%d,bw=56GBps,lat=1us,dispatch_lat=0 %s", tutorial(step),
                p - 1, ring ? "ring" : "mesh", p,
                strncmp(step, "1", 1) == 0 && step[1] >= '2' ? "--mode hand" : "");
    ck_assert_msg(r.status == 0, "%s P=%d failed:\n%s%s", step, p, r.out, r.err);
    const char *t = strstr(r.out, " time=");
    ck_assert_ptr_nonnull(t);
    double got = strtod(t + 6, NULL) * 1e-6, want = step_closed_form(step, p);
    double rel = fabs(got - want) / want;
    printf("%-22s P=%-3d simulated %12.4f us  closed form %12.4f us  rel %.2e\n", step, p,
           got * 1e6, want * 1e6, rel);
    ck_assert_msg(rel <= 0.005, "%s P=%d: simulated %.9g s, closed form %.9g s (%.3f %%)", step, p,
                  got, want, 100 * rel);
    cmd_result_free(&r);
}
END_TEST

/* The value of `key=` in a key=value line, into `out`. */
static void field(const char *line, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = line ? strstr(line, pat) : NULL;
    size_t len = p ? strcspn(p + strlen(pat), " \n") : 0;
    snprintf(out, n, "%.*s", (int)len, p ? p + strlen(pat) : "");
}

/* bench/simgrid-floor claims to make exactly the SimGrid activities of the
 * builtin ring allreduce, with a2a3sim's device numbers, and nothing of
 * pldsim (docs/performance.md, "The SimGrid floor"): on the platform file
 * pldsim generated, its simulated time must equal pldsim's bit for bit. */
START_TEST(simgrid_floor_makes_the_ring_allreduces_activities)
{
    static const struct {
        int P;
        const char *flags;
    } c[] = {{8, ""}, {33, ""}, {33, "--no-data"}, {5, "--bytes 4032 --no-data"}};
    char *plat = write_temp(".xml", "");
    struct cmd_result a = run_cmd("PLD_SAVE_PLATFORM=%s %s/bench/pldsim-scale ring -d 0-%d "
                                  "--topology ring:%d,bw=100GBps,lat=1us %s",
                                  plat, PLD_BUILDDIR, c[_i].P - 1, c[_i].P, c[_i].flags);
    ck_assert_msg(a.status == 0, "pldsim-scale: exit %d\n%s", a.status, a.err);
    struct cmd_result b =
        run_cmd("%s/bench/simgrid-floor %s %d %s", PLD_BUILDDIR, plat, c[_i].P, c[_i].flags);
    ck_assert_msg(b.status == 0, "simgrid-floor: exit %d\n%s", b.status, b.err);
    char want[64], got[64], wx[32], gx[32];
    field(a.out, "coll_s", want, sizeof want);
    field(b.out, "coll_s", got, sizeof got);
    field(a.out, "transfers", wx, sizeof wx);
    field(b.out, "transfers", gx, sizeof gx);
    ck_assert_msg(*want && *wx && strcmp(want, got) == 0 && strcmp(wx, gx) == 0,
                  "P=%d %s: pldsim coll_s=%s transfers=%s, floor coll_s=%s transfers=%s", c[_i].P,
                  c[_i].flags, want, wx, got, gx);
    cmd_result_free(&a);
    cmd_result_free(&b);
    remove(plat);
    free(plat);
}
END_TEST

int main(void)
{
    struct pld__model m;
    for (int i = 0; pld__builtin_models[i].name; i++)
        if (strcmp(pld__builtin_models[i].name, "a2a3") == 0)
            if (pld__model_parse(pld__builtin_models[i].text, "a2a3", &m) != 0)
                return 1;
    D = m.dev;
    plan();
    Suite *s = suite_create("accuracy");
    TCase *tc = tcase_create("closed_forms");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, builtin_matches_its_closed_form, 0, ncases);
    tcase_add_loop_test(tc, host_builtin_matches_its_closed_form, 0, 6 * 8);
    tcase_add_loop_test(tc, core_num_time_shrinks_to_the_link_limit, 0, 4);
    tcase_add_loop_test(tc, hand_rolled_step_matches_its_closed_form, 0, 7 * 5);
    tcase_add_loop_test(tc, simgrid_floor_makes_the_ring_allreduces_activities, 0, 4);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
