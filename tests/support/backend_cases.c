/* backend_cases.c: small pld programs that tests/system/check_backends.c runs on
 * every backend (mpi through mpirun), for what the tutorials do not reach:
 * atomic Add into a peer's window in every dtype that has it, strided put/get
 * regions, and the failures a distributed run must report once.
 *
 *   backend_cases CASE [common flags]
 *     atomics   every rank adds its vectors into rank 0's window (FP32, FP16,
 *               INT32, and a put with .atomic into a 2-D region); rank 0
 *               copies the sums out.  Checks them, prints OK.
 *     strided   every rank puts a 2-D block into its right neighbour's window
 *               and gets a block of its left neighbour's; checks, prints OK.
 *     deadlock  rank r waits on a cell nobody notifies (use --wait-timeout).
 *     bad_peer  the last rank calls remote_load with peer = P; rank 0 waits
 *               for it and must unwind quietly.
 *     sparse    every access path into a large INT32 window (which the
 *               simulator keeps sparse, src/mem/sparse.c): element writes, tile
 *               stores, remote stores, atomic Adds, strided put and get,
 *               remote loads, and notify/wait on its cells; every rank then
 *               copies its whole window out.  Checks, prints OK.
 *     lines     every rank fills a [256, 1024] INT32 window (1 MiB, 32768
 *               lines of the sparse table per copy: at P=3 it grows past
 *               three arenas) with tile stores, then copies its left
 *               neighbour's out with remote loads.  Checks, prints OK.
 *     huge      every rank notifies one cell in each of 256 rows of a
 *               [4096, 65536] INT32 window (1 GiB per copy) and waits for
 *               its own; only a sparse window fits in a small memory limit.
 * Exit: 0 and "OK", 1 on a wrong result, or the library's exit code. */
#include <pld/pld.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { N = 64, ROWS = 8 };
/* the sparse case's window: 256 KiB per copy, above the simulator's
 * threshold for sparse storage */
enum { SR = 64, SC = 1024 };
/* the lines case's window: 1 MiB per copy, filled */
enum { LR = 256 };
/* the huge case's window: 1 GiB per copy */
enum { HR = 4096, HC = 65536, HROWS = 256 };

struct io {
    pl_tensor xf, xh, xi, y_f, y_h, y_i, y_2d;   /* atomics */
    pl_tensor src, out_w, out_g;                 /* strided */
    pl_tensor ival, blk, out_big, got_rl, got_g; /* sparse */
    pl_tensor fill, out_fill;                    /* lines */
};

struct win {
    pld_dtensor acc_f, acc_h, acc_i, acc_2d, sig, w2d, big, huge, many;
};

struct rank_args {
    const struct io *io;
    struct win w;
    int rank, P;
};

/* ---------------------------------------------------------------- atomics */

static void atomics_kernel(const struct io *io, struct win w, int r, int P)
{
    pl_tile f = pl_load(pl_at(io->xf, r), PL_IDX(0, 0), PL_SHAPE(1, N));
    pld_tile_remote_store(f, w.acc_f, .peer = 0, .offsets = PL_IDX(0, 0), .atomic = PL_ATOMIC_ADD);
    pl_tile h = pl_load(pl_at(io->xh, r), PL_IDX(0, 0), PL_SHAPE(1, N));
    pld_tile_remote_store(h, w.acc_h, .peer = 0, .offsets = PL_IDX(0, 0), .atomic = PL_ATOMIC_ADD);
    pl_tile i = pl_load(pl_at(io->xi, r), PL_IDX(0, 0), PL_SHAPE(1, N));
    pld_tile_remote_store(i, w.acc_i, .peer = 0, .offsets = PL_IDX(0, 0), .atomic = PL_ATOMIC_ADD);
    /* a put-add of rows 1..2, columns 8..39 of x (viewed as [2, 32]) */
    pld_tensor_put(w.acc_2d, .peer = 0, .src = pl_at(io->xf, r), .dst_offsets = PL_IDX(1, 8),
                   .src_offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, 32), .atomic = PL_ATOMIC_ADD);
    pld_tensor_barrier(w.sig);
    if (r == 0) {
        pl_store(pl_load(w.acc_f, PL_IDX(0, 0), PL_SHAPE(1, N)), PL_IDX(0, 0), io->y_f);
        pl_store(pl_load(w.acc_h, PL_IDX(0, 0), PL_SHAPE(1, N)), PL_IDX(0, 0), io->y_h);
        pl_store(pl_load(w.acc_i, PL_IDX(0, 0), PL_SHAPE(1, N)), PL_IDX(0, 0), io->y_i);
        pl_store(pl_load(w.acc_2d, PL_IDX(0, 0), PL_SHAPE(4, N)), PL_IDX(0, 0), io->y_2d);
    }
    (void)P;
}

