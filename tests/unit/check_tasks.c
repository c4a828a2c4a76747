/* check_tasks.c: task graphs (pld_manual_scope_*, pld_at) and deferred
 * completion (pld_system_defer_wait), on upstream's test_l3_deferred_
 * completion shape: each of two ranks fills its cores with waiter tasks,
 * each followed by a consumer that depends on it, and only then submits
 * the publisher that writes the peer's payload and notifies it.
 *  - with defer_wait every consumer reads the peer's tag, at W = aiv_cores
 *    and beyond, on sim and threads, across epochs of persistent windows;
 *  - with a blocking wait and W = aiv_cores the graph deadlocks (every
 *    core is in a wait before the publisher can run), and the report says
 *    so; with W < aiv_cores it completes;
 *  - time: a consumer starts when its waiter's condition holds (the
 *    notify's landing), not when a core frees up, against a closed form;
 *  - dependencies order tasks; independent tasks run on separate cores at
 *    once (the scope takes the longest, not the sum);
 *  - errors: one message at the user's file:line for each misuse. */
#include "checktools.h"
#include "timeline_read.h"

#include <math.h>
#include <pld/pld.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WIDTH 8 /* INT32 lanes: the smallest 32-byte vector tile */

enum waiter_kind { DEFERRED, BLOCKING };

static struct {
    int waiters; /* per rank */
    enum waiter_kind kind;
    int epochs;
    int consumers_started_early; /* a consumer saw the payload of another epoch */
} G;

struct waiter_args {
    pld_dtensor signal;
    int32_t epoch;
    enum waiter_kind kind;
};

struct consumer_args {
    pld_dtensor payload, signal;
    pl_tensor out;
    int slot;
    int32_t epoch;
};

struct publisher_args {
    pl_tensor in;
    pld_dtensor payload, signal;
    int peer;
    int32_t epoch;
};

static void waiter(const struct waiter_args *a)
{
    if (a->kind == DEFERRED)
        pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = a->epoch,
                              .cmp = PLD_WAIT_GE);
    else
        pld_system_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = a->epoch,
                        .cmp = PLD_WAIT_GE);
}

static void consumer(const struct consumer_args *a)
{
    pl_tile got = pl_load(a->payload, PL_IDX(0, 0), PL_SHAPE(1, WIDTH));
    /* lane 0 carries the epoch: a consumer that the scheduler let run
     * before its waiter completed sees the epoch before's (or zero) */
    if (pl_tile_get(got, 0) != a->epoch)
        G.consumers_started_early++;
    pl_store(got, PL_IDX(a->slot, 0), a->out);
}

static void publisher(const struct publisher_args *a)
{
    pl_tile mine = pl_load(a->in, PL_IDX(0, 0), PL_SHAPE(1, WIDTH));
    pld_tile_remote_store(mine, a->payload, .peer = a->peer, .offsets = PL_IDX(0, 0));
    pld_system_notify(a->signal, .peer = a->peer, .offsets = PL_IDX(0, 0), .value = a->epoch,
                      .op = PLD_NOTIFY_SET);
}

struct device_args {
    pl_tensor in, out;
    pld_dtensor payload, signal;
    int peer;
    int32_t epoch;
};

static void device(const struct device_args *a)
{
    pld_manual_scope_begin();
    for (int slot = 0; slot < G.waiters; slot++) {
        struct waiter_args w = {.signal = a->signal, .epoch = a->epoch, .kind = G.kind};
        pld_task_id wid = pld_at(waiter, w, .name = "deferred_wait");
        struct consumer_args c = {.payload = a->payload,
                                  .signal = a->signal,
                                  .out = a->out,
                                  .slot = slot,
                                  .epoch = a->epoch};
        pld_at(consumer, c, .deps = &wid, .ndeps = 1, .name = "completion_consumer");
    }
    struct publisher_args p = {.in = a->in,
                               .payload = a->payload,
                               .signal = a->signal,
                               .peer = a->peer,
                               .epoch = a->epoch};
    pld_at(publisher, p, .name = "delayed_publisher");
    pld_manual_scope_end();
}

#define MAX_EPOCHS 3

/* An input per epoch and rank: the host fills epoch e+1's while the ranks
 * may still read epoch e's (a tensor per epoch, or it would race). */
struct host_args {
    pl_tensor in[MAX_EPOCHS][2], out[2];
};

static void host(const struct host_args *h)
{
    /* a whole cache line, so that the signal after it has its own */
    pld_buffer pb = pld_alloc_window_buffer(PL_SHAPE(1, 16), PL_INT32, .name = "payload");
    pld_buffer sb = pld_alloc_window_buffer(PL_SHAPE(1, 16), PL_INT32, .name = "signal");
    /* epochs in turn, as upstream's worker calls are: an epoch's publisher
     * must not write a peer's payload while the peer's consumers of the
     * epoch before still read it */
    pld_buffer bb = pld_alloc_window_buffer(64, .name = "epoch_barrier");
    for (int32_t epoch = 1; epoch <= G.epochs; epoch++) {
        if (epoch > 1)
            pld_tensor_barrier(pld_window(bb, PL_SHAPE(2, 1), PL_INT32));
        for (int r = 0; r < 2; r++) {
            pl_tensor in = h->in[epoch - 1][r];
            for (int k = 0; k < WIDTH; k++)
                ((int32_t *)in.data)[k] = k == 0 ? epoch : r + 1;
            struct device_args a = {.in = in,
                                    .out = h->out[r],
                                    .payload = pld_window(pb, PL_SHAPE(1, WIDTH), PL_INT32),
                                    .signal = pld_window(sb, PL_SHAPE(1, 1), PL_INT32),
                                    .peer = 1 - r,
                                    .epoch = epoch};
            pld_dispatch(r, device, a);
        }
    }
}

