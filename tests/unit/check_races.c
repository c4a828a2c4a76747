/* check_races.c: the race detector catches the seeded bugs that upstream's
 * sequentially consistent simulator lets pass, and stays quiet on correct
 * code (every shipped step runs with --races=error in check_tutorials).
 *  1. step 04 builtin with the barrier removed: the remote_load races with
 *     the neighbour's store;
 *  2. step 05 store mode with the barrier moved after the read: the local
 *     load races with the neighbour's remote_store;
 *  3. a later hand-rolled barrier reusing the same cells with a stale
 *     threshold (Ge 2 when they already hold 2) passes at once, so the load
 *     after it races with the neighbour's new store;
 *  4. the correct versions of all three: no report.
 * Then one scenario per way the first detector missed a race (issue 18):
 *  5. more than 512 accesses of the copy between the pair;
 *  6. a region of more than 512 rows between the pair;
 *  7. two ranks storing into the same host tensor;
 *  8. a wait whose condition held without the notify it ran after (Ge 0):
 *     it orders nothing; with the notify needed (Ge 1) there is no race.
 * And the put_async hazards (issue 28): a put_async reads its source and
 * writes its destination until its event is waited, so
 *  9. a store into its source before the wait races with it;
 * 10. a second put_async into the same region before the first's wait too;
 * 11. the peer's store into the destination while it is in flight races,
 *     even when the peer's ack then orders it before the wait;
 * 12. waited, then notified: no race.
 * And updates of one signal cell whose order changes its value (issue 41,
 * class 5), at P = 3, on the calibrated model and with dispatch_lat=0:
 * 13. a forged barrier arrival: rank 1 Sets rank 0's cell for rank 2's
 *     arrival while rank 2's AtomicAdd arrives too, the Set landing first;
 *     rank 2, late, forges rank 1's, the Set landing last;
 * 14. two Sets of other values;
 * 15. no report for two AtomicAdds, two Sets of one value, or a Set that a
 *     wait which saw the first orders after it. */
#include "checktools.h"

#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 64 };
enum scenario { NO_BARRIER, BARRIER_AFTER_READ, STALE_SIGNAL, CORRECT };

static enum scenario S;
static int line_a, line_b; /* the two racing lines */