static void atomics_device(const struct rank_args *a)
{
    pl_incore(atomics_kernel, a->io, a->w, a->rank, a->P);
}

static int check_atomics(const struct io *io, int P)
{
    for (int k = 0; k < N; k++) {
        double sf = 0, sh = 0;
        long long si = 0;
        for (int r = 0; r < P; r++) {
            sf += pl_tensor_get(io->xf, (int64_t)r * N + k);
            sh += pl_tensor_get(io->xh, (int64_t)r * N + k);
            si += (long long)pl_tensor_get(io->xi, (int64_t)r * N + k);
        }
        double f = pl_tensor_get(io->y_f, k), h = pl_tensor_get(io->y_h, k);
        if (fabs(f - sf) > 1e-5 * (1 + fabs(sf)) || fabs(h - sh) > 1e-2 * (1 + fabs(sh)) ||
            (long long)pl_tensor_get(io->y_i, k) != si) {
            printf("FAIL: element %d: FP32 %g (want %g), FP16 %g (want %g), INT32 %lld (want "
                   "%lld)\n",
                   k, f, sf, h, sh, (long long)pl_tensor_get(io->y_i, k), si);
            return 1;
        }
    }
    for (int row = 0; row < 4; row++)
        for (int c = 0; c < N; c++) {
            double want = 0;
            for (int r = 0; row == 1 && c >= 8 && c < 40 && r < P; r++)
                want += pl_tensor_get(io->xf, (int64_t)r * N + (c - 8));
            double got = pl_tensor_get(io->y_2d, row * N + c);
            if (fabs(got - want) > 1e-5 * (1 + fabs(want))) {
                printf("FAIL: put-add [%d, %d] is %g, want %g\n", row, c, got, want);
                return 1;
            }
        }
    return 0;
}

/* ---------------------------------------------------------------- strided */

static void strided_kernel(const struct io *io, struct win w, int r, int P)
{
    int right = (r + 1) % P, left = (r + P - 1) % P;
    /* rows 2..3, columns 16..47 of my source into the right neighbour's
     * window at rows 4..5, columns 32..63 */
    pld_tensor_put(w.w2d, .peer = right, .src = pl_at(io->src, r), .dst_offsets = PL_IDX(4, 32),
                   .src_offsets = PL_IDX(2, 16), .shape = PL_SHAPE(2, 32));
    pld_tensor_barrier(w.sig);
    pl_store(pl_load(w.w2d, PL_IDX(0, 0), PL_SHAPE(ROWS, N)), PL_IDX(0, 0), pl_at(io->out_w, r));
    /* rows 4..6, columns 40..55 of the left neighbour's window into my
     * output at rows 1..3, columns 0..15 */
    pld_tensor_get(pl_at(io->out_g, r), .peer = left, .src = w.w2d, .dst_offsets = PL_IDX(1, 0),
                   .src_offsets = PL_IDX(4, 40), .shape = PL_SHAPE(3, 16));
    pld_tensor_barrier(w.sig); /* nobody leaves while a peer still reads its window */
}

static void strided_device(const struct rank_args *a)
{
    pl_incore(strided_kernel, a->io, a->w, a->rank, a->P);
}

