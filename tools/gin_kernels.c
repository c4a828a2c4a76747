/* gin_kernels.c: what the two ranks of pldsim-gin-perf run, size by size:
 * the suite's warm-up, a barrier, then its timed iterations, on pld's
 * calls (docs/gin-perf.md has the mapping):
 *   put          pld_tensor_put of the size, from my copy of a source
 *                buffer into the peer's copy of the destination (the
 *                suite uses one buffer at the same offset for both; with
 *                --gin_bd that is a race, which pld's detector reports);
 *                it returns once the bytes have landed, so it is its own
 *                flush
 *   put_signal   the put, then pld_system_notify (add 1) of the peer's
 *                signal, which pld orders after the put
 *   get          pld_tensor_get of the size from the peer's copy of the
 *                source into my copy of the destination
 *   signal       pld_system_notify (add 1) alone
 * Ping-pong: rank 1 starts; each side does the op towards the other, then
 * waits (>=) for the other's notify of this round. */
#include "gin.h"

/* What one rank is handed: its rank and its views of the windows. */
struct gin_args {
    int rank;
    pld_buffer data, src;
    pld_dtensor sig, bar;
};

/* The kernel's SDMA session, with --sdma (made once per kernel). */
static pld_async_session session[2];

/* One iteration's operation towards `peer`, on `bytes` of the buffer. */
static void one_op(const struct gin_args *a, int peer, int64_t bytes)
{
    enum gin_op op = G.op;
    if (op == GIN_PUT || op == GIN_PUT_SIGNAL || op == GIN_GET) {
        pld_dtensor dst = pld_window(a->data, PL_SHAPE(1, bytes), PL_INT8),
                    src = pld_window(a->src, PL_SHAPE(1, bytes), PL_INT8);
        /* through UB in pieces of --chunk bytes (a 4 MiB staging tile
         * would not fit), or on an SDMA engine and waited at once, as the
         * suite's flush waits for each op */
        int64_t chunk = bytes < G.chunk ? bytes : G.chunk;
        if (op == GIN_GET)
            pld_tensor_get(dst, .peer = peer, .src = src, .chunk_rows = 1, .chunk_cols = chunk);
        else if (G.sdma)
            pld_system_wait_async_event(
                pld_tensor_put_async(dst, .peer = peer, .src = src, .session = session[a->rank]),
                session[a->rank]);
        else
            pld_tensor_put(dst, .peer = peer, .src = src, .chunk_rows = 1, .chunk_cols = chunk);
    }
    if (op == GIN_PUT_SIGNAL || op == GIN_SIGNAL)
        pld_system_notify(a->sig, .peer = peer, .offsets = PL_IDX(0, 0), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
}

/* `iters` iterations of the program from round trip `*trips` on (ping-pong
 * waits count the peer's notifies since the run began). */
static void iterations(const struct gin_args *a, int64_t bytes, int iters, int64_t *trips)
{
    int me = a->rank, peer = me ^ 1;
    if (!G.prog->ping_pong) {
        if (me == 0 || (G.bidir && G.prog->throughput))
            for (int i = 0; i < iters; i++)
                one_op(a, peer, bytes);
        return;
    }
    for (int i = 0; i < iters; i++) {
        int64_t want = ++*trips;
        if (me == 1)
            one_op(a, peer, bytes);
        pld_system_wait(a->sig, .offsets = PL_IDX(0, 0), .expected = want, .cmp = PLD_WAIT_GE);
        if (me == 0)
            one_op(a, peer, bytes);
    }
}

static void sweep_kernel(const struct gin_args *a)
{
    int64_t trips = 0;
    if (G.sdma)
        session[a->rank] = pld_system_async_session();
    for (int k = 0; k < G.nsizes; k++) {
        int64_t bytes = G.prog->fixed_op == GIN_SIGNAL ? 0 : G.sizes[k];
        pld_tensor_barrier(a->bar);
        iterations(a, bytes, G.warmup, &trips);
        pld_tensor_barrier(a->bar);
        double t0 = pld_time();
        iterations(a, bytes, G.iters, &trips);
        double dt = pld_time() - t0;
        if (a->rank == 0)
            G.elapsed[k] = dt;
        else
            G.elapsed1[k] = dt;
    }
    pld_tensor_barrier(a->bar);
}

static void per_device(const struct gin_args *a)
{
    pl_incore(sweep_kernel, a);
}

void gin_host(const void *unused)
{
    (void)unused;
    /* whole 64-byte lines, so that no two buffers share one (pypto#2800) */
    int64_t bytes = (G.maxb + 63) / 64 * 64;
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, bytes), PL_INT8, .name = "gin_buffer");
    pld_buffer src = pld_alloc_window_buffer(PL_SHAPE(1, bytes), PL_INT8, .name = "gin_source");
    pld_buffer sig = pld_alloc_window_buffer(64, .name = "gin_signal");
    pld_buffer bar = pld_alloc_window_buffer(64, .name = "barrier");
    for (int r = 0; r < 2; r++) {
        struct gin_args a = {
            .rank = r,
            .data = data,
            .src = src,
            .sig = pld_window(sig, PL_SHAPE(1, 16), PL_INT32),
            .bar = pld_window(bar, PL_SHAPE(2, 1), PL_INT32),
        };
        pld_dispatch(r, per_device, a);
    }
}