static void hand_barrier(pld_dtensor sig, int me, int nr, int expected)
{
    for (int p = 0; p < nr; p++)
        if (p != me)
            pld_system_notify(sig, .peer = p, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
    for (int s = 0; s < nr; s++)
        if (s != me)
            pld_system_wait(sig, .offsets = PL_IDX(s, 0), .expected = expected, .cmp = PLD_WAIT_GE);
}

static void kernel(pl_tensor x, pl_tensor y, pld_dtensor data, pld_dtensor sig)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx), nr = pld_nranks(ctx), right = (me + 1) % nr;
    pl_tile t = pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
    // clang-format off
    switch (S) {
    case NO_BARRIER: /* step 04 builtin without pld_tensor_barrier */
        line_a = __LINE__; pl_store(t, PL_IDX(0, 0), data);
        line_b = __LINE__; t = pld_tile_remote_load(data, .peer = right, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        break;
    case BARRIER_AFTER_READ: /* step 05 store mode, barrier after the read */
        line_a = __LINE__; pld_tile_remote_store(t, data, .peer = right, .offsets = PL_IDX(0, 0));
        line_b = __LINE__; t = pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
        pld_tensor_barrier(sig);
        break;
    case STALE_SIGNAL: /* a barrier on the same cells with a stale threshold */
        pl_store(t, PL_IDX(0, 0), data);
        hand_barrier(sig, me, nr, 1);
        t = pld_tile_remote_load(data, .peer = right, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        hand_barrier(sig, me, nr, 2); /* everyone has read */
        for (int k = 0; k < 10 * me; k++) /* higher ranks are slower to write */
            (void)pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
        line_a = __LINE__; pl_store(pl_add(t, 1.0), PL_IDX(0, 0), data);
        hand_barrier(sig, me, nr, 2); /* stale: the cells already hold 2, so it passes at once */
        line_b = __LINE__; t = pld_tile_remote_load(data, .peer = right, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        break;
    case CORRECT: /* the same three patterns, ordered */
        pl_store(t, PL_IDX(0, 0), data);
        hand_barrier(sig, me, nr, 1);
        t = pld_tile_remote_load(data, .peer = right, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        hand_barrier(sig, me, nr, 2); /* everyone has read: a higher threshold */
        pl_store(pl_add(t, 1.0), PL_IDX(0, 0), data);
        hand_barrier(sig, me, nr, 3);
        t = pld_tile_remote_load(data, .peer = right, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        break;
    }
    // clang-format on
    pl_store(t, PL_IDX(0, 0), y);
}

struct args {
    pl_tensor x, y;
    pld_dtensor data, sig;
};

static void per_device(const struct args *a)
{
    pl_incore(kernel, a->x, a->y, a->data, a->sig);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct args a = {pl_at(h->x, r), pl_at(h->y, r), pld_window(d, PL_SHAPE(1, SIZE), PL_FP32),
                         pld_window(s, PL_SHAPE(nr, 1), PL_INT32)};
        pld_dispatch(r, per_device, a);
    }
}

static int no_line_check;    /* the next run_host's --no-cacheline-check */
static const char *topology; /* and its --topology, or NULL */
/* the --topology of a test that names none: the calibrated model's skew,
 * or every rank at once (the suite's second pass; issue 51) */
static const char *base_topology;

/* Runs `host` on devices 0..P-1 with x [P, 1, SIZE] and y (`yshape`, named
 * `yname`); returns what it printed on stderr. */
static char *run_host(void (*host_fn)(const struct host_args *), int P, int races, pl_shape yshape,
                      const char *yname, int *code)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.races = races;
    cfg.no_cacheline_check = no_line_check;
    cfg.topology = topology ? topology : base_topology;
    char list[16];
    snprintf(list, sizeof list, "0-%d", P - 1);
    ck_assert_int_eq(pld_config_set_devices(&cfg, list), 0);
    struct host_args h = {pl_tensor_new(PL_SHAPE(P, 1, SIZE), PL_FP32, "x"),
                          pl_tensor_new(yshape, PL_FP32, yname)};
    capture_stderr_begin();
    int rc = pld_run(&cfg, host_fn, &h);
    char *err = capture_stderr_end();
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    *code = pld_exit_code(rc);
    return err;
}

static char *run_mode(enum scenario sc, int P, int races, int *code)
{
    S = sc;
    return run_host(host, P, races, PL_SHAPE(P, 1, SIZE), "y", code);
}

/* The default race mode (error up to 64 ranks). */
static char *run(enum scenario sc, int P, int *code)
{
    return run_mode(sc, P, PLD_RACES_DEFAULT, code);
}

static const enum scenario seeded[] = {NO_BARRIER, BARRIER_AFTER_READ, STALE_SIGNAL};
static const char *const seeded_ops[][2] = {
    {"pl_store", "pld_tile_remote_load"},
    {"pld_tile_remote_store", "pl_load"},
    {"pl_store", "pld_tile_remote_load"},
};

START_TEST(seeded_race_is_reported)
{
    int code;
    char *err = run(seeded[_i], 2, &code);
    char want[256];
    /* the report names the later access's line and op, the window, and the
     * other access's op and line */
    ck_assert_contains(err, ": race: ");
    ck_assert_contains(err, "window 'data' bytes [0, 256)");
    snprintf(want, sizeof want, "%s:%d", __FILE__, line_a);
    ck_assert_contains(err, want);
    snprintf(want, sizeof want, "%s:%d", __FILE__, line_b);
    ck_assert_contains(err, want);
    ck_assert_contains(err, seeded_ops[_i][0]);
    ck_assert_contains(err, seeded_ops[_i][1]);
    ck_assert_contains(err, "no notify->wait orders them");
    ck_assert_contains(err, "data race");
    ck_assert_contains(err, "found (--races=error");
    /* reported once per pair of lines, not once per rank or per byte */
    ck_assert_int_le(count_lines_with(err, ": race: "), 2);
    free(err);
    exit(code);
}
END_TEST

START_TEST(correct_code_is_not_reported)
{
    int code;
    char *err = run(CORRECT, 2 + _i, &code);
    ck_assert_msg(strstr(err, "race") == NULL, "false report:\n%s", err);
    free(err);
    ck_assert_int_eq(code, 0);
}
END_TEST

START_TEST(warn_reports_without_failing)
{
    int code;
    char *err = run_mode(NO_BARRIER, 2, PLD_RACES_WARN, &code);
    ck_assert_int_eq(code, 0);
    ck_assert_contains(err, ": race: ");
    free(err);
}
END_TEST

START_TEST(off_reports_nothing)
{
    int code;
    char *err = run_mode(NO_BARRIER, 2, PLD_RACES_OFF, &code);
    ck_assert_int_eq(code, 0);
    ck_assert_str_eq(err, "");
    free(err);
}
END_TEST

/* Upstream's layout for step 16 at P=2: 1 KiB of data, then two [2, 1]
 * signals of 32 bytes each (rounded up), the two on one 64-byte line. */
static void line_sharing_host(const struct host_args *h)
{
    (void)h;
    int nr = (int)pld_world_size();
    pld_alloc_window_buffer(PL_SHAPE(1, 256), PL_FP32, .name = "data");
    pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "sig_bcast");
    pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "sig_ar");
}

