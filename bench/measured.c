/* measured.c: the pld programs whose times were measured on 8 Ascend 910B2
 * (bench/measurements/README.md), written in this project's words, for
 * the calibration (tools/pldsim-calibrate) and `make validate`.
 *
 *   pldsim-measured allreduce [--mode mesh|ring] [--where kernel|host]
 *                   [--count N] [--core-num K] [common pldsim flags]
 *   pldsim-measured a2av [--peer-bytes B] [--pattern PATTERN] [common pldsim flags]
 *   pldsim-measured get [--bytes B] [--how sync|async] [common pldsim flags]
 *
 * allreduce --where kernel: one dispatch per rank of one kernel that stages
 * its input into the window in 8192-element chunks (a load of the chunk's
 * valid part, a store), calls pld_tensor_allreduce (Sum, FP32) on the
 * window, and stages the result out the same way.  --where host: a publish
 * dispatch per rank (the stage-in), the allreduce as a host builtin
 * (.core_num K; ring: its [2(P-1)+1, P] signal), a consume dispatch per
 * rank (the stage-out).  The clock is the device wall: the slowest rank's
 * longest dispatch.
 *
 * a2av: one dispatch per rank of three kernels: stage (the input into the
 * stage window, the send counts into the counts window), the INT8
 * pld_tensor_all_to_all_v, and consume (every received row out).  The
 * window geometry is the measured harness's: rows of 4160 B and 253 rows
 * per peer when the payload is 0 or a multiple of 4160 B, else one row of
 * the payload.  The clock is the all_to_all_v kernel's own span on the
 * rank where it is shortest (the last one dispatched, which waits least).
 *
 * get: pto-isa's one-sided read between two NPUs (kernels/manual/a2a3/
 * tget_bandwidth, bench/measurements/README.md), one AIV core.  --how sync
 * (TGET): rank 0 pulls B bytes of FP32 from rank 1's window into its own
 * window through UB, in 4 KiB chunks ([1, 1024] FP32) and not double
 * buffered, as the measured kernel does.  --how async (TGET_ASYNC): the B
 * bytes move on an SDMA engine in 1 MiB blocks, issue to completion.  pld
 * has no get_async: the transfer is rank 1's put_async into rank 0's
 * window, which pldsim prices as the same engine's read (sdma_issue, then
 * sdma_lat per block, the route, sdma_bw; docs/models.md).  The clock,
 * get_us, is the transfer alone, on the core that issues it.
 *
 * Prints one key=value line: device_wall_us, a2av_us (a2av only), get_us
 * (get only), end_us
 * (the run's end), all %.17g, then checks the result (exit 1 if wrong). */
#include <pld/pld.h>

#include "../tools/size_arg.h"
#include "../tools/usage_error.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STAGE_CHUNK = 8192, ROW = 4160, MAX_RECV = 253, STAGE_TILE = 16384 };

static struct {
    int a2av, get, async, ring, host, P, no_data;
    int64_t get_bytes;
    double get_span;
    int64_t count, core_num, peer_bytes;
    int pattern;                   /* 0 uniform, 1 zero, 2 single-hot */
    int64_t width, max_recv, rows; /* a2av geometry; rows: per peer, uniform */
    double a2av_span[64];
    long wrong;
} S;

static const char prog[] = "pldsim-measured";

/* ---- the staged allreduce ---- */

struct ar_args {
    pl_tensor in, out;
    pld_dtensor data, sig;
};

/* Copies the count elements of `from` to `to` in 8192-element chunks: a
 * load of each chunk's valid part, a store (the stage-in and the
 * stage-out). */
static void stage(pl_tensor from, pl_tensor to)
{
    for (int64_t col = 0; col < S.count; col += STAGE_CHUNK) {
        int64_t valid = S.count - col < STAGE_CHUNK ? S.count - col : STAGE_CHUNK;
        pl_tile t = pl_load(from, PL_IDX(0, col), PL_SHAPE(1, STAGE_CHUNK),
                            .valid_shape = PL_SHAPE(1, valid));
        pl_store(t, PL_IDX(0, col), to);
    }
}