/* What rank `who`'s window holds: the left neighbour's block, zeros around. */
static double window_elem(const struct io *io, int who, int P, int row, int c)
{
    int from = (who + P - 1) % P;
    if (row >= 4 && row < 6 && c >= 32)
        return pl_tensor_get(io->src, ((int64_t)from * ROWS + (row - 2)) * N + (c - 16));
    return 0;
}

static int check_strided(const struct io *io, int P)
{
    for (int r = 0; r < P; r++)
        for (int row = 0; row < ROWS; row++)
            for (int c = 0; c < N; c++) {
                double w = pl_tensor_get(io->out_w, ((int64_t)r * ROWS + row) * N + c);
                double g = pl_tensor_get(io->out_g, ((int64_t)r * ROWS + row) * N + c);
                double want_g = row >= 1 && row < 4 && c < 16
                                    ? window_elem(io, (r + P - 1) % P, P, row + 3, c + 40)
                                    : 0;
                if (w != window_elem(io, r, P, row, c) || g != want_g) {
                    printf("FAIL: rank %d [%d, %d]: window %g (want %g), got %g (want %g)\n", r,
                           row, c, w, window_elem(io, r, P, row, c), g, want_g);
                    return 1;
                }
            }
    return 0;
}

/* ---------------------------------------------------------------- sparse */

static void sparse_kernel(const struct io *io, struct win w, int r, int P)
{
    int right = (r + 1) % P, left = (r + P - 1) % P;
    pl_write(w.big, PL_IDX(5, 7 + r), 1000 + r);
    pl_tile v = pl_load(pl_at(io->ival, r), PL_IDX(0, 0), PL_SHAPE(1, N));
    pl_store(v, PL_IDX(10, 100), w.big); /* starts mid-line, spans nine lines */
    pld_tile_remote_store(v, w.big, .peer = right, .offsets = PL_IDX(20, 3));
    pld_tile_remote_store(v, w.big, .peer = 0, .offsets = PL_IDX(30, 0), .atomic = PL_ATOMIC_ADD);
    pld_tensor_put(w.big, .peer = right, .src = pl_at(io->blk, r), .dst_offsets = PL_IDX(40, 500),
                   .src_offsets = PL_IDX(1, 5), .shape = PL_SHAPE(3, 31));
    pld_system_notify(w.big, .peer = right, .offsets = PL_IDX(SR - 1, r), .value = r + 1,
                      .op = PLD_NOTIFY_SET);
    pld_system_wait(w.big, .offsets = PL_IDX(SR - 1, left), .expected = left + 1,
                    .cmp = PLD_WAIT_EQ);
    pld_tensor_barrier(w.sig); /* every write above has landed */
    pl_tile got = pld_tile_remote_load(w.big, .peer = left, .offsets = PL_IDX(20, 0),
                                       .shape = PL_SHAPE(1, N));
    pl_store(got, PL_IDX(0, 0), pl_at(io->got_rl, r));
    pld_tensor_get(pl_at(io->got_g, r), .peer = left, .src = w.big, .dst_offsets = PL_IDX(0, 0),
                   .src_offsets = PL_IDX(40, 490), .shape = PL_SHAPE(3, 48));
    pld_tensor_barrier(w.sig); /* nobody changes a window a peer still reads */
    for (int row = 0; row < SR; row += 8)
        pl_store(pl_load(w.big, PL_IDX(row, 0), PL_SHAPE(8, SC)), PL_IDX(row, 0),
                 pl_at(io->out_big, r));
}

static void sparse_device(const struct rank_args *a)
{
    pl_incore(sparse_kernel, a->io, a->w, a->rank, a->P);
}