/* Buffers that share a 64-byte line get one warning naming both. */
START_TEST(cache_line_sharing_is_warned)
{
    int code;
    no_line_check = _i; /* the sim runs once per process: once per test */
    char *err = run_host(line_sharing_host, 2, PLD_RACES_DEFAULT, PL_SHAPE(2, 1, SIZE), "y", &code);
    ck_assert_int_eq(code, 0);
    if (no_line_check) { /* --no-cacheline-check */
        ck_assert_str_eq(err, "");
        free(err);
        return;
    }
    ck_assert_int_eq(count_lines_with(err, ": warning: "), 1);
    ck_assert_contains(err, "check_races.c:");
    ck_assert_contains(err, "buffers 'sig_bcast' (window bytes 1024..1055) and 'sig_ar' "
                            "(1056..1087) share the 64-byte cache line at window offset 1024");
    free(err);
    /* the project's own programs keep their buffers on lines of their own:
     * step 16 pads each signal to 64 bytes; 256 bytes of data first put the
     * signal on a fresh line (step 04 --use-builtin allocates in that order
     * too, as upstream does) */
    const char *steps[] = {"16_putting_it_together", "16_putting_it_together -d 0-2",
                           "04_barrier --use-builtin", "05_remote_load_store"};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        struct cmd_result r = run_cmd("%s/tutorials/%s", PLD_BUILDDIR, steps[i]);
        ck_assert_msg(r.status == 0 && strstr(r.err, "warning") == NULL,
                      "%s printed a warning or failed (%d):\n%s", steps[i], r.status, r.err);
        cmd_result_free(&r);
    }
}
END_TEST

/* ---- the missed classes ---- */

enum missed {
    HISTORY,
    BIG_REGION,
    HOST_TENSOR,
    GE_ZERO,
    GE_ONE,
    ASYNC_SOURCE_STORED,
    ASYNC_TWO_IN_FLIGHT,
    ASYNC_PEER_STORES_IN_FLIGHT,
    ASYNC_WAITED_FIRST,
    FORGED_FIRST,
    FORGED_LAST,
    SET_OTHER_VALUES,
    ADD_ADD,
    SET_SAME_VALUE,
    SET_AFTER_A_WAIT,
};
enum { NOISE = 600, BIG = 600, PAD = 16 }; /* rows: BIG + 2 of 32 bytes, whole cache lines */

static enum missed M;

/* Keeps rank 0 away for about 100 us (small reads of the peer's pad, which
 * nobody writes; each one waits for the network), so that the peer's
 * accesses, from its later launch on, come first. */
static void delay(pld_dtensor pad, int other)
{
    for (int k = 0; k < 64; k++)
        (void)pld_tile_remote_load(pad, .peer = other, .offsets = PL_IDX(0, 0),
                                   .shape = PL_SHAPE(1, 8));
}

