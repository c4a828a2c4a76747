/* check_groups.c: communication groups (pld_group_*, .group of
 * pld_alloc_window_buffer): who is in a group, what rank and nranks are
 * inside it, that peers are group ranks, that two groups' windows never
 * alias (also on a rank in both), collectives inside a group, host
 * builtins dispatched to the group only, and the errors, each one message
 * naming the user's line, the rank and the op.  And windows kept from run
 * to run (pld_windows): data and signal cells survive, a reset zeroes
 * them, the domain is allocated once. */
#include "checktools.h"

#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 64, MAXP = 8 };

/* What the kernels saw: rank and nranks of their context, per world rank. */
static int seen_rank[MAXP], seen_nranks[MAXP], seen_rank_b[MAXP];

enum mode {
    SWAP_TWO_GROUPS,   /* upstream's test_l3_multi_group, on 3 ranks */
    ALLREDUCE_IN_GROUP /* groups {1, 2, 3} of 4 ranks: allreduce in a kernel and from the host */
};

struct swap_args {
    pl_tensor in, out;
    pld_dtensor scratch, sig;
    int peer, me; /* me: the world rank dispatched to */
};

static void swap_kernel(pl_tensor in, pl_tensor out, pld_dtensor scratch, pld_dtensor sig, int peer,
                        int me)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(scratch);
    /* device 1 is in both groups: rank 1 of A, rank 0 of B */
    int b = strcmp(scratch.name, "scratch_b") == 0;
    (b ? seen_rank_b : seen_rank)[me] = pld_rank(ctx);
    seen_nranks[me] = pld_nranks(ctx);
    pl_store(pl_load(in, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), scratch);
    pld_system_notify(sig, .peer = peer, .offsets = PL_IDX(0), .value = 1,
                      .op = PLD_NOTIFY_ATOMIC_ADD);
    pld_system_wait(sig, .offsets = PL_IDX(0), .expected = 1, .cmp = PLD_WAIT_GE);
    pl_store(pld_tile_remote_load(scratch, .peer = peer, .offsets = PL_IDX(0, 0),
                                  .shape = PL_SHAPE(1, SIZE)),
             PL_IDX(0, 0), out);
}

static void swap_rank(const struct swap_args *a)
{
    pl_incore(swap_kernel, a->in, a->out, a->scratch, a->sig, a->peer, a->me);
}

struct ar_args {
    pl_tensor in;
    pld_dtensor data, sig;
    int me;
};

static void ar_kernel(pl_tensor in, pld_dtensor data, pld_dtensor sig, int me)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    seen_rank[me] = pld_rank(ctx);
    seen_nranks[me] = pld_nranks(ctx);
    pl_store(pl_load(in, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), data);
    pld_tensor_allreduce(data, sig);
}

static void ar_rank(const struct ar_args *a)
{
    pl_incore(ar_kernel, a->in, a->data, a->sig, a->me);
}

struct copy_args {
    pld_dtensor data;
    pl_tensor out;
};

static void copy_kernel(pld_dtensor data, pl_tensor out)
{
    pl_store(pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE)), PL_IDX(0, 0), out);
}

static void copy_rank(const struct copy_args *a)
{
    pl_incore(copy_kernel, a->data, a->out);
}

struct host_args {
    enum mode mode;
    pl_tensor in, out_a, out_b;
};

static int64_t seen_world, seen_size_a, seen_size_b; /* what the host saw */