/* What rank r's window must hold, from the inputs alone. */
static long long big_elem(const struct io *io, int r, int P, int row, int c)
{
    int left = (r + P - 1) % P;
    long long v = 0;
    if (row == 5 && c == 7 + r)
        v = 1000 + r;
    if (row == 10 && c >= 100 && c < 100 + N)
        v = (long long)pl_tensor_get(io->ival, (int64_t)r * N + (c - 100));
    if (row == 20 && c >= 3 && c < 3 + N)
        v = (long long)pl_tensor_get(io->ival, (int64_t)left * N + (c - 3));
    for (int k = 0; r == 0 && row == 30 && c < N && k < P; k++)
        v += (long long)pl_tensor_get(io->ival, (int64_t)k * N + c);
    if (row >= 40 && row < 43 && c >= 500 && c < 531)
        v = (long long)pl_tensor_get(io->blk, ((int64_t)left * 4 + (row - 39)) * 40 + (c - 495));
    if (row == SR - 1 && c == left)
        v = left + 1;
    return v;
}

static int check_sparse(const struct io *io, int P)
{
    for (int r = 0; r < P; r++) {
        int left = (r + P - 1) % P;
        for (int row = 0; row < SR; row++)
            for (int c = 0; c < SC; c++) {
                long long got =
                    (long long)pl_tensor_get(io->out_big, ((int64_t)r * SR + row) * SC + c);
                if (got != big_elem(io, r, P, row, c)) {
                    printf("FAIL: rank %d window [%d, %d] is %lld, want %lld\n", r, row, c, got,
                           big_elem(io, r, P, row, c));
                    return 1;
                }
            }
        for (int c = 0; c < N; c++)
            if ((long long)pl_tensor_get(io->got_rl, (int64_t)r * N + c) !=
                big_elem(io, left, P, 20, c)) {
                printf("FAIL: rank %d remote_load [0, %d]\n", r, c);
                return 1;
            }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 48; j++)
                if ((long long)pl_tensor_get(io->got_g, ((int64_t)r * 3 + i) * 48 + j) !=
                    big_elem(io, left, P, 40 + i, 490 + j)) {
                    printf("FAIL: rank %d get [%d, %d]\n", r, i, j);
                    return 1;
                }
    }
    return 0;
}

static void huge_kernel(struct win w, int r, int P)
{
    int right = (r + 1) % P, left = (r + P - 1) % P;
    for (int k = 0; k < HROWS; k++) {
        pld_system_notify(w.huge, .peer = right, .offsets = PL_IDX(k * (HR / HROWS), r),
                          .value = k + 1, .op = PLD_NOTIFY_SET);
        pld_system_wait(w.huge, .offsets = PL_IDX(k * (HR / HROWS), left), .expected = k + 1,
                        .cmp = PLD_WAIT_EQ);
    }
}

/* ------------------------------------------------------------------ lines */

static void lines_kernel(const struct io *io, struct win w, int r, int P)
{
    int left = (r + P - 1) % P;
    for (int row = 0; row < LR; row += 8)
        pl_store(pl_load(pl_at(io->fill, r), PL_IDX(row, 0), PL_SHAPE(8, SC)), PL_IDX(row, 0),
                 w.many);
    pld_tensor_barrier(w.sig); /* every copy is full */
    for (int row = 0; row < LR; row += 8)
        pl_store(pld_tile_remote_load(w.many, .peer = left, .offsets = PL_IDX(row, 0),
                                      .shape = PL_SHAPE(8, SC)),
                 PL_IDX(row, 0), pl_at(io->out_fill, r));
    pld_tensor_barrier(w.sig); /* nobody leaves while a peer still reads */
}

static void lines_device(const struct rank_args *a)
{
    pl_incore(lines_kernel, a->io, a->w, a->rank, a->P);
}

static int check_lines(const struct io *io, int P)
{
    int64_t per = (int64_t)LR * SC;
    for (int r = 0; r < P; r++) {
        int left = (r + P - 1) % P;
        for (int64_t i = 0; i < per; i++)
            if (pl_tensor_get(io->out_fill, r * per + i) !=
                pl_tensor_get(io->fill, left * per + i)) {
                printf("FAIL: rank %d read [%lld, %lld] of rank %d's window as %g, want %g\n", r,
                       (long long)(i / SC), (long long)(i % SC), left,
                       pl_tensor_get(io->out_fill, r * per + i),
                       pl_tensor_get(io->fill, left * per + i));
                return 1;
            }
    }
    return 0;
}