/* Runs the graph; returns pld_run's result and leaves the outputs in *h. */
static int run_graph(const char *backend, const char *topology, struct host_args *h,
                     double wait_timeout)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.topology = topology;
    cfg.wait_timeout = wait_timeout;
    cfg.backend = backend;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    ck_assert_int_le(G.epochs, MAX_EPOCHS);
    for (int r = 0; r < 2; r++) {
        for (int e = 0; e < MAX_EPOCHS; e++)
            h->in[e][r] = pl_tensor_new(PL_SHAPE(1, WIDTH), PL_INT32, "in");
        h->out[r] = pl_tensor_new(PL_SHAPE(G.waiters, WIDTH), PL_INT32, "out");
        for (int i = 0; i < G.waiters * WIDTH; i++)
            ((int32_t *)h->out[r].data)[i] = -1;
    }
    return pld_run(&cfg, host, h);
}

static void free_graph(struct host_args *h)
{
    for (int r = 0; r < 2; r++) {
        for (int e = 0; e < MAX_EPOCHS; e++)
            pl_tensor_free(&h->in[e][r]);
        pl_tensor_free(&h->out[r]);
    }
}

/* Every consumer of rank r read the peer's payload of the last epoch. */
static void assert_peer_tags(const struct host_args *h)
{
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < G.waiters; s++)
            for (int k = 0; k < WIDTH; k++) {
                int32_t got = ((const int32_t *)h->out[r].data)[s * WIDTH + k];
                int32_t want = k == 0 ? G.epochs : (1 - r) + 1;
                ck_assert_msg(got == want, "rank %d, consumer %d, lane %d: %d, expected %d", r, s,
                              k, got, want);
            }
    ck_assert_int_eq(G.consumers_started_early, 0);
}

static const char *const backends[] = {"sim", "threads"};

START_TEST(deferred_waiters_release_their_cores)
{
    /* as many waiters as cores, and twice as many: the publisher, submitted
     * last, still gets a core */
    G = (typeof(G)){.waiters = 4 * (1 + _i % 2), .kind = DEFERRED, .epochs = 3};
    struct host_args h;
    ck_assert_int_eq(run_graph(backends[_i / 2], "mesh:2,aiv_cores=4", &h, 0), 0);
    assert_peer_tags(&h);
    free_graph(&h);
}
END_TEST

START_TEST(blocking_waiters_on_every_core_deadlock)
{
    G = (typeof(G)){.waiters = 4, .kind = BLOCKING, .epochs = 1};
    struct host_args h;
    capture_stderr_begin();
    int rc = run_graph("sim", "mesh:2,aiv_cores=4", &h, 0);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EDEADLOCK);
    ck_assert_msg(strstr(err, "deadlock"), "no deadlock report:\n%s", err);
    ck_assert_msg(strstr(err, "5 tasks of this manual scope never started: all 4 AIV cores are "
                              "held by tasks blocked in waits"),
                  "the report does not say why the publisher never ran:\n%s", err);
    ck_assert_msg(strstr(err, "check_tasks.c"), "the report names no line of the program:\n%s",
                  err);
    free(err);
    free_graph(&h);
}
END_TEST

START_TEST(blocking_waiters_with_a_core_to_spare_complete)
{
    G = (typeof(G)){.waiters = 3, .kind = BLOCKING, .epochs = 1};
    struct host_args h;
    ck_assert_int_eq(run_graph("sim", "mesh:2,aiv_cores=4", &h, 0), 0);
    assert_peer_tags(&h);
    free_graph(&h);
}
END_TEST

/* ---- time ---- */

#define LAUNCH 1e-6 /* launch_lat in the spec below */

static struct {
    double scope_start, scope_end;
    double task_start[8], task_end[8];
    int spin; /* vector ops per worker task */
} T;

struct timed_args {
    int index;
    pl_tensor x;
};

static void timed(const struct timed_args *a)
{
    T.task_start[a->index] = pld_time();
    pl_tile t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 256));
    for (int i = 0; i < T.spin; i++)
        t = pl_add(t, t);
    T.task_end[a->index] = pld_time();
}

struct chain_args {
    pl_tensor x;
    int chain; /* 1: each task depends on the one before */
    int rank;
    int cube; /* bit i: task i is a cube (AIC) task */
};

static void chain_device(const struct chain_args *a)
{
    if (a->rank != 0)
        return;
    T.scope_start = pld_time();
    pld_manual_scope_begin();
    pld_task_id prev = {0};
    for (int i = 0; i < 4; i++) {
        struct timed_args t = {.index = i, .x = a->x};
        int cube = (a->cube >> i) & 1;
        prev = a->chain && i ? pld_at(timed, t, .deps = &prev, .ndeps = 1, .cube = cube)
                             : pld_at(timed, t, .cube = cube);
    }
    pld_manual_scope_end();
    T.scope_end = pld_time();
}

static void chain_host(const struct chain_args *a)
{
    for (int r = 0; r < (int)pld_world_size(); r++) {
        struct chain_args b = *a;
        b.rank = r;
        pld_dispatch(r, chain_device, b);
    }
}

static void run_chain_traced(int chain, int cube, const char *topology, const char *trace)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.topology = topology;
    cfg.trace = trace;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    struct chain_args a = {
        .x = pl_tensor_new(PL_SHAPE(1, 256), PL_FP32, "x"), .chain = chain, .cube = cube};
    T.spin = 100;
    ck_assert_int_eq(pld_run(&cfg, chain_host, &a), 0);
    pl_tensor_free(&a.x);
}

static void run_chain_on(int chain, int cube, const char *topology)
{
    run_chain_traced(chain, cube, topology, NULL);
}