static void host(const struct host_args *h)
{
    seen_world = pld_world_size();
    if (h->mode == SWAP_TWO_GROUPS) {
        pld_group a = pld_group_range(0, 2);
        int b_ranks[] = {2, 1}; /* any order: group ranks follow world order */
        pld_group b = pld_group_of(2, b_ranks);
        seen_size_a = pld_group_size(a);
        seen_size_b = pld_group_size(b);
        pld_buffer sa = pld_alloc_window_buffer(SIZE * 4, .name = "scratch_a", .group = a);
        pld_buffer ga = pld_alloc_window_buffer(4, .name = "signal_a", .group = a);
        pld_buffer sb = pld_alloc_window_buffer(SIZE * 4, .name = "scratch_b", .group = b);
        pld_buffer gb = pld_alloc_window_buffer(4, .name = "signal_b", .group = b);
        for (int r = 0; r < 2; r++) {
            struct swap_args s = {pl_at(h->in, r),
                                  pl_at(h->out_a, r),
                                  pld_window(sa, PL_SHAPE(1, SIZE), PL_FP32),
                                  pld_window(ga, PL_SHAPE(1), PL_INT32),
                                  1 - r,
                                  r};
            pld_dispatch(r, swap_rank, s);
        }
        for (int r = 1; r < 3; r++) {
            struct swap_args s = {pl_at(h->in, r),
                                  pl_at(h->out_b, r),
                                  pld_window(sb, PL_SHAPE(1, SIZE), PL_FP32),
                                  pld_window(gb, PL_SHAPE(1), PL_INT32),
                                  2 - r,
                                  r};
            pld_dispatch(r, swap_rank, s);
        }
        return;
    }
    /* ALLREDUCE_IN_GROUP: a kernel allreduce in group {1, 2, 3}, then a
     * host allreduce on the same window, which only the group runs */
    pld_group g = pld_group_range(1, 4);
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data", .group = g);
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(3, 1), PL_INT32, .name = "sig", .group = g);
    pld_dtensor data = pld_window(d, PL_SHAPE(1, SIZE), PL_FP32);
    pld_dtensor sig = pld_window(s, PL_SHAPE(3, 1), PL_INT32);
    for (int r = 1; r < 4; r++) {
        struct ar_args a = {pl_at(h->in, r), data, sig, r};
        pld_dispatch(r, ar_rank, a);
    }
    pld_tensor_allreduce(data, sig); /* host form: a builtin on ranks 1..3 */
    for (int r = 1; r < 4; r++) {
        struct copy_args c = {data, pl_at(h->out_a, r)};
        pld_dispatch(r, copy_rank, c);
    }
}

static int run_p(int P, struct host_args *h, char **err)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.ndevices = P;
    for (int r = 0; r < P; r++)
        cfg.device_ids[r] = r;
    capture_stderr_begin();
    int rc = pld_run(&cfg, host, h);
    *err = capture_stderr_end();
    return rc;
}

static float at(pl_tensor t, int r, int j)
{
    return ((float *)t.data)[r * SIZE + j];
}

START_TEST(two_overlapping_groups_swap_without_aliasing)
{
    struct host_args h = {.mode = SWAP_TWO_GROUPS,
                          .in = pl_tensor_new(PL_SHAPE(3, 1, SIZE), PL_FP32, "inputs"),
                          .out_a = pl_tensor_new(PL_SHAPE(3, 1, SIZE), PL_FP32, "outputs_a"),
                          .out_b = pl_tensor_new(PL_SHAPE(3, 1, SIZE), PL_FP32, "outputs_b")};
    for (int r = 0; r < 3; r++)
        for (int j = 0; j < SIZE; j++)
            ((float *)h.in.data)[r * SIZE + j] = 10.0f + (float)r;
    char *err;
    int rc = run_p(3, &h, &err);
    ck_assert_msg(rc == 0, "run failed: %s", err);
    ck_assert_int_eq(seen_world, 3); /* world_size is the world's, also with groups */
    ck_assert_int_eq(seen_size_a, 2);
    ck_assert_int_eq(seen_size_b, 2);
    for (int j = 0; j < SIZE; j++) {
        ck_assert_float_eq(at(h.out_a, 0, j), 11.0f);
        ck_assert_float_eq(at(h.out_a, 1, j), 10.0f);
        ck_assert_float_eq(at(h.out_a, 2, j), 0.0f);
        ck_assert_float_eq(at(h.out_b, 0, j), 0.0f);
        ck_assert_float_eq(at(h.out_b, 1, j), 12.0f);
        ck_assert_float_eq(at(h.out_b, 2, j), 11.0f);
    }
    ck_assert_int_eq(seen_rank[0], 0);
    ck_assert_int_eq(seen_rank[1], 1);
    ck_assert_int_eq(seen_rank_b[1], 0);
    ck_assert_int_eq(seen_rank_b[2], 1);
    ck_assert_int_eq(seen_nranks[0], 2);
    ck_assert_int_eq(seen_nranks[2], 2);
    free(err);
    pl_tensor_free(&h.in);
    pl_tensor_free(&h.out_a);
    pl_tensor_free(&h.out_b);
}
END_TEST