static void huge_device(const struct rank_args *a)
{
    pl_incore(huge_kernel, a->w, a->rank, a->P);
}

/* ---------------------------------------------------------------- failures */

static void deadlock_kernel(struct win w, int r, int P)
{
    pld_system_wait(w.sig, .offsets = PL_IDX((r + 1) % P, 0), .expected = 1, .cmp = PLD_WAIT_GE);
}

static void deadlock_device(const struct rank_args *a)
{
    pl_incore(deadlock_kernel, a->w, a->rank, a->P);
}

/* ---------------------------------------------------------------- defer */

/* A split-phase barrier in a task on every rank: sim and threads run it;
 * mpi refuses it, and every process meets the refusal at once. */
static void defer_kernel(const struct win *w)
{
    pld_deferred(pld_tensor_barrier(w->sig));
}

static void defer_device(const struct rank_args *a)
{
    pld_manual_scope_begin();
    pld_at(defer_kernel, a->w);
    pld_manual_scope_end();
}

static void bad_peer_kernel(struct win w, int r, int P)
{
    if (r == P - 1) {
        pl_tile t = pld_tile_remote_load(w.acc_f, .peer = P, .offsets = PL_IDX(0, 0),
                                         .shape = PL_SHAPE(1, N));
        (void)t;
    }
    pld_tensor_barrier(w.sig); /* the others wait here for the failed rank */
}

/* killed: the rank PLD_TEST_KILL_RANK names (default the last) dies of
 * SIGKILL in the middle of an allreduce - after its first notify, while the
 * others wait for its data - as a crashed or OOM-killed process would; the
 * survivors must end within --wait-timeout and name it. */