static void reduce_step(const struct ar_args *a)
{
    stage(a->in, a->data);
    pld_tensor_allreduce(a->data, a->sig, .mode = S.ring ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH);
    stage(a->data, a->out);
}

static void chip_orch(const struct ar_args *a)
{
    pl_incore(reduce_step, a);
}

static void publish_step(const struct ar_args *a)
{
    stage(a->in, a->data);
}

static void publish_orch(const struct ar_args *a)
{
    pl_incore(publish_step, a);
}

static void consume_step(const struct ar_args *a)
{
    stage(a->data, a->out);
}

static void consume_orch(const struct ar_args *a)
{
    pl_incore(consume_step, a);
}

struct ar_host {
    pl_tensor in, out;
};

static void ar_host(const struct ar_host *h)
{
    int P = S.P;
    /* the signal the program needs: the kernel's mesh [P, 1], ring
     * [2(P-1), P]; the host builtin's mesh [P, core_num], ring
     * [2(P-1)+1, P] */
    pl_shape sig =
        S.ring ? PL_SHAPE(2 * (P - 1) + (S.host ? 1 : 0), P) : PL_SHAPE(P, S.host ? S.core_num : 1);
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, S.count), PL_FP32, .name = "data");
    pld_buffer signal = pld_alloc_window_buffer(sig, PL_INT32, .name = "signal");
    for (int r = 0; r < P; r++) {
        struct ar_args a = {pl_at(h->in, r), pl_at(h->out, r),
                            pld_window(data, PL_SHAPE(1, S.count), PL_FP32),
                            pld_window(signal, sig, PL_INT32)};
        if (S.host) /* one call each: a dispatch is named after its function */
            pld_dispatch(r, publish_orch, a);
        else
            pld_dispatch(r, chip_orch, a);
    }
    if (!S.host)
        return;
    pld_dtensor d = pld_window(data, PL_SHAPE(1, S.count), PL_FP32);
    pld_tensor_allreduce(d, pld_window(signal, sig, PL_INT32),
                         .mode = S.ring ? PLD_ALLREDUCE_RING : PLD_ALLREDUCE_MESH,
                         .core_num = S.core_num);
    for (int r = 0; r < P; r++) {
        struct ar_args a = {.data = d, .out = pl_at(h->out, r)};
        pld_dispatch(r, consume_orch, a);
    }
}

/* ---- the all_to_all_v harness ---- */

/* Rows rank `src` sends to rank `dst` under the pattern, as the measured
 * harness makes them (bench/measurements/README.md); `full` = S.rows. */
static int64_t rows_for(int src, int dst)
{
    int64_t full = S.rows, small = full > 1 ? 1 : full;
    switch (S.pattern) {
    case 1: /* zero */
        return 0;
    case 2: /* single-hot: to the next rank only */
        return dst == (src + 1) % S.P ? full : 0;
    case 3: /* self-only */
        return dst == src ? full : 0;
    case 4: /* mixed: 0, small, full by (src + dst) mod 3 */
        return (src + dst) % 3 == 0 ? 0 : (src + dst) % 3 == 1 ? small : full;
    case 5: /* asymmetric */
        return (3 * src + 5 * dst + full) % (full + 1);
    default: /* uniform */
        return full;
    }
}

struct a2av_args {
    int rank;
    pl_tensor in, counts_in, out;
    pld_dtensor stage, data, sig, counts, recv;
};

/* Copies rows [0, nrows) of a [rows, width] INT8 region through UB tiles of
 * at most 16 KiB: whole rows when a row fits, else pieces of a row. */
