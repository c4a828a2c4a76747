/* check_embed.c: the guards and errors of <pld/pld_embed.h>, which the
 * Python front end relies on to unwind its interpreter when a run ends.
 * Each case runs on sim with SimGrid's default coroutines (what pldsim-py
 * uses) and with its thread factory (pldsim-py's fallback), and on the
 * threads backend:
 *  1. an API error inside a guard returns to that guard, and a rank
 *     blocked in a guarded wait meanwhile escapes too; the run fails with
 *     the error's code and its one message;
 *  2. a deadlock: every guarded wait escapes, the report is printed once;
 *  3. pld_embed_fail prints its preface and one line, and sets the code;
 *  4. the thread factory gives every rank an OS thread of its own;
 *  5. each rank finds its own innermost guard, and the front end's word in
 *     it, after calls that ran the other ranks;
 *  6. outside a run, guards do nothing; a bad context factory is refused;
 *  7. a kernel learns the UB it may use (pld_embed_ub_usable), 0 outside. */
#include "checktools.h"

#include <pld/pld_embed.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 64 };
enum scenario { BAD_LOAD, DEADLOCK, FRONT_END_ERROR, GUARD_STACK };

static enum scenario S;
/* what each rank saw: 1 = the guarded call returned normally, 2 = escaped */
static int outcome[4];
static int aborting_after[4];
static pthread_t thread_of[4]; /* the OS thread each rank's kernel ran on */
/* GUARD_STACK: each rank's word, and whether pld_guard_innermost gave the
 * rank's own guards at each point */
static int word[4], innermost_ok[4];
/* GUARD_STACK: the UB each rank's kernel was told it may use */
static double ub_usable[4];
static int line_bad;
/* threads: rank 1 waits until rank 0 is about to block, as on sim, where
 * the host's dispatch order guarantees it */
static int rank0_waiting, order_ranks;