static void killed_kernel(struct win w, int r, int P)
{
    const char *env = getenv("PLD_TEST_KILL_RANK");
    int victim = env ? atoi(env) : P - 1;
    if (r == victim) {
        pld_system_notify(w.sig, .peer = (r + 1) % P, .offsets = PL_IDX(r, 0), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
        raise(SIGKILL);
    }
    pld_tensor_allreduce(w.acc_f, w.sig);
}

static void killed_device(const struct rank_args *a)
{
    pl_incore(killed_kernel, a->w, a->rank, a->P);
}

/* interrupt: rank 0's kernel sends its own process SIGINT (SIGTERM with
 * PLD_TEST_SIGNAL=TERM), as Ctrl-C or kill would arrive in the middle of a
 * run; the process must say so in one line and end with the signal. */
static void interrupt_kernel(int r)
{
    if (r != 0)
        return;
    const char *env = getenv("PLD_TEST_SIGNAL");
    kill(getpid(), env && strcmp(env, "TERM") == 0 ? SIGTERM : SIGINT);
    struct timespec ts = {5, 0};
    nanosleep(&ts, NULL); /* where the signal ends the process */
    fprintf(stderr, "the signal did not end the process\n");
}

static void interrupt_device(const struct rank_args *a)
{
    pl_incore(interrupt_kernel, a->rank);
}

/* spin: rank 0 waits for a notify that never comes while rank 1 loops in
 * its own code, outside any pld call, and never returns: after the wait
 * times out, the process must end, naming the spinning rank. */
static void spin_kernel(struct win w, int r)
{
    if (r == 0) {
        pld_system_wait(w.sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
        return;
    }
    for (volatile unsigned long k = 0;; k++)
        ;
}

static void spin_device(const struct rank_args *a)
{
    pl_incore(spin_kernel, a->w, a->rank);
}

static void bad_peer_device(const struct rank_args *a)
{
    pl_incore(bad_peer_kernel, a->w, a->rank, a->P);
}

/* ---------------------------------------------------------------- driver */

static const char *which;
static struct io io;

static void host(const struct io *h)
{
    int P = (int)pld_world_size();
    struct win w = {0};
    w.sig = pld_window(pld_alloc_window_buffer(PL_SHAPE(P, 1), PL_INT32, .name = "sig"),
                       PL_SHAPE(P, 1), PL_INT32);
    w.acc_f = pld_window(pld_alloc_window_buffer(PL_SHAPE(1, N), PL_FP32, .name = "acc_f"),
                         PL_SHAPE(1, N), PL_FP32);
    w.acc_h = pld_window(pld_alloc_window_buffer(PL_SHAPE(1, N), PL_FP16, .name = "acc_h"),
                         PL_SHAPE(1, N), PL_FP16);
    w.acc_i = pld_window(pld_alloc_window_buffer(PL_SHAPE(1, N), PL_INT32, .name = "acc_i"),
                         PL_SHAPE(1, N), PL_INT32);
    w.acc_2d = pld_window(pld_alloc_window_buffer(PL_SHAPE(4, N), PL_FP32, .name = "acc_2d"),
                          PL_SHAPE(4, N), PL_FP32);
    w.w2d = pld_window(pld_alloc_window_buffer(PL_SHAPE(ROWS, N), PL_FP32, .name = "w2d"),
                       PL_SHAPE(ROWS, N), PL_FP32);
    if (strcmp(which, "sparse") == 0)
        w.big = pld_window(pld_alloc_window_buffer(PL_SHAPE(SR, SC), PL_INT32, .name = "big"),
                           PL_SHAPE(SR, SC), PL_INT32);
    if (strcmp(which, "lines") == 0)
        w.many = pld_window(pld_alloc_window_buffer(PL_SHAPE(LR, SC), PL_INT32, .name = "many"),
                            PL_SHAPE(LR, SC), PL_INT32);
    if (strcmp(which, "huge") == 0)
        w.huge = pld_window(pld_alloc_window_buffer(PL_SHAPE(HR, HC), PL_INT32, .name = "huge"),
                            PL_SHAPE(HR, HC), PL_INT32);
    /* 2^55 bytes a copy: one copy's addresses fit the sparse room, two do not */
    if (strcmp(which, "vast") == 0 || strcmp(which, "vast2") == 0)
        w.huge = pld_window(
            pld_alloc_window_buffer(PL_SHAPE(1LL << 27, 1LL << 26), PL_INT32, .name = "vast"),
            PL_SHAPE(1LL << 27, 1LL << 26), PL_INT32);
    /* a second one on one device: its one copy would fit the room alone */
    if (strcmp(which, "vast2") == 0)
        pld_alloc_window_buffer(PL_SHAPE(1LL << 27, 1LL << 26), PL_INT32, .name = "vast2");
    for (int r = 0; r < P; r++) {
        struct rank_args a = {h, w, r, P};
        if (strcmp(which, "atomics") == 0)
            pld_dispatch(r, atomics_device, a);
        else if (strcmp(which, "strided") == 0)
            pld_dispatch(r, strided_device, a);
        else if (strcmp(which, "deadlock") == 0)
            pld_dispatch(r, deadlock_device, a);
        else if (strcmp(which, "sparse") == 0)
            pld_dispatch(r, sparse_device, a);
        else if (strcmp(which, "huge") == 0 || strcmp(which, "vast") == 0 ||
                 strcmp(which, "vast2") == 0)
            pld_dispatch(r, huge_device, a);
        else if (strcmp(which, "lines") == 0)
            pld_dispatch(r, lines_device, a);
        else if (strcmp(which, "killed") == 0)
            pld_dispatch(r, killed_device, a);
        else if (strcmp(which, "interrupt") == 0)
            pld_dispatch(r, interrupt_device, a);
        else if (strcmp(which, "spin") == 0)
            pld_dispatch(r, spin_device, a);
        else if (strcmp(which, "defer") == 0)
            pld_dispatch(r, defer_device, a);
        else
            pld_dispatch(r, bad_peer_device, a);
    }
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.no_cacheline_check = 1; /* small buffers back to back; hardware layout is not the point */
    int rc = pld_parse_args(&cfg, &argc, argv);
    static const char *const modes[] = {"atomics", "strided", "deadlock", "bad_peer",  "sparse",
                                        "huge",    "lines",   "killed",   "interrupt", "spin",
                                        "vast",    "vast2",   "defer"};
    size_t m = 0;
    while (argc == 2 && m < sizeof modes / sizeof modes[0] && strcmp(argv[1], modes[m]) != 0)
        m++;
    if (rc != 0 || argc != 2 || m == sizeof modes / sizeof modes[0]) {
        fprintf(stderr, "usage: backend_cases "
                        "atomics|strided|deadlock|bad_peer|sparse|huge|lines|killed|interrupt|spin|"
                        "vast|vast2|defer "
                        "[flags]\n");
        return 2;
    }
    which = argv[1];
    int P = cfg.ndevices;
    io.xf = pl_tensor_new(PL_SHAPE(P, 1, N), PL_FP32, "xf");
    io.xh = pl_tensor_new(PL_SHAPE(P, 1, N), PL_FP16, "xh");
    io.xi = pl_tensor_new(PL_SHAPE(P, 1, N), PL_INT32, "xi");
    io.y_f = pl_tensor_new(PL_SHAPE(1, N), PL_FP32, "y_f");
    io.y_h = pl_tensor_new(PL_SHAPE(1, N), PL_FP16, "y_h");
    io.y_i = pl_tensor_new(PL_SHAPE(1, N), PL_INT32, "y_i");
    io.y_2d = pl_tensor_new(PL_SHAPE(4, N), PL_FP32, "y_2d");
    io.src = pl_tensor_new(PL_SHAPE(P, ROWS, N), PL_FP32, "src");
    io.out_w = pl_tensor_new(PL_SHAPE(P, ROWS, N), PL_FP32, "out_w");
    io.out_g = pl_tensor_new(PL_SHAPE(P, ROWS, N), PL_FP32, "out_g");
    int sparse = strcmp(which, "sparse") == 0; /* only it needs the big ones */
    io.ival = pl_tensor_new(PL_SHAPE(P, 1, N), PL_INT32, "ival");
    io.blk = pl_tensor_new(PL_SHAPE(P, 4, 40), PL_INT32, "blk");
    io.out_big =
        pl_tensor_new(sparse ? PL_SHAPE(P, SR, SC) : PL_SHAPE(1, 1, 1), PL_INT32, "out_big");
    io.got_rl = pl_tensor_new(PL_SHAPE(P, 1, N), PL_INT32, "got_rl");
    io.got_g = pl_tensor_new(PL_SHAPE(P, 3, 48), PL_INT32, "got_g");
    int lines = strcmp(which, "lines") == 0;
    io.fill = pl_tensor_new(lines ? PL_SHAPE(P, LR, SC) : PL_SHAPE(1, 1, 1), PL_INT32, "fill");
    io.out_fill =
        pl_tensor_new(lines ? PL_SHAPE(P, LR, SC) : PL_SHAPE(1, 1, 1), PL_INT32, "out_fill");
    pl_fill_arange(io.fill, 1, 1);
    pl_fill_randn(io.xf, cfg.seed);
    pl_fill_randn(io.xh, cfg.seed + 1);
    pl_fill_arange(io.xi, -1000, 37);
    pl_fill_arange(io.src, 0, 1);
    pl_fill_arange(io.ival, -1000, 37);
    pl_fill_arange(io.blk, 1, 3);
    rc = pld_run(&cfg, host, &io);
    if (rc)
        return pld_exit_code(rc);
    int bad = strcmp(which, "atomics") == 0   ? check_atomics(&io, P)
              : strcmp(which, "strided") == 0 ? check_strided(&io, P)
              : sparse                        ? check_sparse(&io, P)
              : lines                         ? check_lines(&io, P)
                                              : 0;
    if (!bad)
        printf("OK\n");
    pl_tensor *all[] = {&io.xf,      &io.xh,     &io.xi,    &io.y_f,   &io.y_h,     &io.y_i,
                        &io.y_2d,    &io.src,    &io.out_w, &io.out_g, &io.ival,    &io.blk,
                        &io.out_big, &io.got_rl, &io.got_g, &io.fill,  &io.out_fill};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        pl_tensor_free(all[k]);
    return bad;
}