static void copy_rows(pl_tensor from, pl_tensor to, int64_t row0, int64_t nrows)
{
    int64_t w = S.width;
    if (w <= STAGE_TILE) {
        int64_t per = STAGE_TILE / w;
        for (int64_t r = 0; r < nrows; r += per) {
            int64_t n = nrows - r < per ? nrows - r : per;
            pl_tile t = pl_load(from, PL_IDX(row0 + r, 0), PL_SHAPE(n, w));
            pl_store(t, PL_IDX(row0 + r, 0), to);
        }
        return;
    }
    for (int64_t r = 0; r < nrows; r++)
        for (int64_t c = 0; c < w; c += STAGE_TILE) {
            int64_t n = w - c < STAGE_TILE ? w - c : STAGE_TILE;
            pl_tile t = pl_load(from, PL_IDX(row0 + r, c), PL_SHAPE(1, n));
            pl_store(t, PL_IDX(row0 + r, c), to);
        }
}

static void stage_step(const struct a2av_args *a)
{
    copy_rows(a->in, a->stage, 0, (int64_t)S.P * S.max_recv);
    for (int d = 0; d < S.P; d++)
        pl_write(a->counts, PL_IDX(d, 0), pl_read(a->counts_in, PL_IDX(d, 0)));
}

static void empty_step(const struct a2av_args *a)
{
    (void)a;
}

static void take_step(const struct a2av_args *a)
{
    copy_rows(a->data, a->out, 0, (int64_t)S.P * S.max_recv);
}

/* The chip orchestrator: the all_to_all_v between the two kernels is the
 * builtin's own kernel, launched here (a per-device call).  Its span is
 * the call's, less a kernel launch (an empty kernel's span): the measured
 * clock starts when the kernel does. */
static void chip_pipeline(const struct a2av_args *a)
{
    pl_incore(stage_step, a);
    double t0 = pld_time();
    pl_incore(empty_step, a);
    double t1 = pld_time();
    pld_tensor_all_to_all_v(a->stage, a->data, a->sig, a->counts, a->recv);
    S.a2av_span[a->rank] = pld_time() - t1 - (t1 - t0);
    pl_incore(take_step, a);
}

struct a2av_host {
    pl_tensor in, counts, out;
};

static void a2av_host(const struct a2av_host *h)
{
    int P = S.P;
    /* the [P, 1] cells, each buffer padded to whole 64-byte lines */
    pl_shape rows = PL_SHAPE((int64_t)P * S.max_recv, S.width), cell = PL_SHAPE(P, 1),
             line = PL_SHAPE((P + 15) / 16 * 16, 1);
    pld_buffer stage = pld_alloc_window_buffer(rows, PL_INT8, .name = "stage");
    pld_buffer data = pld_alloc_window_buffer(rows, PL_INT8, .name = "data");
    pld_buffer sig = pld_alloc_window_buffer(line, PL_INT32, .name = "signal");
    pld_buffer counts = pld_alloc_window_buffer(line, PL_INT32, .name = "counts");
    pld_buffer recv = pld_alloc_window_buffer(line, PL_INT32, .name = "recv");
    for (int r = 0; r < P; r++) {
        struct a2av_args a = {r,
                              pl_at(h->in, r),
                              pl_at(h->counts, r),
                              pl_at(h->out, r),
                              pld_window(stage, rows, PL_INT8),
                              pld_window(data, rows, PL_INT8),
                              pld_window(sig, cell, PL_INT32),
                              pld_window(counts, cell, PL_INT32),
                              pld_window(recv, cell, PL_INT32)};
        pld_dispatch(r, chip_pipeline, a);
    }
}

/* ---- the one-sided read ---- */

struct get_args {
    int rank;
    pld_dtensor src, land, sig;
};

/* Rank 1 marks its source (first and last element) and, for the sync read,
 * tells rank 0 it may pull; rank 0 checks what landed.  Only the transfer
 * is timed. */