static void run_chain(int chain, const char *topology)
{
    run_chain_on(chain, 0, topology);
}

/* 4 tasks of `one` s each after a launch: independent on 4 cores they
 * take one launch and one task; chained, or on one core, four of each.
 * (The orchestrator's submissions are free here: the next test's.) */
START_TEST(independent_tasks_run_at_once_and_a_chain_in_turn)
{
    static const struct {
        int chain;
        const char *topology;
        int serial;
    } cases[] = {
        {0, "mesh:2,aiv_cores=4,launch_lat=1us,submit_lat=0", 0},
        {1, "mesh:2,aiv_cores=4,launch_lat=1us,submit_lat=0", 1},
        {0, "mesh:2,aiv_cores=1,launch_lat=1us,submit_lat=0", 1},
    };
    run_chain(cases[_i].chain, cases[_i].topology);
    double one = T.task_end[0] - T.task_start[0];
    ck_assert_msg(one > 0, "a task takes no time");
    for (int i = 1; i < 4; i++) {
        double want = cases[_i].serial ? T.task_end[i - 1] + LAUNCH : T.task_start[0];
        ck_assert_msg(fabs(T.task_start[i] - want) < 1e-12,
                      "task %d started at %.12g s, expected %.12g s", i, T.task_start[i], want);
    }
    double want = (cases[_i].serial ? 4 : 1) * (LAUNCH + one);
    ck_assert_msg(fabs(T.scope_end - T.scope_start - want) < 1e-12,
                  "the scope took %.12g s, the closed form %.12g s", T.scope_end - T.scope_start,
                  want);
}
END_TEST

/* The orchestrator submits a dispatch's tasks one each submit_lat, from
 * the dispatch's start: task i starts no earlier than (i + 1) submit_lat
 * after it, then pays its launch.  Submitting slower than the tasks run
 * (3 us), 4 independent tasks start 3 us apart; faster (0.1 us), a chain
 * starts each task at the end of the one before, as without it. */
START_TEST(tasks_start_no_earlier_than_their_submission)
{
    static const struct {
        int chain;
        const char *topology;
        double submit;
    } cases[] = {
        {0, "mesh:2,aiv_cores=4,launch_lat=1us,submit_lat=3us", 3e-6},
        {1, "mesh:2,aiv_cores=4,launch_lat=1us,submit_lat=100ns", 100e-9},
    };
    run_chain(cases[_i].chain, cases[_i].topology);
    double one = T.task_end[0] - T.task_start[0];
    ck_assert_msg(cases[_i].chain ? one > cases[_i].submit : one < cases[_i].submit,
                  "a task takes %.12g s: the case's premise does not hold", one);
    for (int i = 0; i < 4; i++) {
        double released = T.scope_start + (i + 1) * cases[_i].submit;
        double want = cases[_i].chain && i ? T.task_end[i - 1] + LAUNCH : released + LAUNCH;
        ck_assert_msg(fabs(T.task_start[i] - want) < 1e-12,
                      "task %d started at %.12g s, expected %.12g s", i, T.task_start[i], want);
    }
    double want = cases[_i].chain ? cases[_i].submit + 4 * (LAUNCH + one)
                                  : 4 * cases[_i].submit + LAUNCH + one;
    ck_assert_msg(fabs(T.scope_end - T.scope_start - want) < 1e-12,
                  "the scope took %.12g s, the closed form %.12g s", T.scope_end - T.scope_start,
                  want);
}
END_TEST

/* A core does not bind itself to a task not yet submitted: with one vector
 * core, task 2 (independent, submitted third) is ready at the scope's end
 * but submitted only at 3 s; task 1 (submitted second) becomes ready when
 * cube task 0 ends.  The core takes task 1 as soon as it is submitted, at
 * 2 s, and task 2 at 3 s, not task 2 first and task 1 after it. */
static void skip_device(const struct chain_args *a)
{
    if (a->rank != 0)
        return;
    T.scope_start = pld_time();
    pld_manual_scope_begin();
    struct timed_args t0 = {.index = 0, .x = a->x}, t1 = {.index = 1, .x = a->x},
                      t2 = {.index = 2, .x = a->x};
    pld_task_id producer = pld_at(timed, t0, .cube = 1);
    pld_at(timed, t1, .deps = &producer, .ndeps = 1);
    pld_at(timed, t2);
    pld_manual_scope_end();
    T.scope_end = pld_time();
}

static void skip_host(const struct chain_args *a)
{
    for (int r = 0; r < (int)pld_world_size(); r++) {
        struct chain_args b = *a;
        b.rank = r;
        pld_dispatch(r, skip_device, b);
    }
}

START_TEST(a_core_waits_for_a_submission_free_to_take_an_earlier_task)
{
    const double s = 2e-6;
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.topology = "mesh:2,aiv_cores=1,aic_cores=1,launch_lat=1us,submit_lat=2us";
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    struct chain_args a = {.x = pl_tensor_new(PL_SHAPE(1, 256), PL_FP32, "x")};
    T.spin = 100;
    ck_assert_int_eq(pld_run(&cfg, skip_host, &a), 0);
    pl_tensor_free(&a.x);
    double one = T.task_end[1] - T.task_start[1];
    ck_assert_msg(LAUNCH + one < s, "a task takes %.12g s: the case's premise does not hold", one);
    double want[3] = {T.scope_start + s + LAUNCH, T.scope_start + 2 * s + LAUNCH,
                      T.scope_start + 3 * s + LAUNCH};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(fabs(T.task_start[i] - want[i]) < 1e-12,
                      "task %d started at %.12g s, expected %.12g s", i, T.task_start[i], want[i]);
}
END_TEST