static void missed_kernel(pl_tensor x, pl_tensor shared, pld_dtensor data, pld_dtensor rows,
                          pld_dtensor pad, pld_dtensor sig)
{
    int me = pld_rank(pld_get_comm_ctx(data));
    pl_tile t = pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
    // clang-format off
    switch (M) {
    case HISTORY: /* rank 0's NOISE writes of other bytes come between */
        if (me == 1) {
            line_b = __LINE__; (void)pld_tile_remote_load(data, .peer = 0, .offsets = PL_IDX(0, 0), .shape = PL_SHAPE(1, SIZE));
        } else {
            delay(pad, 1);
            for (int k = 0; k < NOISE; k++)
                pl_write(data, PL_IDX(1, k), k);
            line_a = __LINE__; pl_store(t, PL_IDX(0, 0), data);
        }
        break;
    case BIG_REGION: /* one store of BIG rows comes between */
        if (me == 1) {
            line_a = __LINE__; pld_tile_remote_store(pl_load(x, PL_IDX(0, 0), PL_SHAPE(1, 8)), rows, .peer = 0, .offsets = PL_IDX(0, 0));
        } else {
            delay(pad, 1);
            pl_store(pl_load(rows, PL_IDX(1, 0), PL_SHAPE(BIG, 8)), PL_IDX(1, 0), rows);
            line_b = __LINE__; (void)pl_load(rows, PL_IDX(0, 0), PL_SHAPE(1, 8));
        }
        break;
    case HOST_TENSOR:
        line_a = line_b = __LINE__; pl_store(t, PL_IDX(0, 0), shared);
        break;
    case GE_ZERO:
    case GE_ONE:
        if (me == 1) {
            line_a = __LINE__; pld_tile_remote_store(t, data, .peer = 0, .offsets = PL_IDX(0, 0));
            pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(1, 0), .value = 1, .op = PLD_NOTIFY_ATOMIC_ADD);
        } else {
            delay(pad, 1); /* the notify has landed when the wait runs */
            pld_system_wait(sig, .offsets = PL_IDX(1, 0), .expected = M == GE_ONE, .cmp = PLD_WAIT_GE);
            line_b = __LINE__; (void)pl_load(data, PL_IDX(0, 0), PL_SHAPE(1, SIZE));
        }
        break;
    case ASYNC_SOURCE_STORED: /* rank 0 puts its row 1 into rank 1's row 0 */
        if (me == 0) {
            pld_async_session s = pld_system_async_session();
            line_a = __LINE__; pld_async_event e = pld_tensor_put_async(data, .peer = 1, .src = data, .dst_offsets = PL_IDX(0, 0), .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(1, SIZE), .session = s);
            line_b = __LINE__; pl_store(t, PL_IDX(1, 0), data);
            pld_system_wait_async_event(e, s);
        }
        break;
    case ASYNC_TWO_IN_FLIGHT:
        if (me == 0) {
            pld_async_session s = pld_system_async_session();
            line_a = __LINE__; pld_async_event e1 = pld_tensor_put_async(data, .peer = 1, .src = data, .dst_offsets = PL_IDX(0, 0), .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(1, SIZE), .session = s);
            line_b = __LINE__; pld_async_event e2 = pld_tensor_put_async(data, .peer = 1, .src = data, .dst_offsets = PL_IDX(0, 0), .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(1, SIZE), .session = s);
            pld_system_wait_async_event(e1, s);
            pld_system_wait_async_event(e2, s);
        }
        break;
    case ASYNC_PEER_STORES_IN_FLIGHT:
    case ASYNC_WAITED_FIRST:
        if (me == 0) {
            pld_async_session s = pld_system_async_session();
            line_a = __LINE__; pld_async_event e = pld_tensor_put_async(data, .peer = 1, .src = data, .dst_offsets = PL_IDX(0, 0), .src_offsets = PL_IDX(1, 0), .shape = PL_SHAPE(1, SIZE), .session = s);
            if (M == ASYNC_WAITED_FIRST)
                pld_system_wait_async_event(e, s);
            pld_system_notify(sig, .peer = 1, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
            pld_system_wait(sig, .offsets = PL_IDX(1, 0), .expected = 1, .cmp = PLD_WAIT_GE); /* the ack */
            if (M != ASYNC_WAITED_FIRST)
                pld_system_wait_async_event(e, s);
        } else {
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            line_b = __LINE__; pl_store(t, PL_IDX(0, 0), data);
            pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(1, 0), .value = 1, .op = PLD_NOTIFY_SET);
        }
        break;
    case FORGED_FIRST: /* a barrier on cells [source, 0]; rank 1 forges rank 2's arrival at rank 0 */
    case FORGED_LAST:  /* rank 2, late, forges rank 1's */
        if (me == (M == FORGED_FIRST ? 1 : 2)) {
            if (M == FORGED_LAST) /* the real arrival lands first, whatever the dispatch skew */
                delay(pad, 0);
            line_a = __LINE__; pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(3 - me, 0), .value = 1, .op = PLD_NOTIFY_SET);
        }
        for (int p = 0; p < 3; p++)
            if (p != me) {
                line_b = __LINE__; pld_system_notify(sig, .peer = p, .offsets = PL_IDX(me, 0), .value = 1, .op = PLD_NOTIFY_ATOMIC_ADD);
            }
        for (int p = 0; p < 3; p++)
            if (p != me)
                pld_system_wait(sig, .offsets = PL_IDX(p, 0), .expected = 1, .cmp = PLD_WAIT_GE);
        break;
    case SET_OTHER_VALUES: /* ranks 1 and 2 Set rank 0's cell to 1 and 2 */
    case ADD_ADD:          /* ... add 1 to it */
    case SET_SAME_VALUE:   /* ... both Set it to 1 */
        if (me == 0) {
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = M == ADD_ADD ? 2 : 1, .cmp = PLD_WAIT_GE);
        } else {
            pld_notify_op op = M == ADD_ADD ? PLD_NOTIFY_ATOMIC_ADD : PLD_NOTIFY_SET;
            int32_t v = M == SET_OTHER_VALUES ? me : 1;
            if (me == 1) {
                line_a = __LINE__; pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(0, 0), .value = v, .op = op);
            } else {
                line_b = __LINE__; pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(0, 0), .value = v, .op = op);
            }
        }
        break;
    case SET_AFTER_A_WAIT: /* rank 2 Sets rank 0's cell to 2 only once rank 0 has seen rank 1's 1 */
        if (me == 0) {
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_EQ);
            pld_system_notify(sig, .peer = 2, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 2, .cmp = PLD_WAIT_EQ);
        } else if (me == 1) {
            pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(0, 0), .value = 1, .op = PLD_NOTIFY_SET);
        } else {
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            pld_system_notify(sig, .peer = 0, .offsets = PL_IDX(0, 0), .value = 2, .op = PLD_NOTIFY_SET);
        }
        break;
    }
    // clang-format on
}