START_TEST(allreduce_inside_a_group_sums_its_members_only)
{
    struct host_args h = {.mode = ALLREDUCE_IN_GROUP,
                          .in = pl_tensor_new(PL_SHAPE(4, 1, SIZE), PL_FP32, "inputs"),
                          .out_a = pl_tensor_new(PL_SHAPE(4, 1, SIZE), PL_FP32, "outputs")};
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < SIZE; j++)
            ((float *)h.in.data)[r * SIZE + j] = (float)(100 * r + j);
    char *err;
    int rc = run_p(4, &h, &err);
    ck_assert_msg(rc == 0, "run failed: %s", err);
    for (int j = 0; j < SIZE; j++) {
        /* kernel allreduce: 600 + 3j; the host's again over 3 ranks: 1800 + 9j */
        ck_assert_float_eq(at(h.out_a, 0, j), 0.0f);
        for (int r = 1; r < 4; r++)
            ck_assert_float_eq(at(h.out_a, r, j), (float)(1800 + 9 * j));
    }
    for (int r = 1; r < 4; r++) {
        ck_assert_int_eq(seen_rank[r], r - 1);
        ck_assert_int_eq(seen_nranks[r], 3);
    }
    free(err);
    pl_tensor_free(&h.in);
    pl_tensor_free(&h.out_a);
}
END_TEST

/* ---- errors ---- */

enum misuse {
    GROUP_LARGER_THAN_WORLD,
    GROUP_EMPTY,
    GROUP_DUPLICATE,
    GROUP_RANK_OUT_OF_WORLD,
    PEER_OUTSIDE_GROUP,
    NOT_A_MEMBER,
    COLLECTIVE_MIXES_GROUPS,
    GROUP_IN_KERNEL,
};

static int bad_line;

struct bad_rank_args {
    pld_dtensor data, sig, other;
    enum misuse what;
};

static void bad_kernel(pld_dtensor data, pld_dtensor sig, pld_dtensor other, enum misuse what)
{
    switch (what) {
    case PEER_OUTSIDE_GROUP:
        bad_line = __LINE__ + 1;
        pld_system_notify(sig, .peer = 2, .offsets = PL_IDX(0, 0), .value = 1,
                          .op = PLD_NOTIFY_ATOMIC_ADD);
        break;
    case NOT_A_MEMBER:
        bad_line = __LINE__ + 1;
        (void)pld_get_comm_ctx(data);
        break;
    case COLLECTIVE_MIXES_GROUPS:
        bad_line = __LINE__ + 1;
        pld_tensor_allreduce(data, other);
        break;
    case GROUP_IN_KERNEL:
        bad_line = __LINE__ + 1;
        (void)pld_group_range(0, 1);
        break;
    default:
        break;
    }
    (void)sig;
}

static void bad_rank(const struct bad_rank_args *a)
{
    pl_incore(bad_kernel, a->data, a->sig, a->other, a->what);
}

struct bad_host_args {
    enum misuse what;
};

static void bad_host(const struct bad_host_args *h)
{
    int dup[] = {1, 1}, out[] = {0, 3};
    switch (h->what) {
    case GROUP_LARGER_THAN_WORLD:
        bad_line = __LINE__ + 1;
        (void)pld_group_range(0, 4);
        return;
    case GROUP_EMPTY:
        bad_line = __LINE__ + 1;
        (void)pld_group_range(2, 2);
        return;
    case GROUP_DUPLICATE:
        bad_line = __LINE__ + 1;
        (void)pld_group_of(2, dup);
        return;
    case GROUP_RANK_OUT_OF_WORLD:
        bad_line = __LINE__ + 1;
        (void)pld_group_of(2, out);
        return;
    default:
        break;
    }
    pld_group g = pld_group_range(1, 3);
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data", .group = g);
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "sig", .group = g);
    pld_buffer o = pld_alloc_window_buffer(PL_SHAPE(3, 1), PL_INT32, .name = "world_sig");
    struct bad_rank_args a = {pld_window(d, PL_SHAPE(1, SIZE), PL_FP32),
                              pld_window(s, PL_SHAPE(2, 1), PL_INT32),
                              pld_window(o, PL_SHAPE(3, 1), PL_INT32), h->what};
    /* rank 0 is outside the group: only NOT_A_MEMBER goes there */
    pld_dispatch(h->what == NOT_A_MEMBER ? 0 : 1, bad_rank, a);
}