static void get_step(const struct get_args *a)
{
    int64_t n = S.get_bytes / 4;
    if (a->rank == 1) {
        pl_write(a->src, PL_IDX(0, 0), 7);
        pl_write(a->src, PL_IDX(0, n - 1), 9);
        if (S.async) {
            pld_async_session ses = pld_system_async_session();
            double t0 = pld_time();
            pld_async_event e =
                pld_tensor_put_async(a->land, .peer = 0, .src = a->src, .session = ses);
            pld_system_wait_async_event(e, ses);
            S.get_span = pld_time() - t0;
        }
        pld_system_notify(a->sig, .peer = 0, .offsets = PL_IDX(0, 0), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
        return;
    }
    pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    if (!S.async) {
        double t0 = pld_time();
        pld_tensor_get(a->land, .peer = 1, .src = a->src, .chunk_rows = 1, .chunk_cols = 1024);
        S.get_span = pld_time() - t0;
    }
    if (!S.no_data && (pl_read(a->land, PL_IDX(0, 0)) != 7 || pl_read(a->land, PL_IDX(0, n - 1)) != 9))
        S.wrong++;
}

static void get_orch(const struct get_args *a)
{
    pl_incore(get_step, a);
}

static void get_host(void *unused)
{
    (void)unused;
    pl_shape row = PL_SHAPE(1, S.get_bytes / 4), cell = PL_SHAPE(16, 1);
    pld_buffer src = pld_alloc_window_buffer(row, PL_FP32, .name = "send");
    pld_buffer land = pld_alloc_window_buffer(row, PL_FP32, .name = "recv");
    pld_buffer sig = pld_alloc_window_buffer(cell, PL_INT32, .name = "signal");
    for (int r = 0; r < S.P; r++) {
        struct get_args a = {r, pld_window(src, row, PL_FP32), pld_window(land, row, PL_FP32),
                             pld_window(sig, cell, PL_INT32)};
        pld_dispatch(r, get_orch, a);
    }
}

/* ---- the command line ---- */

static int usage(void)
{
    puts("usage: pldsim-measured allreduce [--mode mesh|ring] [--where kernel|host] [--count N]\n"
         "                       [--core-num K] [common flags]\n"
         "       pldsim-measured a2av [--peer-bytes B] [--pattern PATTERN] [common flags]\n"
         "       pldsim-measured get [--bytes B] [--how sync|async] [common flags]\n"
         "\n"
         "The measured 910B programs (bench/measurements/README.md): prints device_wall_us,\n"
         "a2av_us (a2av: the all_to_all_v kernel's span on the fastest rank), get_us (get:\n"
         "the read's span on the core that issues it) and end_us.\n"
         "\n"
         "  --mode mesh|ring        the allreduce's lowering (default mesh)\n"
         "  --where kernel|host     inside a staged kernel (default), or as a host builtin\n"
         "                          between a publish and a consume dispatch\n"
         "  --count N               FP32 elements per rank (default 65536)\n"
         "  --core-num K            the host builtin's vector cores (mesh only; default 1)\n"
         "  --peer-bytes B          a2av: INT8 bytes each rank sends each peer (default 4096)\n"
         "  --pattern PATTERN       a2av: the rows each pair sends, as the measured harness:\n"
         "                          uniform (every pair, self included), zero, single-hot\n"
         "                          (rank r to r+1), self-only, mixed (0, 1 or all rows by\n"
         "                          (r+d) mod 3), asymmetric ((3r+5d+all) mod (all+1) rows)\n"
         "  --bytes B               get: bytes rank 0 reads from rank 1, a multiple of 4 KiB\n"
         "                          (default 4K)\n"
         "  --how sync|async        get: through UB in 4 KiB chunks (TGET, default), or on an\n"
         "                          SDMA engine (TGET_ASYNC)\n");
    pld_print_common_usage(stdout);
    return 0;
}

/* The index of `arg` in names[0..n), or -1 after the refusal. */
static int pick(const char *arg, const char *fmt, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    usage_error(prog, fmt, arg);
    return -1;
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 1)
        return usage();
    if (rc == 2) /* --version */
        return 0;
    if (rc < 0)
        return 2;
    static const char *const modes[] = {"mesh", "ring"}, *const wheres[] = {"kernel", "host"},
                             *const patterns[] = {"uniform",   "zero",  "single-hot",
                                                  "self-only", "mixed", "asymmetric"};
    static const struct option opts[] = {{"mode", required_argument, NULL, 'm'},
                                         {"where", required_argument, NULL, 'w'},
                                         {"count", required_argument, NULL, 'n'},
                                         {"core-num", required_argument, NULL, 'k'},
                                         {"peer-bytes", required_argument, NULL, 'b'},
                                         {"pattern", required_argument, NULL, 'p'},
                                         {"bytes", required_argument, NULL, 'B'},
                                         {"how", required_argument, NULL, 'h'},
                                         {0}};
    S.count = 65536;
    S.core_num = 1;
    S.peer_bytes = 4096;
    S.get_bytes = 4096;
    static const char *const hows[] = {"sync", "async"};
    optind = 0; /* glibc: start afresh, pld_parse_args used getopt too */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        switch (c) {
        case 'm':
            if ((S.ring = pick(optarg, "bad --mode '%s'; expected mesh or ring", modes, 2)) < 0)
                return 2;
            break;
        case 'w':
            if ((S.host = pick(optarg, "bad --where '%s'; expected kernel or host", wheres, 2)) < 0)
                return 2;
            break;
        case 'p':
            if ((S.pattern = pick(optarg,
                                  "bad --pattern '%s'; expected uniform, zero, single-hot, "
                                  "self-only, mixed or asymmetric",
                                  patterns, 6)) < 0)
                return 2;
            break;
        case 'n':
            if (parse_size_arg(optarg, &S.count) != 0 || S.count < 1)
                return usage_error(prog, "bad count '%s' for --count; expected 1 or more", optarg);
            break;
        case 'k':
            if (parse_size_arg(optarg, &S.core_num) != 0 || S.core_num < 1)
                return usage_error(prog, "bad --core-num '%s'; expected 1 or more", optarg);
            break;
        case 'b':
            if (strcmp(optarg, "0") == 0)
                S.peer_bytes = 0;
            else if (parse_size_arg(optarg, &S.peer_bytes) != 0 || S.peer_bytes > (1 << 20))
                return usage_error(prog, "bad --peer-bytes '%s'; expected 0..1M", optarg);
            break;
        case 'B':
            if (parse_size_arg(optarg, &S.get_bytes) != 0 || S.get_bytes < 4096 ||
                S.get_bytes % 4096 != 0 || S.get_bytes > ((int64_t)1 << 32))
                return usage_error(prog, "bad --bytes '%s'; expected a multiple of 4K, up to 4G",
                                   optarg);
            break;
        case 'h':
            if ((S.async = pick(optarg, "bad --how '%s'; expected sync or async", hows, 2)) < 0)
                return 2;
            break;
        case ':':
            return usage_error(prog, "%s needs a value", argv[optind - 1]);
        default:
            return usage_error(prog, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error(prog, "%s", "expected a program: allreduce, a2av or get");
    static const char *const progs[] = {"allreduce", "a2av", "get"};
    int which =
        pick(argv[optind++], "unknown program '%s'; expected allreduce, a2av or get", progs, 3);
    if (which < 0)
        return 2;
    S.a2av = which == 1;
    S.get = which == 2;
    if (optind < argc)
        return usage_error(prog, "unexpected argument '%s'", argv[optind]);
    S.P = cfg.ndevices;
    if (S.P > 64)
        return usage_error(prog, "%s", "at most 64 devices (the measured programs' limit)");

    pld_run_stats st;
    if (S.get) {
        if (S.P != 2)
            return usage_error(prog, "%s", "get runs on 2 devices (-d 0-1)");
        S.no_data = cfg.no_data; /* no values to check */
        rc = pld_run(&cfg, get_host, NULL);
        pld_last_run_stats(&st);
        if (!rc)
            printf("device_wall_us=%.17g get_us=%.17g end_us=%.17g\n", st.device_wall_s * 1e6,
                   S.get_span * 1e6, st.time_s * 1e6);
    } else if (!S.a2av) {
        pl_tensor in = pl_tensor_new(PL_SHAPE(S.P, 1, S.count), PL_FP32, "inputs");
        pl_tensor out = pl_tensor_new(PL_SHAPE(S.P, 1, S.count), PL_FP32, "outputs");
        for (int r = 0; r < S.P; r++) {
            pl_tensor row = pl_at(in, r);
            ((float *)row.data)[0] = (float)(r + 1);
            ((float *)row.data)[S.count - 1] = (float)(2 * r + 1);
        }
        struct ar_host h = {in, out};
        rc = pld_run(&cfg, ar_host, &h);
        pld_last_run_stats(&st);
        /* the sums of 1..P and of the odd numbers up to 2P-1 at both ends */
        for (int r = 0; !rc && !cfg.no_data && r < S.P; r++) {
            float *y = pl_at(out, r).data;
            double lo = (double)S.P * (S.P + 1) / 2, hi = (double)S.P * S.P;
            if (S.count == 1 ? y[0] != lo + hi : y[0] != lo || y[S.count - 1] != hi)
                S.wrong++;
        }
        pl_tensor_free(&in);
        pl_tensor_free(&out);
        if (!rc)
            printf("device_wall_us=%.17g end_us=%.17g\n", st.device_wall_s * 1e6, st.time_s * 1e6);
    } else {
        if (S.peer_bytes == 0 || S.peer_bytes % ROW == 0)
            S.width = ROW, S.max_recv = MAX_RECV;
        else
            S.width = S.peer_bytes, S.max_recv = 1;
        S.rows = S.peer_bytes / S.width;
        int64_t nrows = (int64_t)S.P * S.max_recv;
        pl_tensor in = pl_tensor_new(PL_SHAPE(S.P, nrows, S.width), PL_INT8, "inputs");
        pl_tensor counts = pl_tensor_new(PL_SHAPE(S.P, S.P, 1), PL_INT32, "send_counts");
        pl_tensor out = pl_tensor_new(PL_SHAPE(S.P, nrows, S.width), PL_INT8, "outputs");
        for (int s = 0; s < S.P; s++)
            for (int d = 0; d < S.P; d++) {
                ((int32_t *)pl_at(counts, s).data)[d] = (int32_t)rows_for(s, d);
                /* the first byte of every row rank s sends d: s + 1 */
                int8_t *blk = (int8_t *)pl_at(in, s).data + (int64_t)d * S.max_recv * S.width;
                for (int64_t k = 0; k < rows_for(s, d); k++)
                    blk[k * S.width] = (int8_t)(s + 1);
            }
        struct a2av_host h = {in, counts, out};
        rc = pld_run(&cfg, a2av_host, &h);
        pld_last_run_stats(&st);
        /* what rank d received from s: rows_for(s, d) rows marked s + 1 */
        for (int d = 0; !rc && !cfg.no_data && d < S.P; d++)
            for (int s = 0; s < S.P; s++) {
                int8_t *blk = (int8_t *)pl_at(out, d).data + (int64_t)s * S.max_recv * S.width;
                for (int64_t k = 0; k < rows_for(s, d); k++)
                    if (blk[k * S.width] != (int8_t)(s + 1))
                        S.wrong++;
            }
        pl_tensor_free(&in);
        pl_tensor_free(&counts);
        pl_tensor_free(&out);
        double fastest = INFINITY;
        for (int r = 0; r < S.P; r++)
            if (S.a2av_span[r] < fastest)
                fastest = S.a2av_span[r];
        if (!rc)
            printf("device_wall_us=%.17g a2av_us=%.17g end_us=%.17g\n", st.device_wall_s * 1e6,
                   fastest * 1e6, st.time_s * 1e6);
    }
    if (rc)
        return pld_exit_code(rc);
    if (S.wrong)
        fprintf(stderr, "%s: %ld wrong element%s\n", prog, S.wrong, S.wrong == 1 ? "" : "s");
    return S.wrong ? 1 : 0;
}