/* Cube tasks (.cube = 1, an AIC function's) run on the device's aic_cores
 * cube cores, beside the vector tasks on its aiv_cores: tasks 0 and 2 on
 * one AIC and 1 and 3 on one AIV take two rounds, not four; four cube tasks
 * on one AIC take four, however many AIV there are; on four AIC, one. */
START_TEST(cube_tasks_run_on_cube_cores_beside_vector_tasks)
{
    static const struct {
        int cube; /* task mask */
        const char *topology;
        int rounds;
        int start[4]; /* the round each task starts in */
    } cases[] = {
        {0x5, "mesh:2,aiv_cores=1,aic_cores=1,launch_lat=1us,submit_lat=0", 2, {0, 0, 1, 1}},
        {0xf, "mesh:2,aiv_cores=4,aic_cores=1,launch_lat=1us,submit_lat=0", 4, {0, 1, 2, 3}},
        {0xf, "mesh:2,aiv_cores=1,aic_cores=4,launch_lat=1us,submit_lat=0", 1, {0, 0, 0, 0}},
    };
    run_chain_on(0, cases[_i].cube, cases[_i].topology);
    double one = T.task_end[0] - T.task_start[0];
    ck_assert_msg(one > 0, "a task takes no time");
    for (int i = 0; i < 4; i++) {
        double want = T.task_start[0] + cases[_i].start[i] * (LAUNCH + one);
        ck_assert_msg(fabs(T.task_start[i] - want) < 1e-12,
                      "case %d: task %d started at %.12g s, expected %.12g s", _i, i,
                      T.task_start[i], want);
    }
    double want = cases[_i].rounds * (LAUNCH + one);
    ck_assert_msg(fabs(T.scope_end - T.scope_start - want) < 1e-12,
                  "case %d: the scope took %.12g s, the closed form %.12g s", _i,
                  T.scope_end - T.scope_start, want);
}
END_TEST

/* The timeline draws a rank's tasks that run at once (on its cores) in
 * rows of its lane, none over another: four independent tasks on four cores
 * make four rows, each holding one core's launch and ops; a chain, one
 * task at a time, one row, as tall as the host's lane.  (Drawn by
 * pldsim-timeline from the text trace, the picture --trace X.svg draws:
 * check_traces holds them equal.) */
START_TEST(the_timeline_draws_tasks_at_once_in_rows)
{
    int chain = _i;
    char *txt = write_temp(".txt", ""), *svg = write_temp(".svg", "");
    run_chain_traced(chain, 0, "mesh:2,aiv_cores=4,launch_lat=1us,submit_lat=0", txt);
    struct cmd_result r = run_cmd("%s/tools/pldsim-timeline %s %s", PLD_BUILDDIR, txt, svg);
    ck_assert_msg(r.status == 0, "pldsim-timeline failed: %s", r.err);
    cmd_result_free(&r);
    char *a = slurp(svg);
    ck_assert_ptr_nonnull(a);
    struct timeline tl;
    ck_assert_int_eq(timeline_read(a, &tl), 0);
    ck_assert_int_ge(tl.lanes, 2); /* the host and rank 0 (rank 1 runs no task) */
    double host_h = tl.lane_y[1] - tl.lane_y[0], r0_h = tl.lane_y[2] - tl.lane_y[1];
    int ops = 0, rows = 0;
    double row_y[8];
    for (int i = 0; i < tl.nops; i++) {
        const struct tl_op *o = &tl.ops[i];
        if (o->lane != 1)
            continue;
        ops++;
        ck_assert_msg(o->y >= tl.lane_y[1] && o->y + o->h <= tl.lane_y[2],
                      "an op outside its lane");
        int k = 0;
        while (k < rows && fabs(row_y[k] - o->y) > 0.01)
            k++;
        if (k == rows) {
            ck_assert_int_lt(rows, 8);
            row_y[rows++] = o->y;
        }
        for (int j = 0; j < i; j++) /* ops of one row do not overlap */
            if (tl.ops[j].lane == 1 && fabs(tl.ops[j].y - o->y) < 0.01)
                ck_assert_msg(tl.ops[j].t1 <= o->t0 || o->t1 <= tl.ops[j].t0,
                              "%s %.3f-%.3f and %s %.3f-%.3f share a row", tl.ops[j].op,
                              tl.ops[j].t0, tl.ops[j].t1, o->op, o->t0, o->t1);
    }
    ck_assert_int_eq(ops, 4 * (2 + T.spin)); /* four tasks: a launch, a load, the adds */
    if (chain) {
        ck_assert_int_eq(rows, 1);
        ck_assert_msg(fabs(r0_h - host_h) < 0.01, "a lane of one row is as tall as the host's");
        ck_assert_msg(!strstr(a, "in rows"), "the title speaks of rows");
    } else {
        ck_assert_int_eq(rows, 4);
        ck_assert_msg(r0_h > host_h, "a lane of four rows is taller than the host's");
        ck_assert_contains(a, "a rank's ops at once (its cores) in rows");
    }
    timeline_free(&tl);
    free(a);
    unlink(svg);
    unlink(txt);
    free(svg);
    free(txt);
}
END_TEST

/* ---- a random graph, and a long chain ---- */

#define DAG_TASKS 10000

static struct {
    int n, chain;
    int started[DAG_TASKS], finished[DAG_TASKS]; /* sequence numbers, 0: not yet */
    int seq;
    int deps[DAG_TASKS][3], ndeps[DAG_TASKS];
    int early; /* a task that started before one of its dependencies finished */
} R;

struct dag_args {
    int index;
};

