/* shmem_kernels.c: what the two PEs of pldsim-shmem-perf run, size by
 * size, on pld's calls (docs/shmem-perf.md has the mapping):
 *   put, get     pld_tensor_put / pld_tensor_get of the size, which return
 *                once the bytes have landed: NVSHMEM's put_nbi + quiet, or
 *                getmem
 *   signal SET   pld_system_notify(.op = PLD_NOTIFY_SET), which pld orders
 *                after the PE's earlier puts (NVSHMEM's fence, or
 *                put_signal's own ordering)
 *   wait EQ      pld_system_wait(.cmp = PLD_WAIT_EQ)
 * The bandwidth and latency programs time PE 0 (both PEs with --bidir);
 * the ping-pongs both, PE 0 sending first, each round's flag value i + 1
 * after the flag is zeroed and the PEs meet, as the perftests do. */
#include "shmem.h"

/* What one PE is handed: its rank and its views of the windows. */
struct shmem_args {
    int pe;
    pld_buffer data, src;
    pld_dtensor flag, bar;
};

/* One put or get of `bytes` towards `peer`, staged through UB in pieces
 * of --chunk bytes (a 4 MiB staging tile would not fit). */
static void move(const struct shmem_args *a, int peer, int64_t bytes, int get)
{
    pld_dtensor dst = pld_window(a->data, PL_SHAPE(1, bytes), PL_INT8),
                src = pld_window(a->src, PL_SHAPE(1, bytes), PL_INT8);
    int64_t chunk = bytes < M.chunk ? bytes : M.chunk;
    if (get)
        pld_tensor_get(dst, .peer = peer, .src = src, .chunk_rows = 1, .chunk_cols = chunk);
    else
        pld_tensor_put(dst, .peer = peer, .src = src, .chunk_rows = 1, .chunk_cols = chunk);
}

/* One ping-pong round's send towards `peer`: the data (if any), then the
 * flag set to `value`. */
static void send(const struct shmem_args *a, int peer, int64_t bytes, int64_t value)
{
    if (M.prog->kind != SHMEM_PP_SIG && bytes > 0)
        move(a, peer, bytes, 0);
    pld_system_notify(a->flag, .peer = peer, .offsets = PL_IDX(0, 0), .value = value,
                      .op = PLD_NOTIFY_SET);
}

/* `iters` iterations of the program on `bytes`. */
static void iterations(const struct shmem_args *a, int64_t bytes, int64_t iters)
{
    int me = a->pe, peer = !me;
    enum shmem_kind kind = M.prog->kind;
    if (kind == SHMEM_PP_PUT || kind == SHMEM_PP_PUT_SIG || kind == SHMEM_PP_SIG) {
        for (int64_t i = 0; i < iters; i++) {
            if (me == 0)
                send(a, peer, bytes, i + 1);
            pld_system_wait(a->flag, .offsets = PL_IDX(0, 0), .expected = i + 1,
                            .cmp = PLD_WAIT_EQ);
            if (me == 1)
                send(a, peer, bytes, i + 1);
        }
        return;
    }
    if (me == 0 || M.bidir)
        for (int64_t i = 0; i < iters; i++)
            move(a, peer, bytes, kind == SHMEM_GET_BW || kind == SHMEM_GET_LAT);
}

/* The flag back to 0 on both PEs, then a barrier: the perftests' memset
 * and barrier_all before each loop. */
static void zero_flag(const struct shmem_args *a)
{
    pld_system_notify(a->flag, .peer = a->pe, .offsets = PL_IDX(0, 0), .value = 0,
                      .op = PLD_NOTIFY_SET);
    pld_tensor_barrier(a->bar);
}

static void sweep_kernel(const struct shmem_args *a)
{
    for (int k = 0; k < M.nsizes; k++) {
        int64_t bytes = M.prog->kind == SHMEM_PP_SIG ? 0 : M.sizes[k];
        pld_tensor_barrier(a->bar);
        zero_flag(a);
        iterations(a, bytes, M.warmup);
        pld_tensor_barrier(a->bar);
        zero_flag(a);
        double t0 = pld_time();
        iterations(a, bytes, M.iters);
        M.elapsed[a->pe][k] = pld_time() - t0;
    }
    pld_tensor_barrier(a->bar);
}

static void per_device(const struct shmem_args *a)
{
    pl_incore(sweep_kernel, a);
}

void shmem_host(const void *unused)
{
    (void)unused;
    /* whole 64-byte lines, so that no two buffers share one (pypto#2800) */
    int64_t bytes = (M.maxb + 63) / 64 * 64;
    pld_buffer data = pld_alloc_window_buffer(PL_SHAPE(1, bytes), PL_INT8, .name = "shmem_dest");
    pld_buffer src = pld_alloc_window_buffer(PL_SHAPE(1, bytes), PL_INT8, .name = "shmem_source");
    pld_buffer flag = pld_alloc_window_buffer(64, .name = "shmem_flag");
    pld_buffer bar = pld_alloc_window_buffer(64, .name = "barrier");
    for (int pe = 0; pe < 2; pe++) {
        struct shmem_args a = {
            .pe = pe,
            .data = data,
            .src = src,
            .flag = pld_window(flag, PL_SHAPE(1, 16), PL_INT32),
            .bar = pld_window(bar, PL_SHAPE(2, 1), PL_INT32),
        };
        pld_dispatch(pe, per_device, a);
    }
}