struct missed_args {
    pl_tensor x, shared;
    pld_dtensor data, rows, pad, sig;
};

static void missed_device(const struct missed_args *a)
{
    pl_incore(missed_kernel, a->x, a->shared, a->data, a->rows, a->pad, a->sig);
}

static void missed_host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(2, 1024), PL_FP32, .name = "data");
    pld_buffer rw = pld_alloc_window_buffer(PL_SHAPE(BIG + 2, 8), PL_FP32, .name = "rows");
    pld_buffer pd = pld_alloc_window_buffer(PL_SHAPE(1, PAD), PL_FP32, .name = "pad");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(nr, 16), PL_INT32, .name = "signal");
    for (int r = 0; r < nr; r++) {
        struct missed_args a = {
            .x = pl_at(h->x, r),
            .shared = h->y,
            .data = pld_window(d, PL_SHAPE(2, 1024), PL_FP32),
            .rows = pld_window(rw, PL_SHAPE(BIG + 2, 8), PL_FP32),
            .pad = pld_window(pd, PL_SHAPE(1, PAD), PL_FP32),
            .sig = pld_window(s, PL_SHAPE(nr, 16), PL_INT32),
        };
        pld_dispatch(r, missed_device, a);
    }
}

/* y is the host tensor both ranks may store into */
static char *run_missed(enum missed m, int *code)
{
    M = m;
    return run_host(missed_host, 2, PLD_RACES_DEFAULT, PL_SHAPE(1, SIZE), "shared", code);
}

static void assert_race(const char *err, const char *what)
{
    char want[256];
    ck_assert_contains(err, ": race: ");
    ck_assert_contains(err, what);
    snprintf(want, sizeof want, "%s:%d", __FILE__, line_a);
    ck_assert_contains(err, want);
    snprintf(want, sizeof want, "%s:%d", __FILE__, line_b);
    ck_assert_contains(err, want);
    ck_assert_int_eq(count_lines_with(err, ": race: "), 1);
}