static void dag_task(const struct dag_args *a)
{
    R.started[a->index] = ++R.seq;
    for (int k = 0; k < R.ndeps[a->index]; k++)
        if (!R.finished[R.deps[a->index][k]])
            R.early++;
    R.finished[a->index] = ++R.seq;
}

static void dag_device(const int *unused)
{
    (void)unused;
    static pld_task_id ids[DAG_TASKS];
    pld_manual_scope_begin();
    for (int i = 0; i < R.n; i++) {
        pld_task_id d[3];
        for (int k = 0; k < R.ndeps[i]; k++)
            d[k] = ids[R.deps[i][k]];
        struct dag_args a = {.index = i};
        ids[i] = pld_at(dag_task, a, .deps = d, .ndeps = R.ndeps[i]);
    }
    pld_manual_scope_end();
}

static void dag_host(const void *unused)
{
    (void)unused;
    int none = 0;
    pld_dispatch(0, dag_device, none);
}

/* Every task runs once, never before what it depends on: a chain of 10 000
 * (on sim once 12 s of scans for the next ready task; now a heap), and 500
 * tasks with up to three random dependencies each (a task twice among
 * them, at times) on four cores. */
START_TEST(every_task_runs_once_after_its_dependencies)
{
    int chain = _i / 2;
    memset(&R, 0, sizeof R);
    R.n = chain ? DAG_TASKS : 500;
    uint32_t x = 12345;
    for (int i = 1; i < R.n; i++) {
        if (chain) {
            R.deps[i][0] = i - 1;
            R.ndeps[i] = 1;
            continue;
        }
        x = x * 1103515245u + 12345u;
        R.ndeps[i] = (int)(x >> 16) % 4;
        for (int k = 0; k < R.ndeps[i]; k++) {
            x = x * 1103515245u + 12345u;
            R.deps[i][k] = (int)((x >> 8) % (uint32_t)i);
        }
    }
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.backend = backends[_i % 2];
    cfg.topology = "mesh:1,aiv_cores=4";
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0"), 0);
    ck_assert_int_eq(pld_run(&cfg, dag_host, NULL), 0);
    for (int i = 0; i < R.n; i++)
        ck_assert_msg(R.started[i] > 0, "task %d never ran", i);
    ck_assert_int_eq(R.seq, 2 * R.n);
    ck_assert_int_eq(R.early, 0);
}
END_TEST

/* A consumer's start: its waiter's condition holds when the peer's notify
 * lands, at the peer's publisher's notify start + lat + 4 B / bw. */
static struct {
    double notify_start[2], consumer_start[2], waiter_end[2], publisher_end[2];
} D;

struct lat_args {
    pld_dtensor signal;
    int peer;
    pl_tensor x;
};

static void lat_waiter(const struct lat_args *a)
{
    pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    D.waiter_end[pld_rank(pld_get_comm_ctx(a->signal))] = pld_time();
}

static void lat_consumer(const struct lat_args *a)
{
    D.consumer_start[pld_rank(pld_get_comm_ctx(a->signal))] = pld_time();
}

static void lat_publisher(const struct lat_args *a)
{
    pl_tile t = pl_load(a->x, PL_IDX(0, 0), PL_SHAPE(1, 256));
    for (int i = 0; i < 50; i++)
        t = pl_add(t, t);
    D.notify_start[pld_rank(pld_get_comm_ctx(a->signal))] = pld_time();
    pld_system_notify(a->signal, .peer = a->peer, .offsets = PL_IDX(0, 0), .value = 1,
                      .op = PLD_NOTIFY_SET);
    D.publisher_end[pld_rank(pld_get_comm_ctx(a->signal))] = pld_time();
}

static void lat_device(const struct lat_args *a)
{
    pld_manual_scope_begin();
    pld_task_id w = pld_at(lat_waiter, *a);
    pld_at(lat_consumer, *a, .deps = &w, .ndeps = 1);
    pld_at(lat_publisher, *a);
    pld_manual_scope_end();
}

static void lat_host(const pl_tensor *x)
{
    pld_buffer sb = pld_alloc_window_buffer(PL_SHAPE(1, 1), PL_INT32, .name = "signal");
    for (int r = 0; r < 2; r++) {
        struct lat_args a = {
            .signal = pld_window(sb, PL_SHAPE(1, 1), PL_INT32), .peer = 1 - r, .x = *x};
        pld_dispatch(r, lat_device, a);
    }
}

/* On 4 cores each task has its own; on 1 the waiter's deferred completion
 * frees the only core for the publisher, which a blocking wait would hold.
 * Rank 1 starts later than rank 0 (the host dispatches in turn), so its
 * condition already holds when it registers it. */
START_TEST(a_consumer_starts_when_the_condition_holds)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.topology = _i ? "mesh:2,aiv_cores=1,lat=3us,bw=10GBps,launch_lat=1us,signal_lat=100ns"
                      : "mesh:2,aiv_cores=4,lat=3us,bw=10GBps,launch_lat=1us,signal_lat=100ns";
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    pl_tensor x = pl_tensor_new(PL_SHAPE(1, 256), PL_FP32, "x");
    ck_assert_int_eq(pld_run(&cfg, lat_host, &x), 0);
    pl_tensor_free(&x);
    for (int r = 0; r < 2; r++) {
        /* the peer's notify: signal_lat, then the route's latency and 4 B
         * over its bandwidth to land (docs/models.md); the consumer's
         * launch follows once that, its waiter and a core are done; in submission
         * order, so on one core it comes before the publisher when its
         * condition held at once */
        double landed = D.notify_start[1 - r] + 100e-9 + 3e-6 + 4 / 10e9;
        double ready = fmax(landed, D.waiter_end[r]);
        if (_i && landed > D.waiter_end[r]) /* the one core runs the publisher meanwhile */
            ready = fmax(ready, D.publisher_end[r]);
        ck_assert_msg(fabs(D.consumer_start[r] - (ready + LAUNCH)) < 1e-12,
                      "rank %d: consumer at %.12g s, the closed form %.12g s", r,
                      D.consumer_start[r], ready + LAUNCH);
    }
    ck_assert_msg(D.waiter_end[0] < D.notify_start[1] && D.waiter_end[1] > D.notify_start[0] + 4e-6,
                  "the case is meant to have rank 0 register before its condition holds, and "
                  "rank 1 after");
}
END_TEST