static void start_after_rank0(int me)
{
    if (me == 0)
        __atomic_store_n(&rank0_waiting, 1, __ATOMIC_RELEASE);
    while (me == 1 && order_ranks && !__atomic_load_n(&rank0_waiting, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void kernel(pl_tensor x, pld_dtensor data, pld_dtensor sig)
{
    pld_comm_ctx ctx = pld_get_comm_ctx(data);
    int me = pld_rank(ctx);
    thread_of[me] = pthread_self();
    pld_guard g;
    volatile int ok = pld_guard_innermost() == NULL;
    g.data = &word[me];
    pld_guard_push(&g);
    if (sigsetjmp(g.env, 0) == 0) {
        switch (S) {
        case BAD_LOAD: /* rank 1 starts last, when rank 0 is blocked */
            start_after_rank0(me);
            if (me == 1) {
                line_bad = __LINE__ + 1;
                (void)pl_load(x, PL_IDX(0, 1000), PL_SHAPE(1, SIZE));
            }
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            break;
        case DEADLOCK:
            pld_system_wait(sig, .offsets = PL_IDX(me, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            break;
        case FRONT_END_ERROR:
            start_after_rank0(me);
            if (me == 1) {
                line_bad = __LINE__ + 1;
                pld_embed_fail(PLD_EINVAL, "prog.py", 42, "kernel k", "Traceback: (a preface)\n",
                               "ZeroDivisionError: %s", "division by zero");
            }
            pld_system_wait(sig, .offsets = PL_IDX(0, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            break;
        case GUARD_STACK: {
            pld_guard inner;
            ub_usable[me] = pld_embed_ub_usable();
            inner.data = NULL;
            ok = ok && pld_guard_innermost() == &g;
            pld_guard_push(&inner);
            ok = ok && pld_guard_innermost() == &inner;
            /* both ranks meet here: each waits while the other runs */
            pld_system_notify(sig, .peer = 1 - me, .offsets = PL_IDX(me, 0), .value = 1,
                              .op = PLD_NOTIFY_ATOMIC_ADD);
            pld_system_wait(sig, .offsets = PL_IDX(1 - me, 0), .expected = 1, .cmp = PLD_WAIT_GE);
            ok = ok && pld_guard_innermost() == &inner;
            pld_guard_pop(&inner);
            pld_guard *top = pld_guard_innermost();
            ok = ok && top == &g && top->data == &word[me];
            break;
        }
        }
        pld_guard_pop(&g);
        innermost_ok[me] = ok && pld_guard_innermost() == NULL;
        outcome[me] = 1;
    } else {
        outcome[me] = 2;
    }
    pld_guard_pop(&g); /* harmless after an escape or a pop */
    aborting_after[me] = pld_run_aborting();
}

struct rank_args {
    pl_tensor x;
    pld_dtensor data, sig;
};

static void per_rank(const struct rank_args *a)
{
    pl_incore(kernel, a->x, a->data, a->sig);
}

struct host_args {
    pl_tensor x;
};

static void host(const struct host_args *h)
{
    int nr = (int)pld_world_size();
    pld_buffer d = pld_alloc_window_buffer(PL_SHAPE(1, SIZE), PL_FP32, .name = "data");
    pld_buffer s = pld_alloc_window_buffer(PL_SHAPE(nr, 1), PL_INT32, .name = "sig");
    for (int r = 0; r < nr; r++) {
        struct rank_args a = {pl_at(h->x, r), pld_window(d, PL_SHAPE(1, SIZE), PL_FP32),
                              pld_window(s, PL_SHAPE(nr, 1), PL_INT32)};
        pld_dispatch(r, per_rank, a);
    }
}

/* Under ThreadSanitizer the guards run on thread contexts only: TSan
 * cannot follow a longjmp on a coroutine stack that SimGrid's default
 * factory switched to ("can't find longjmp buf"); the Python front end,
 * which guards are for, does not run in sanitizer builds anyway
 * (tests/check_python.sh). */
static const struct {
    const char *backend, *factory;
} setups[] = {
#ifndef PLD_TSAN
    {"sim", NULL},
#endif
    {"sim", "thread"},
    {"threads", NULL}};

enum { NSETUPS = sizeof setups / sizeof *setups, THREADS = NSETUPS - 1 };

/* Runs scenario `s` at P=2 on setups[i]; returns pld_run's code and what
 * was printed on stderr (caller frees). */
static int run_case(int i, enum scenario s, char **err)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.backend = setups[i].backend;
    cfg.context_factory = setups[i].factory;
    cfg.summary = 0;
    cfg.wait_timeout = s == DEADLOCK && strcmp(cfg.backend, "threads") == 0 ? 2.0 : 0;
    S = s;
    memset(outcome, 0, sizeof outcome);
    rank0_waiting = 0;
    order_ranks = strcmp(cfg.backend, "threads") == 0;
    struct host_args h = {pl_tensor_new(PL_SHAPE(2, 1, SIZE), PL_FP32, "x")};
    capture_stderr_begin();
    int rc = pld_run(&cfg, host, &h);
    *err = capture_stderr_end();
    pl_tensor_free(&h.x);
    return rc;
}

START_TEST(an_error_in_a_guard_returns_to_it_and_blocked_peers_escape)
{
    char *err, where[64];
    int rc = run_case(_i, BAD_LOAD, &err);
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_int_eq(outcome[0], 2);
    ck_assert_int_eq(outcome[1], 2);
    ck_assert_int_eq(aborting_after[0], 1);
    ck_assert_int_eq(aborting_after[1], 1);
    snprintf(where, sizeof where, "check_embed.c:%d: rank 1: pl_load", line_bad);
    ck_assert_int_eq(count_lines_with(err, where), 1);
    ck_assert_msg(count_error_lines(err) == 1, "stderr:\n%s", err);
    free(err);
}
END_TEST

START_TEST(a_deadlock_releases_every_guarded_wait)
{
    char *err;
    int rc = run_case(_i, DEADLOCK, &err);
    ck_assert_int_eq(rc, PLD_EDEADLOCK);
    ck_assert_int_eq(outcome[0], 2);
    ck_assert_int_eq(outcome[1], 2);
    /* one report: a deadlock, or on threads the wait limit it stands for */
    ck_assert_int_eq(count_lines_with(err, "pldsim: deadlock at") +
                         count_lines_with(err, "pldsim: wait timeout at"),
                     1);
    ck_assert_int_eq(count_lines_with(err, "waits for sig["), 2);
    free(err);
}
END_TEST

START_TEST(a_front_end_error_prints_its_preface_and_one_line)
{
    char *err;
    int rc = run_case(_i, FRONT_END_ERROR, &err);
    ck_assert_int_eq(rc, PLD_EINVAL);
    ck_assert_int_eq(outcome[0], 2);
    ck_assert_int_eq(outcome[1], 2);
    ck_assert_int_eq(count_lines_with(err, "Traceback: (a preface)"), 1);
    ck_assert_int_eq(
        count_lines_with(err, "prog.py:42: rank 1: kernel k: ZeroDivisionError: division by zero"),
        1);
    ck_assert_msg(count_error_lines(err) == 2, "stderr:\n%s", err);
    free(err);
}
END_TEST

/* The factory is applied: with thread contexts (and on the threads
 * backend) every rank runs on an OS thread of its own; SimGrid's default
 * coroutines run them all on the thread that called pld_run. */
START_TEST(the_context_factory_is_applied)
{
    char *err;
    run_case(_i, DEADLOCK, &err);
    free(err);
    int own_threads = setups[_i].factory || strcmp(setups[_i].backend, "threads") == 0;
    ck_assert_int_eq(!pthread_equal(thread_of[0], thread_of[1]), own_threads);
    ck_assert_int_eq(!pthread_equal(thread_of[0], pthread_self()), own_threads);
}
END_TEST

/* Each rank's innermost guard is its own, also after a wait that ran the
 * other rank (on sim's coroutines, on the same OS thread and stack switch):
 * what the Python front end finds its thread state by. */
START_TEST(each_rank_finds_its_own_innermost_guard)
{
    char *err;
    memset(innermost_ok, 0, sizeof innermost_ok);
    int rc = run_case(_i, GUARD_STACK, &err);
    ck_assert_msg(rc == 0, "stderr:\n%s", err);
    free(err);
    ck_assert_int_eq(outcome[0], 1);
    ck_assert_int_eq(outcome[1], 1);
    ck_assert_int_eq(innermost_ok[0], 1);
    ck_assert_int_eq(innermost_ok[1], 1);
    /* a2a3's 184 KiB usable of 192 (models/a2a3.model) */
    ck_assert(ub_usable[0] == 184 * 1024.0 && ub_usable[1] == 184 * 1024.0);
}
END_TEST

static const char *rename_load(const char *op)
{
    return strcmp(op, "pl_load") == 0 ? "pl.load" : NULL;
}

/* A front end names the ops of error lines as its users write them. */
START_TEST(error_lines_use_the_front_ends_op_names)
{
    char *err, where[64];
    /* on threads, which (unlike sim) runs more than once per process */
    pld_embed_set_op_names(rename_load);
    run_case(THREADS, BAD_LOAD, &err);
    pld_embed_set_op_names(NULL);
    snprintf(where, sizeof where, "check_embed.c:%d: rank 1: pl.load: region", line_bad);
    ck_assert_msg(count_lines_with(err, where) == 1, "expected %s in:\n%s", where, err);
    free(err);
    run_case(THREADS, BAD_LOAD, &err);
    snprintf(where, sizeof where, "check_embed.c:%d: rank 1: pl_load: region", line_bad);
    ck_assert_int_eq(count_lines_with(err, where), 1);
    free(err);
}
END_TEST

START_TEST(outside_a_run_guards_do_nothing)
{
    pld_guard g;
    pld_guard_push(&g);
    ck_assert_int_eq(sigsetjmp(g.env, 0), 0);
    ck_assert_ptr_null(pld_guard_innermost());
    pld_guard_pop(&g);
    ck_assert_int_eq(pld_run_aborting(), 0);
    ck_assert_int_eq(pld_embed_self(), -2);
    ck_assert(pld_embed_ub_usable() == 0);
}
END_TEST

START_TEST(a_bad_context_factory_is_refused)
{
    pld_config cfg;
    pld_config_init(&cfg);
    cfg.context_factory = "fibers";
    struct host_args h = {pl_tensor_new(PL_SHAPE(2, 1, SIZE), PL_FP32, "x")};
    capture_stderr_begin();
    int rc = pld_run(&cfg, host, &h);
    char *err = capture_stderr_end();
    ck_assert_int_eq(rc, PLD_EUSAGE);
    ck_assert_contains(err, "context factory 'fibers': expected thread, raw, ucontext or boost");
    free(err);
    pl_tensor_free(&h.x);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("embed");
    TCase *tc = tcase_create("guards");
    int n = (int)(sizeof setups / sizeof *setups);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, an_error_in_a_guard_returns_to_it_and_blocked_peers_escape, 0, n);
    tcase_add_loop_test(tc, a_deadlock_releases_every_guarded_wait, 0, n);
    tcase_add_loop_test(tc, a_front_end_error_prints_its_preface_and_one_line, 0, n);
    tcase_add_loop_test(tc, the_context_factory_is_applied, 0, n);
    tcase_add_loop_test(tc, each_rank_finds_its_own_innermost_guard, 0, n);
    tcase_add_test(tc, error_lines_use_the_front_ends_op_names);
    tcase_add_test(tc, outside_a_run_guards_do_nothing);
    tcase_add_test(tc, a_bad_context_factory_is_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