START_TEST(race_across_long_history_is_reported)
{
    int code;
    char *err = run_missed(HISTORY, &code);
    assert_race(err, "window 'data' bytes [0, 256) of rank 0's copy");
    free(err);
    ck_assert_int_ne(code, 0);
}
END_TEST

START_TEST(race_across_big_region_is_reported)
{
    int code;
    char *err = run_missed(BIG_REGION, &code);
    assert_race(err, "window 'rows' bytes [0, 32) of rank 0's copy");
    free(err);
    ck_assert_int_ne(code, 0);
}
END_TEST

START_TEST(race_on_host_tensor_is_reported)
{
    int code;
    char *err = run_missed(HOST_TENSOR, &code);
    assert_race(err, "pl_store wrote host tensor 'shared' bytes [0, 256) at t=");
    free(err);
    ck_assert_int_ne(code, 0);
}
END_TEST

START_TEST(wait_acquires_only_needed_notifies)
{
    int code;
    char *err = run_missed(GE_ZERO, &code);
    assert_race(err, "window 'data' bytes [0, 256) of rank 0's copy");
    free(err);
    ck_assert_int_ne(code, 0);
}
END_TEST

/* The same program with a wait that needs the notify: ordered. */
START_TEST(wait_that_needs_the_notify_orders)
{
    int code;
    char *err = run_missed(GE_ONE, &code);
    ck_assert_str_eq(err, "");
    free(err);
    ck_assert_int_eq(code, 0);
}
END_TEST

/* The signal cases at P = 3: the calibrated a2a3 model, whose dispatch
 * skew starts rank 2 last, or every rank at once (dispatch_lat=0). */
static const char *const timings[] = {NULL, "mesh:3,dispatch_lat=0"};

static char *run_signal(enum missed m, int timing, int *code)
{
    M = m;
    topology = timings[timing];
    return run_host(missed_host, 3, PLD_RACES_DEFAULT, PL_SHAPE(1, SIZE), "shared", code);
}

/* A forged arrival races with the real one whichever lands first, on
 * either timing: both lines, both ranks and the cell are named.  (The
 * calibrated skew starts each rank about 280 us after the one before, so
 * rank 1's forgery lands before rank 2's arrival; rank 2's, after its
 * delay, lands after rank 1's arrival on both timings.) */
START_TEST(a_forged_barrier_arrival_is_reported)
{
    int code, last = _i / 2;
    char *err = run_signal(last ? FORGED_LAST : FORGED_FIRST, _i % 2, &code);
    assert_race(err, last ? "window 'signal' bytes [64, 68) of rank 0's copy"
                          : "window 'signal' bytes [128, 132) of rank 0's copy");
    ck_assert_contains(err, "(a Set to 1)");
    ck_assert_contains(err, "(an AtomicAdd of 1)");
    ck_assert_contains(err, "rank 1");
    ck_assert_contains(err, "rank 2");
    ck_assert_contains(err, "the value the cell is left with depends on which lands last");
    free(err);
    ck_assert_int_eq(code, 5);
}
END_TEST

START_TEST(two_sets_of_other_values_are_reported)
{
    int code;
    char *err = run_signal(SET_OTHER_VALUES, _i, &code);
    assert_race(err, "window 'signal' bytes [0, 4) of rank 0's copy");
    ck_assert_contains(err, "(a Set to 1)");
    ck_assert_contains(err, "(a Set to 2)");
    free(err);
    ck_assert_int_eq(code, 5);
}
END_TEST

/* Updates whose order does not change the cell, or that a wait orders. */
START_TEST(updates_whose_order_does_not_matter_are_not_reported)
{
    static const enum missed quiet[] = {ADD_ADD, SET_SAME_VALUE, SET_AFTER_A_WAIT};
    int code;
    char *err = run_signal(quiet[_i / 2], _i % 2, &code);
    ck_assert_str_eq(err, "");
    free(err);
    ck_assert_int_eq(code, 0);
}
END_TEST

/* ---- one program order per core (issue 51, class 3) ----
 *
 * The host's all_to_all_v at P = 3 on core_num blocks a rank, in the lane
 * form (core_num 3 and 6), which has no barrier: each block credits only
 * the peer it serves.  Then rank 0 reads, from rank 1's target, the row
 * rank 2 wrote.  Nothing orders that write before the read: rank 0 hears
 * from rank 2's block that serves rank 0, not from the one that wrote to
 * rank 1.  With one clock per rank, rank 2's write was in the clock its
 * other block released to rank 0, and the read went unreported.  Correct
 * twins: core_num 1 (its mesh barrier credits each peer after all of the
 * rank's puts), and any width with the host's barrier between. */