/* ---- graphs that cannot finish: the report names what holds them ---- */

static int stuck_kind; /* 0: a defer_wait that never holds; 1: a cycle through
                        * deferred signals; 2: a cycle of blocking waits */
static _Atomic int wait_line;

struct stuck_args {
    pld_dtensor signal;
    int peer;
};

static void graph_deferer(const struct stuck_args *a)
{
    // clang-format off
    wait_line = __LINE__; pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    // clang-format on
}

static void graph_blocker(const struct stuck_args *a)
{
    // clang-format off
    wait_line = __LINE__; pld_system_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
    // clang-format on
}

static void graph_notifier(const struct stuck_args *a)
{
    pld_system_notify(a->signal, .peer = a->peer, .offsets = PL_IDX(0, 0), .value = 1,
                      .op = PLD_NOTIFY_SET);
}

static void graph_after(const struct stuck_args *a)
{
    (void)a;
}

static void stuck_device(const struct stuck_args *a)
{
    pld_manual_scope_begin();
    pld_task_id w = stuck_kind == 2 ? pld_at(graph_blocker, *a) : pld_at(graph_deferer, *a);
    if (stuck_kind == 0)
        pld_at(graph_after, *a, .deps = &w, .ndeps = 1);
    else
        pld_at(graph_notifier, *a, .deps = &w, .ndeps = 1);
    pld_manual_scope_end();
}

static void stuck_host(const void *unused)
{
    (void)unused;
    pld_buffer sb = pld_alloc_window_buffer(PL_SHAPE(1, 16), PL_INT32, .name = "signal");
    for (int r = 0; r < 2; r++) {
        struct stuck_args a = {.signal = pld_window(sb, PL_SHAPE(1, 1), PL_INT32), .peer = 1 - r};
        pld_dispatch(r, stuck_device, a);
    }
}

/* Once, on sim, each of these said only "0 ranks blocked in pld_system_wait"
 * (the waits of a graph's tasks are on its cores, and a deferred condition
 * is no wait at all).  Now the report, on sim and threads, names the wait
 * or the deferred condition at its line, its cell, and the task that never
 * started. */
START_TEST(a_graph_that_cannot_finish_names_its_waits_and_tasks)
{
    stuck_kind = _i / 2;
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.backend = backends[_i % 2];
    /* threads polls a deferred condition until the wait timeout */
    cfg.wait_timeout = _i % 2 ? 0.5 : 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, stuck_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EDEADLOCK);
    char want[256];
    snprintf(want, sizeof want, "check_tasks.c:%d: rank ", wait_line);
    ck_assert_contains(err, want);
    ck_assert_contains(err, stuck_kind == 2 ? "task graph_blocker waits for signal[0, 0] >= 1; the "
                                              "cell holds 0"
                                            : "task graph_deferer defers its completion until "
                                              "signal[0, 0] >= 1; the cell holds 0");
    ck_assert_contains(err, "1 task of this manual scope never started");
    ck_assert_contains(err, stuck_kind == 0 ? "it is graph_after (tests/unit/check_tasks.c:"
                                            : "it is graph_notifier (tests/unit/check_tasks.c:");
    free(err);
}
END_TEST

/* ---- split-phase collectives (pld_deferred, upstream's defer=True) ----
 * On one core per rank: a task gathers 256 FP32 split-phase, a second
 * computes, a third (after both) reads the rows.  Split, the compute task
 * has the core while the peer's credit travels, and the gather's rest (its
 * epilogue) runs once the credit has landed; blocking, the gather holds
 * the core until then.  Rank 0 is dispatched first, so its credit comes
 * late: that is the rank where the difference shows. */
static struct {
    double compute_start[2], gather_end[2], consumer_start[2];
    float row[2][2];
} S;

struct split_args {
    pl_tensor local;         /* [1, 256] */
    pld_dtensor target, sig; /* [2, 256] FP32, [2, 1] INT32 */
    int defer;
};

static void split_gather(const struct split_args *a)
{
    if (a->defer)
        pld_deferred(pld_tensor_allgather(a->local, a->target, a->sig));
    else
        pld_tensor_allgather(a->local, a->target, a->sig);
    S.gather_end[pld_rank(pld_get_comm_ctx(a->sig))] = pld_time();
}

static void split_compute(const struct split_args *a)
{
    S.compute_start[pld_rank(pld_get_comm_ctx(a->sig))] = pld_time();
    pl_tile t = pl_load(a->local, PL_IDX(0, 0), PL_SHAPE(1, 256));
    for (int i = 0; i < 16; i++)
        t = pl_add(t, t);
}

static void split_consume(const struct split_args *a)
{
    int me = pld_rank(pld_get_comm_ctx(a->sig));
    S.consumer_start[me] = pld_time();
    for (int r = 0; r < 2; r++)
        S.row[me][r] = (float)pl_read(a->target, PL_IDX(r, 5));
}

static void split_device(const struct split_args *a)
{
    pld_manual_scope_begin();
    pld_task_id dep[2] = {pld_at(split_gather, *a), pld_at(split_compute, *a)};
    pld_at(split_consume, *a, .deps = dep, .ndeps = 2);
    pld_manual_scope_end();
}