static char *run_bad(enum misuse what, int *code)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.ndevices = 3;
    for (int r = 0; r < 3; r++)
        cfg.device_ids[r] = r;
    struct bad_host_args h = {what};
    capture_stderr_begin();
    int rc = pld_run(&cfg, bad_host, &h);
    char *err = capture_stderr_end();
    *code = pld_exit_code(rc);
    return err;
}

static const struct {
    enum misuse what;
    const char *who, *op, *text;
} bad_cases[] = {
    {GROUP_LARGER_THAN_WORLD, "host", "pld_group_range",
     "devices [0, 4) are more than the world: device 3 out of range [0, 3)"},
    {GROUP_EMPTY, "host", "pld_group_range",
     "devices [2, 2): expected 0 <= first < end (a group has at least one device)"},
    {GROUP_DUPLICATE, "host", "pld_group_of", "device 1 is listed twice"},
    {GROUP_RANK_OUT_OF_WORLD, "host", "pld_group_of", "device 3 out of range [0, 3)"},
    {PEER_OUTSIDE_GROUP, "rank 1", "pld_system_notify",
     "peer 2 out of range [0, 2) of the comm group of 'sig' (devices 1, 2)"},
    {NOT_A_MEMBER, "rank 0", "pld_get_comm_ctx",
     "window view 'data' belongs to the comm group of devices 1, 2; rank 0 is not in it"},
    {COLLECTIVE_MIXES_GROUPS, "rank 1", "pld_tensor_allreduce",
     "signal 'world_sig' is in the comm group of the whole world but the call's is devices 1, 2"},
    {GROUP_IN_KERNEL, "rank 1", "pld_group_range", "it is host-only"},
};

START_TEST(group_misuse_is_one_message)
{
    int code;
    char *err = run_bad(bad_cases[_i].what, &code);
    char head[256];
    snprintf(head, sizeof head, "%s:%d: %s: %s: ", __FILE__, bad_line, bad_cases[_i].who,
             bad_cases[_i].op);
    ck_assert_contains(err, head);
    ck_assert_contains(err, bad_cases[_i].text);
    ck_assert_msg(count_error_lines(err) == 1, "expected one line, got:\n%s", err);
    ck_assert_int_eq(code, 3);
    free(err);
}
END_TEST

/* ---- kept windows (pld_windows) ---- */

static int64_t kept_size = SIZE; /* elements of 'acc' (a later run may change it) */

struct keep_rank_args {
    pl_tensor x, out, count;
    pld_dtensor acc, sig;
    int me;
};

/* acc += x in the window; one self-notify on sig[me]; both read back */
static void keep_kernel(pl_tensor x, pl_tensor out, pl_tensor count, pld_dtensor acc,
                        pld_dtensor sig, int me)
{
    pl_tile a = pl_add(pl_load(acc, PL_IDX(0, 0), PL_SHAPE(1, SIZE)),
                       pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE)));
    pl_store(a, PL_IDX(0, 0), acc);
    pl_store(a, PL_IDX(0, 0), out);
    pld_system_notify(sig, .peer = me, .offsets = PL_IDX(me, 0), .value = 1,
                      .op = PLD_NOTIFY_ATOMIC_ADD);
    pl_write(count, PL_IDX(0, 0), pl_read(sig, PL_IDX(me, 0)));
}

static void keep_rank(const struct keep_rank_args *a)
{
    pl_incore(keep_kernel, a->x, a->out, a->count, a->acc, a->sig, a->me);
}

struct keep_host_args {
    pl_tensor x, out, count;
};

static void keep_host(const struct keep_host_args *h)
{
    pld_buffer acc = pld_alloc_window_buffer(PL_SHAPE(1, kept_size), PL_FP32, .name = "acc");
    pld_buffer sig = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "sig");
    for (int r = 0; r < 2; r++) {
        struct keep_rank_args a = {pl_at(h->x, r),
                                   pl_at(h->out, r),
                                   pl_at(h->count, r),
                                   pld_window(acc, PL_SHAPE(1, SIZE), PL_FP32),
                                   pld_window(sig, PL_SHAPE(2, 1), PL_INT32),
                                   r};
        pld_dispatch(r, keep_rank, a);
    }
}