enum { LANE_ROWS = 256, LANE_COLS = 1024 }; /* 1 MiB a block */
static int lane_cores, lane_barrier, lane_read_line, lane_call_line;

struct lane_args {
    pld_dtensor in, tgt, sig, cnt, rc, bar;
};

static int lane_count(int r, int d)
{
    return r == 1 && d == 0 ? LANE_ROWS : 1; /* rank 1's block for rank 0 is slow */
}

static void lane_stage(const struct lane_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(a->tgt));
    for (int d = 0; d < 3; d++)
        pl_write(a->cnt, PL_IDX(d), lane_count(me, d));
}

static void lane_read(const struct lane_args *a)
{
    lane_read_line = __LINE__ + 1;
    pl_tile t = pld_tile_remote_load(a->tgt, .peer = 1, .offsets = PL_IDX(2 * LANE_ROWS, 0),
                                     .shape = PL_SHAPE(1, LANE_COLS));
    (void)t;
}

static void lane_stage_device(const struct lane_args *a)
{
    pl_incore(lane_stage, a);
}

static void lane_read_device(const struct lane_args *a)
{
    pl_incore(lane_read, a);
}

static void lanes_host(const struct host_args *h)
{
    (void)h;
    int stride = lane_cores > 1 ? lane_cores : 1;
    pl_shape rows = PL_SHAPE(3 * LANE_ROWS, LANE_COLS);
    struct lane_args a = {
        .in = pld_window(pld_alloc_window_buffer(rows, PL_FP32, .name = "in"), rows, PL_FP32),
        .tgt = pld_window(pld_alloc_window_buffer(rows, PL_FP32, .name = "tgt"), rows, PL_FP32),
        .sig = pld_window(pld_alloc_window_buffer(PL_SHAPE(32, 1), PL_INT32, .name = "lanes"),
                          PL_SHAPE(3, stride), PL_INT32),
        .cnt = pld_window(pld_alloc_window_buffer(PL_SHAPE(16), PL_INT32, .name = "cnt"),
                          PL_SHAPE(3), PL_INT32),
        .rc = pld_window(pld_alloc_window_buffer(PL_SHAPE(16), PL_INT32, .name = "rc"), PL_SHAPE(3),
                         PL_INT32),
        .bar = pld_window(pld_alloc_window_buffer(PL_SHAPE(16), PL_INT32, .name = "bar"),
                          PL_SHAPE(3), PL_INT32)};
    for (int r = 0; r < 3; r++)
        pld_dispatch(r, lane_stage_device, a);
    lane_call_line = __LINE__ + 1;
    pld_tensor_all_to_all_v(a.in, a.tgt, a.sig, a.cnt, a.rc, .core_num = lane_cores);
    if (lane_barrier)
        pld_tensor_barrier(a.bar);
    pld_dispatch(0, lane_read_device, a);
}

START_TEST(a_read_that_only_another_core_ordered_is_reported)
{
    lane_cores = _i / 2 ? 6 : 3;
    topology = timings[_i % 2];
    int code;
    char *err = run_host(lanes_host, 3, PLD_RACES_DEFAULT, PL_SHAPE(3, 1, SIZE), "y", &code);
    char want[96];
    ck_assert_msg(code == 5, "core_num %d (%s): exit %d, expected the race:\n%s", lane_cores,
                  topology ? topology : "calibrated", code, err);
    snprintf(want, sizeof want, "check_races.c:%d", lane_read_line);
    ck_assert_contains(err, want);
    snprintf(want, sizeof want, "check_races.c:%d", lane_call_line);
    ck_assert_contains(err, want);
    ck_assert_contains(err, "window 'tgt' bytes [2097152, 2101248) of rank 1's copy");
    free(err);
}
END_TEST