static pl_tensor split_local[2];

static void split_host(const int *defer)
{
    pld_buffer tb = pld_alloc_window_buffer(PL_SHAPE(2, 256), PL_FP32, .name = "target");
    pld_buffer sb = pld_alloc_window_buffer(PL_SHAPE(16, 1), PL_INT32, .name = "sig");
    for (int r = 0; r < 2; r++) {
        pl_tensor local = split_local[r];
        for (int i = 0; i < 256; i++)
            pl_tensor_set(local, i, 100 * r + i);
        struct split_args a = {.local = local,
                               .target = pld_window(tb, PL_SHAPE(2, 256), PL_FP32),
                               .sig = pld_window(sb, PL_SHAPE(2, 1), PL_INT32),
                               .defer = *defer};
        pld_dispatch(r, split_device, a);
    }
}

START_TEST(a_split_phase_gather_frees_its_core_until_the_credit_lands)
{
    int defer = _i;
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    cfg.topology = "mesh:2,aiv_cores=1,lat=3us,bw=10GBps,launch_lat=1us,signal_lat=100ns";
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    memset(&S, 0, sizeof S);
    for (int r = 0; r < 2; r++)
        split_local[r] = pl_tensor_new(PL_SHAPE(1, 256), PL_FP32, "local");
    ck_assert_int_eq(pld_run(&cfg, split_host, &defer), 0);
    for (int r = 0; r < 2; r++)
        pl_tensor_free(&split_local[r]);
    for (int r = 0; r < 2; r++) {
        ck_assert_msg(S.row[r][0] == 5.0f && S.row[r][1] == 105.0f, "rank %d read %g %g", r,
                      S.row[r][0], S.row[r][1]);
    }
    /* on rank 0 the compute task follows the gather's first half on the one
     * core; on rank 1 the credit is there already, so the gather's rest
     * (submitted first) takes the core before it, with a launch of its own */
    ck_assert_msg(fabs(S.compute_start[0] - (S.gather_end[0] + LAUNCH)) < 1e-12,
                  "rank 0: compute at %.12g, gather's first half ended %.12g", S.compute_start[0],
                  S.gather_end[0]);
    if (defer)
        ck_assert_msg(S.compute_start[1] > S.gather_end[1] + 2 * LAUNCH,
                      "rank 1: compute at %.12g, before the gather's rest (first half ended "
                      "%.12g)",
                      S.compute_start[1], S.gather_end[1]);
    /* rank 1's credit reaches rank 0 only after rank 1's dispatch: split,
     * rank 0's gather returned long before (it only registered its wait),
     * and blocking it returned after the credit, so the compute task
     * started later by about the dispatch skew */
    if (defer)
        ck_assert_msg(S.gather_end[0] + 100e-6 < S.gather_end[1],
                      "split: rank 0's gather ended %.9g, rank 1's %.9g", S.gather_end[0],
                      S.gather_end[1]);
    else
        ck_assert_msg(S.gather_end[0] > S.gather_end[1] - 100e-6,
                      "blocking: rank 0's gather ended %.9g, rank 1's %.9g", S.gather_end[0],
                      S.gather_end[1]);
    /* either way the reader waits for the rows */
    ck_assert_msg(S.consumer_start[0] > S.gather_end[1], "rank 0 read at %.9g, before %.9g",
                  S.consumer_start[0], S.gather_end[1]);
}
END_TEST

/* ---- errors ---- */

static int misuse;

static void misuse_kernel(const struct lat_args *a)
{
    switch (misuse) {
    case 0: /* defer_wait in a kernel launched with pl_incore */
    case 1: /* Eq */
        pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = 1,
                              .cmp = misuse == 1 ? PLD_WAIT_EQ : PLD_WAIT_GE);
        break;
    case 2: /* a negative threshold */
        pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = -1,
                              .cmp = PLD_WAIT_GE);
        break;
    case 3: /* 65 conditions */
        for (int i = 0; i < 65; i++)
            pld_system_defer_wait(a->signal, .offsets = PL_IDX(0, 0), .expected = 0,
                                  .cmp = PLD_WAIT_GE);
        break;
    case 11: /* a collective without a split-phase form */
        pld_deferred(pld_tensor_allreduce(a->signal, a->signal));
        break;
    case 12: /* split phase in a kernel launched with pl_incore */
        pld_deferred(pld_tensor_barrier(a->signal));
        break;
    case 13: /* around something that is not a collective, then a plain collective: the
              * flag must not carry over and make the barrier split-phase unasked */
        (void)pld_deferred(pl_slice(a->signal, PL_SHAPE(1, 1), PL_SHAPE(0, 0)));
        pld_tensor_barrier(a->signal);
        break;
    }
}

static pld_task_id stale;