/* Runs keep_host on the threads backend (several runs in one process),
 * passing the store through its serialised bytes between runs as
 * pldsim-py does between its processes. */
static int keep_run(pld_windows **w, int reset, struct keep_host_args *h, char **err)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.backend = "threads";
    cfg.no_cacheline_check = 1;
    if (w) {
        unsigned char *bytes;
        size_t len;
        ck_assert_int_eq(pld_windows_save(*w, &bytes, &len), 0);
        pld_windows *copy = pld_windows_new();
        ck_assert_int_eq(pld_windows_load(copy, bytes, len), 0);
        free(bytes);
        pld_windows_free(*w);
        *w = copy;
        cfg.keep_windows = *w;
        cfg.reset_kept_windows = reset;
    }
    capture_stderr_begin();
    int rc = pld_run(&cfg, keep_host, h);
    *err = capture_stderr_end();
    return rc;
}

static struct keep_host_args keep_args(void)
{
    struct keep_host_args h = {pl_tensor_new(PL_SHAPE(2, 1, SIZE), PL_FP32, "x"),
                               pl_tensor_new(PL_SHAPE(2, 1, SIZE), PL_FP32, "out"),
                               pl_tensor_new(PL_SHAPE(2, 1, 1), PL_INT32, "count")};
    for (int i = 0; i < 2 * SIZE; i++)
        ((float *)h.x.data)[i] = (float)(i + 1);
    return h;
}

START_TEST(kept_windows_keep_data_and_signal_cells_unless_reset)
{
    for (int reset = 0; reset < 2; reset++) {
        struct keep_host_args h = keep_args();
        pld_windows *w = pld_windows_new();
        for (int k = 1; k <= 3; k++) {
            char *err;
            int rc = keep_run(&w, reset, &h, &err);
            ck_assert_msg(rc == 0, "run %d failed: %s", k, err);
            free(err);
            int times = reset ? 1 : k; /* runs whose additions the window holds */
            for (int i = 0; i < 2 * SIZE; i++)
                ck_assert_float_eq(((float *)h.out.data)[i], (float)(times * (i + 1)));
            for (int r = 0; r < 2; r++)
                ck_assert_int_eq(((int32_t *)h.count.data)[r], times);
            pld_run_stats st;
            pld_last_run_stats(&st);
            ck_assert_int_eq(st.domains, 1);
            ck_assert_int_eq(st.domains_allocated, k == 1);
        }
        /* one allocation of the world's window, kept for the later runs */
        ck_assert_int_eq(pld_windows_allocations(w), 1);
        pld_windows_free(w);
        pl_tensor_free(&h.x);
        pl_tensor_free(&h.out);
        pl_tensor_free(&h.count);
    }
}
END_TEST

START_TEST(without_a_store_every_run_allocates_fresh_windows)
{
    struct keep_host_args h = keep_args();
    for (int k = 0; k < 2; k++) {
        char *err;
        ck_assert_int_eq(keep_run(NULL, 0, &h, &err), 0);
        free(err);
        ck_assert_float_eq(((float *)h.out.data)[0], 1.0f);
        pld_run_stats st;
        pld_last_run_stats(&st);
        ck_assert_int_eq(st.domains_allocated, 1);
    }
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.out);
    pl_tensor_free(&h.count);
}
END_TEST

START_TEST(a_kept_window_that_changes_size_is_refused)
{
    struct keep_host_args h = keep_args();
    pld_windows *w = pld_windows_new();
    char *err;
    ck_assert_int_eq(keep_run(&w, 0, &h, &err), 0);
    free(err);
    kept_size = 2 * SIZE;
    int rc = keep_run(&w, 0, &h, &err);
    ck_assert_int_eq(pld_exit_code(rc), 3);
    ck_assert_contains(err, ": host: pld_alloc_window_buffer: window buffer 'acc' is kept from an "
                            "earlier run with 256 bytes on 2 ranks; this run allocates 512 bytes "
                            "on 2: a kept window keeps its size");
    ck_assert_msg(count_error_lines(err) == 1, "expected one line, got:\n%s", err);
    free(err);
    pld_windows_free(w);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.out);
    pl_tensor_free(&h.count);
}
END_TEST