START_TEST(a_read_that_a_credit_or_a_barrier_orders_is_not_reported)
{
    static const int cores[] = {1, 1, 3, 6}, barrier[] = {0, 1, 1, 1};
    lane_cores = cores[_i / 2];
    lane_barrier = barrier[_i / 2];
    topology = timings[_i % 2];
    int code;
    char *err = run_host(lanes_host, 3, PLD_RACES_DEFAULT, PL_SHAPE(3, 1, SIZE), "y", &code);
    ck_assert_msg(code == 0 && !strstr(err, "race"), "core_num %d (%s): exit %d:\n%s", lane_cores,
                  topology ? topology : "calibrated", code, err);
    free(err);
}
END_TEST

START_TEST(put_async_source_stored_before_the_wait_is_reported)
{
    int code;
    char *err = run_missed(ASYNC_SOURCE_STORED, &code);
    assert_race(err, "pl_store wrote window 'data' bytes [4096, 4352) of rank 0's copy");
    ck_assert_contains(err, "rank 0's pld_tensor_put_async (a read in flight)");
    free(err);
    ck_assert_int_eq(code, 5);
}
END_TEST

START_TEST(two_put_asyncs_in_flight_into_one_region_are_reported)
{
    int code;
    char *err = run_missed(ASYNC_TWO_IN_FLIGHT, &code);
    assert_race(err, "pld_tensor_put_async writes window 'data' bytes [0, 256) of rank 1's copy "
                     "(in flight from here)");
    free(err);
    ck_assert_int_eq(code, 5);
}
END_TEST

START_TEST(a_peer_store_while_a_put_async_is_in_flight_is_reported)
{
    int code;
    char *err = run_missed(ASYNC_PEER_STORES_IN_FLIGHT, &code);
    assert_race(err, "window 'data' bytes [0, 256) of rank 1's copy");
    free(err);
    ck_assert_int_eq(code, 5);
}
END_TEST

START_TEST(a_put_async_waited_before_the_notify_is_not_reported)
{
    int code;
    char *err = run_missed(ASYNC_WAITED_FIRST, &code);
    ck_assert_str_eq(err, "");
    free(err);
    ck_assert_int_eq(code, 0);
}
END_TEST

static void every_rank_at_once(void)
{
    base_topology = "hccs,dispatch_lat=0";
}

/* The scenarios that take the timing they are given: run on both. */
static void add_timed(TCase *tc)
{
    tcase_add_loop_exit_test(tc, seeded_race_is_reported, 5, 0, 3);
    tcase_add_loop_test(tc, correct_code_is_not_reported, 0, 4); /* P = 2..5 */
    tcase_add_test(tc, warn_reports_without_failing);
    tcase_add_test(tc, off_reports_nothing);
    tcase_add_test(tc, race_across_long_history_is_reported);
    tcase_add_test(tc, race_across_big_region_is_reported);
    tcase_add_test(tc, race_on_host_tensor_is_reported);
    tcase_add_test(tc, wait_acquires_only_needed_notifies);
    tcase_add_test(tc, wait_that_needs_the_notify_orders);
    tcase_add_test(tc, put_async_source_stored_before_the_wait_is_reported);
    tcase_add_test(tc, two_put_asyncs_in_flight_into_one_region_are_reported);
    tcase_add_test(tc, a_peer_store_while_a_put_async_is_in_flight_is_reported);
    tcase_add_test(tc, a_put_async_waited_before_the_notify_is_not_reported);
}

int main(void)
{
    Suite *s = suite_create("races");
    TCase *tc = tcase_create("races");
    add_timed(tc);
    tcase_add_loop_test(tc, cache_line_sharing_is_warned, 0, 2);
    /* these name both timings themselves */
    tcase_add_loop_test(tc, a_forged_barrier_arrival_is_reported, 0, 4);
    tcase_add_loop_test(tc, two_sets_of_other_values_are_reported, 0, 2);
    tcase_add_loop_test(tc, updates_whose_order_does_not_matter_are_not_reported, 0, 6);
    tcase_add_loop_test(tc, a_read_that_only_another_core_ordered_is_reported, 0, 4);
    tcase_add_loop_test(tc, a_read_that_a_credit_or_a_barrier_orders_is_not_reported, 0, 8);
    suite_add_tcase(s, tc);
    TCase *at_once = tcase_create("races, every rank at once");
    tcase_add_unchecked_fixture(at_once, every_rank_at_once, NULL);
    add_timed(at_once);
    suite_add_tcase(s, at_once);
    return run_suite(s);
}