static void misuse_device(const struct lat_args *a)
{
    switch (misuse) {
    case 0:
    case 12:
        pl_incore(misuse_kernel, a);
        break;
    case 1:
    case 2:
    case 3:
    case 11:
    case 13:
        pld_manual_scope_begin();
        pld_at(misuse_kernel, *a);
        pld_manual_scope_end();
        break;
    case 4:
        pld_manual_scope_begin();
        pld_manual_scope_begin();
        break;
    case 5:
        pld_manual_scope_end();
        break;
    case 6: /* a dependency from an earlier scope */
        pld_manual_scope_begin();
        stale = pld_at(lat_consumer, *a);
        pld_manual_scope_end();
        pld_manual_scope_begin();
        pld_at(lat_consumer, *a, .deps = &stale, .ndeps = 1);
        pld_manual_scope_end();
        break;
    case 7: { /* a dependency never submitted */
        pld_task_id bogus = {.scope = 0, .index = 3};
        pld_manual_scope_begin();
        pld_task_id ok = pld_at(lat_consumer, *a);
        bogus.scope = ok.scope;
        pld_at(lat_consumer, *a, .deps = &bogus, .ndeps = 1);
        pld_manual_scope_end();
        break;
    }
    case 9: { /* a task submitted outside any scope, as a dependency inside one; on every
               * rank, so that the others are inside such a task when the run ends (the
               * sim backend once freed the stack frame it keeps them in: SIGSEGV) */
        pld_task_id outside = pld_at(lat_consumer, *a);
        pld_manual_scope_begin();
        pld_at(lat_consumer, *a, .deps = &outside, .ndeps = 1);
        pld_manual_scope_end();
        break;
    }
    case 10: /* returns with the scope open: its task would never run */
        pld_manual_scope_begin();
        pld_at(lat_consumer, *a);
        return;
    case 14: /* a further block of an SPMD task, with no first block */
    case 15: /* a block flag that is neither */
        pld_manual_scope_begin();
        pld__at_task(__FILE__, __LINE__, "block", (pld__task_fn)(void (*)(void))lat_consumer, a,
                     sizeof *a, NULL, 0, 1, 0, misuse == 14 ? 1 : 2);
        pld_manual_scope_end();
        break;
    }
}

static void misuse_host(const void *unused)
{
    (void)unused;
    /* [2, 1]: a barrier's signal over the 2 ranks (misuse 13) */
    pld_buffer sb = pld_alloc_window_buffer(PL_SHAPE(2, 1), PL_INT32, .name = "signal");
    struct lat_args a = {.signal = pld_window(sb, PL_SHAPE(2, 1), PL_INT32), .peer = 1};
    if (misuse == 8) { /* on the host */
        pld_manual_scope_begin();
        return;
    }
    for (int r = 0; r < (misuse == 9 ? 2 : 1); r++)
        pld_dispatch(r, misuse_device, a);
}

static const struct {
    const char *op, *message;
} misuses[] = {
    {"pld_system_defer_wait", "defer_wait belongs in a task of its own (pld_at"},
    {"pld_system_defer_wait", "deferred completion supports only PLD_WAIT_GE"},
    {"pld_system_defer_wait", "expected -1 is outside [0, 2147483647]"},
    {"pld_system_defer_wait", "more than 64 deferred conditions"},
    {"pld_manual_scope_begin", "manual scopes do not nest"},
    {"pld_manual_scope_end", "no manual scope is open on this rank"},
    {"pld_at", "dependency 0 is not a task of this manual scope"},
    {"pld_at", "dependency 0 names task 3, of 1 submitted"},
    {"pld_manual_scope_begin", "host"},
    {"pld_at", "dependency 0 is not a task of this manual scope"},
    {"pld_manual_scope_begin",
     "per-device function misuse_device returned with this manual scope open, so its 1 "
     "submitted task never ran; end the scope with pld_manual_scope_end before returning"},
    {"pld_tensor_allreduce", "defer=True is for the mesh builtins with one barrier (allgather, "
                             "all_to_all, all_to_all_v, broadcast, barrier); pld_tensor_allreduce "
                             "has no split-phase form"},
    {"pld_deferred", "a split-phase collective (defer=True) belongs in a task of its own (pld_at"},
    {"pld_deferred", "the call it wraps is not a split-phase collective"},
    {"pld_at", "a further block of an SPMD task follows its first block in the same manual scope; "
               "this scope has no task yet"},
    {"pld_at", "block is 2; expected 0 (a task of its own) or 1 (a further block of the last)"},
};

START_TEST(each_misuse_gets_one_message_at_its_line)
{
    misuse = _i;
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.summary = 0;
    ck_assert_int_eq(pld_config_set_devices(&cfg, "0,1"), 0);
    capture_stderr_begin();
    int rc = pld_run(&cfg, misuse_host, NULL);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_int_eq(count_error_lines(err), 1);
    ck_assert_msg(strstr(err, "check_tasks.c:"), "no file:line in:\n%s", err);
    ck_assert_msg(strstr(err, misuses[_i].op), "no %s in:\n%s", misuses[_i].op, err);
    ck_assert_msg(strstr(err, misuses[_i].message), "expected \"%s\" in:\n%s", misuses[_i].message,
                  err);
    free(err);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("tasks");
    TCase *tc = tcase_create("graphs");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, deferred_waiters_release_their_cores, 0, 4);
    tcase_add_test(tc, blocking_waiters_on_every_core_deadlock);
    tcase_add_test(tc, blocking_waiters_with_a_core_to_spare_complete);
    tcase_add_loop_test(tc, cube_tasks_run_on_cube_cores_beside_vector_tasks, 0, 3);
    tcase_add_loop_test(tc, independent_tasks_run_at_once_and_a_chain_in_turn, 0, 3);
    tcase_add_loop_test(tc, tasks_start_no_earlier_than_their_submission, 0, 2);
    tcase_add_test(tc, a_core_waits_for_a_submission_free_to_take_an_earlier_task);
    tcase_add_loop_test(tc, the_timeline_draws_tasks_at_once_in_rows, 0, 2);
    tcase_add_loop_test(tc, a_consumer_starts_when_the_condition_holds, 0, 2);
    tcase_add_loop_test(tc, every_task_runs_once_after_its_dependencies, 0, 4);
    tcase_add_loop_test(tc, a_split_phase_gather_frees_its_core_until_the_credit_lands, 0, 2);
    tcase_add_loop_test(tc, a_graph_that_cannot_finish_names_its_waits_and_tasks, 0, 6);
    tcase_add_loop_test(tc, each_misuse_gets_one_message_at_its_line, 0,
                        (int)(sizeof misuses / sizeof misuses[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