START_TEST(bytes_that_are_not_a_store_are_refused)
{
    pld_windows *w = pld_windows_new();
    const unsigned char junk[] = "not a store";
    ck_assert_int_eq(pld_windows_load(w, junk, sizeof junk), PLD_EINVAL);
    unsigned char *bytes;
    size_t len;
    ck_assert_int_eq(pld_windows_save(w, &bytes, &len), 0);
    ck_assert_int_eq(pld_windows_load(w, bytes, len - 1), PLD_EINVAL); /* truncated */
    ck_assert_int_eq(pld_windows_load(w, bytes, len), 0);
    free(bytes);
    pld_windows_free(w);
    pld_windows_free(NULL);
}
END_TEST

/* Eight groups of two devices at P = 16, each with a 1 MiB buffer: a
 * group's window has a copy for each of its members, not for every rank
 * of the world (which made a program of node groups quadratic in P). */
enum { PAIRS = 8, PAIR_N = 1 << 18 };
static float pair_sum[2 * PAIRS];

struct pair_args {
    pld_dtensor data, sig;
    int me;
};

static void pair_kernel(const struct pair_args *a)
{
    pl_write(a->data, PL_IDX(0, 0), a->me);
    pl_write(a->data, PL_IDX(0, PAIR_N - 1), a->me);
    pld_tensor_allreduce(a->data, a->sig);
    pair_sum[a->me] =
        (float)(pl_read(a->data, PL_IDX(0, 0)) + pl_read(a->data, PL_IDX(0, PAIR_N - 1)));
}

static void pair_device(const struct pair_args *a)
{
    pl_incore(pair_kernel, a);
}

static void pairs_host(const void *unused)
{
    (void)unused;
    for (int k = 0; k < PAIRS; k++) {
        pld_group g = pld_group_range(2 * k, 2 * k + 2);
        pld_buffer data =
            pld_alloc_window_buffer(PL_SHAPE(1, PAIR_N), PL_FP32, .name = "pair", .group = g);
        pld_buffer sig = pld_alloc_window_buffer((int64_t)64, .name = "pair_sig", .group = g);
        for (int i = 0; i < 2; i++) {
            struct pair_args a = {pld_window(data, PL_SHAPE(1, PAIR_N), PL_FP32),
                                  pld_window(sig, PL_SHAPE(2, 1), PL_INT32), 2 * k + i};
            pld_dispatch(2 * k + i, pair_device, a);
        }
    }
}

START_TEST(a_group_window_has_a_copy_per_member_only)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.ndevices = 2 * PAIRS;
    for (int r = 0; r < 2 * PAIRS; r++)
        cfg.device_ids[r] = r;
    capture_stderr_begin();
    int rc = pld_run(&cfg, pairs_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_msg(rc == 0, "run failed: %s", err);
    free(err);
    for (int r = 0; r < 2 * PAIRS; r++) /* each pair's own sum, at both ends */
        ck_assert_float_eq(pair_sum[r], 2.0f * (float)(4 * (r / 2) + 1));
    pld_run_stats st;
    pld_last_run_stats(&st);
    uint64_t want = (uint64_t)PAIRS * 2 * ((uint64_t)PAIR_N * 4 + 64);
    ck_assert_msg(st.window_bytes == want,
                  "the windows took %llu bytes; expected %llu (2 copies of each group's buffers)",
                  (unsigned long long)st.window_bytes, (unsigned long long)want);
}
END_TEST

static Suite *groups_suite(void)
{
    Suite *s = suite_create("groups");
    TCase *t = tcase_create("groups");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, two_overlapping_groups_swap_without_aliasing);
    tcase_add_test(t, allreduce_inside_a_group_sums_its_members_only);
    tcase_add_test(t, a_group_window_has_a_copy_per_member_only);
    tcase_add_loop_test(t, group_misuse_is_one_message, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    suite_add_tcase(s, t);
    TCase *k = tcase_create("kept windows");
    tcase_set_timeout(k, 60);
    tcase_add_test(k, kept_windows_keep_data_and_signal_cells_unless_reset);
    tcase_add_test(k, without_a_store_every_run_allocates_fresh_windows);
    tcase_add_test(k, a_kept_window_that_changes_size_is_refused);
    tcase_add_test(k, bytes_that_are_not_a_store_are_refused);
    suite_add_tcase(s, k);
    return s;
}

int main(void)
{
    return run_suite(groups_suite());
}
