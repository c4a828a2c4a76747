/* check_tutorials.c: every tutorial step 01-07 in every mode at every P it
 * supports checks its golden and prints OK; the steps that need exactly two
 * devices refuse any other count with a clear message. */
#include "checktools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Steps 01-07: each mode at the P it supports. */
static const struct {
    const char *step;
    const char *args;
} fixed_runs[] = {
    {"01_hello_rank", ""},
    {"02_programming_model", ""},
    {"03_window_buffer", ""},
    {"04_barrier", ""},
    {"04_barrier", "--use-builtin"},
    {"05_remote_load_store", "--mode load"},
    {"05_remote_load_store", "--mode store"},
    {"06_put_get", "--mode put"},
    {"06_put_get", "--mode get"},
    {"07_dynamic_rank_count", "--mode put -d 0,1"},
    {"07_dynamic_rank_count", "--mode get -d 0,1"},
    {"07_dynamic_rank_count", "--mode put -d 0,1,2"},
    {"07_dynamic_rank_count", "--mode get -d 0,1,2"},
    {"07_dynamic_rank_count", "--mode put -d 0-3"},
    {"07_dynamic_rank_count", "--mode get -d 0-3"},
    {"07_dynamic_rank_count", "--mode put -d 0-7"},
    {"07_dynamic_rank_count", "--mode get -d 0-7"},
    /* beyond one 8-device node: exercises the multi-node a2a3 platform */
    {"07_dynamic_rank_count", "--mode put -d 0-15"},
    {"07_dynamic_rank_count", "--mode get -d 0-15"},
    /* the same steps on the a5 model and with other seeds */
    {"05_remote_load_store", "--mode store -p a5sim --seed 7"},
    {"06_put_get", "--mode get --seed 12345"},
    /* 11's reveal also runs the hand-rolled kernel and checks its golden */
    {"11_allreduce_reveal", "--mode mesh --show-lowering -d 0-7"},
    {"11_allreduce_reveal", "--mode ring --show-lowering -d 0-7"},
};

/* Steps 08-16: every mode at P = 2, 3, 4, 8, 16 (09 and 10, which need P to
 * divide 64: at 2, 4, 8, 16). */
static const struct {
    const char *step;
    const char *modes[3];
    int divides_64;
} ladder[] = {
    {"08_allreduce_mesh", {""}, 0},
    {"09_allreduce_two_phase", {""}, 1},
    {"10_allreduce_ring", {""}, 1},
    {"11_allreduce_reveal", {"--mode mesh", "--mode ring"}, 0},
    {"12_broadcast", {"--mode hand", "--mode builtin"}, 0},
    {"13_allgather", {"--mode hand", "--mode builtin"}, 0},
    {"14_reduce_scatter", {"--mode hand", "--mode builtin"}, 0},
    {"15_all_to_all", {"--mode hand", "--mode builtin"}, 0},
    {"16_putting_it_together", {""}, 0},
};
static const int ladder_p[] = {2, 3, 4, 8, 16};

#define MAX_RUNS 256
static struct {
    const char *step;
    char args[96];
} runs[MAX_RUNS];
static int nruns;

/* The whole ladder on the threads backend at P = 2, 3, 4, 8. */
static void plan_thread_runs(void)
{
    static const struct {
        const char *step, *modes[3];
        int two_only, divides_64;
    } all[] = {
        {"01_hello_rank", {""}, 1, 0},
        {"02_programming_model", {""}, 1, 0},
        {"03_window_buffer", {""}, 1, 0},
        {"04_barrier", {"", "--use-builtin"}, 1, 0},
        {"05_remote_load_store", {"--mode load", "--mode store"}, 1, 0},
        {"06_put_get", {"--mode put", "--mode get"}, 1, 0},
        {"07_dynamic_rank_count", {"--mode put", "--mode get"}, 0, 0},
        {"08_allreduce_mesh", {""}, 0, 0},
        {"09_allreduce_two_phase", {""}, 0, 1},
        {"10_allreduce_ring", {""}, 0, 1},
        {"11_allreduce_reveal", {"--mode mesh", "--mode ring"}, 0, 0},
        {"12_broadcast", {"--mode hand", "--mode builtin"}, 0, 0},
        {"13_allgather", {"--mode hand", "--mode builtin"}, 0, 0},
        {"14_reduce_scatter", {"--mode hand", "--mode builtin"}, 0, 0},
        {"15_all_to_all", {"--mode hand", "--mode builtin"}, 0, 0},
        {"16_putting_it_together", {""}, 0, 0},
    };
    static const int ps[] = {2, 3, 4, 8};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (int m = 0; m < 3 && (m == 0 || all[i].modes[m]); m++)
            for (int k = 0; k < 4; k++) {
                int p = ps[k];
                if ((all[i].two_only && p != 2) || (all[i].divides_64 && 64 % p))
                    continue;
                runs[nruns].step = all[i].step;
                snprintf(runs[nruns++].args, sizeof runs[0].args, "%s -d 0-%d --backend threads",
                         all[i].modes[m] ? all[i].modes[m] : "", p - 1);
            }
}

static void plan_runs(void)
{
    for (size_t i = 0; i < sizeof fixed_runs / sizeof fixed_runs[0]; i++) {
        runs[nruns].step = fixed_runs[i].step;
        snprintf(runs[nruns++].args, sizeof runs[0].args, "%s", fixed_runs[i].args);
    }
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        for (int m = 0; m < 3 && (m == 0 || ladder[i].modes[m]); m++)
            for (size_t k = 0; k < sizeof ladder_p / sizeof ladder_p[0]; k++) {
                int p = ladder_p[k];
                if (ladder[i].divides_64 && 64 % p)
                    continue;
                runs[nruns].step = ladder[i].step;
                snprintf(runs[nruns++].args, sizeof runs[0].args, "%s -d 0-%d",
                         ladder[i].modes[m] ? ladder[i].modes[m] : "", p - 1);
            }
}

START_TEST(step_passes_its_golden)
{
    struct cmd_result r = run_cmd("%s %s", tutorial(runs[_i].step), runs[_i].args);
    ck_assert_msg(r.status == 0, "%s %s exited %d\nstdout:\n%s\nstderr:\n%s", runs[_i].step,
                  runs[_i].args, r.status, r.out, r.err);
    ck_assert_msg(count_lines_with(r.out, "OK") == 1 && strstr(r.out, "\nOK\n"),
                  "%s %s: no OK line in:\n%s", runs[_i].step, runs[_i].args, r.out);
    ck_assert_contains(r.out, strstr(runs[_i].args, "threads") ? "[pldsim] backend=threads"
                                                               : "[pldsim] backend=sim");
    ck_assert_msg(count_error_lines(r.err) == 0, "stderr:\n%s", r.err);
    cmd_result_free(&r);
}
END_TEST

static const char *const two_device_steps[] = {
    "01_hello_rank", "02_programming_model", "03_window_buffer",
    "04_barrier",    "05_remote_load_store", "06_put_get",
};

START_TEST(two_device_steps_refuse_other_counts)
{
    static const char *const lists[] = {"0", "0,1,2", "0-3"};
    for (int k = 0; k < 3; k++) {
        struct cmd_result r = run_cmd("%s -d %s", tutorial(two_device_steps[_i]), lists[k]);
        ck_assert_int_eq(r.status, 2);
        ck_assert_contains(r.err, "needs exactly 2 devices");
        ck_assert_int_eq(count_error_lines(r.err), 1); /* one message */
        ck_assert_msg(strstr(r.out, "OK") == NULL, "refused run printed OK");
        cmd_result_free(&r);
    }
}
END_TEST

START_TEST(steps_09_and_10_refuse_p_not_dividing_64)
{
    static const char *const steps[] = {"09_allreduce_two_phase", "10_allreduce_ring"};
    for (int k = 0; k < 2; k++) {
        struct cmd_result r = run_cmd("%s -d 0-2", tutorial(steps[k]));
        ck_assert_int_eq(r.status, 2);
        ck_assert_contains(r.err, "so P must divide 64; got P=3");
        ck_assert_int_eq(count_error_lines(r.err), 1);
        cmd_result_free(&r);
    }
}
END_TEST

/* The reveal prints the builtin's primitives and a diff whose '+' lines are
 * exactly what the builtin adds (see the comment at the top of step 11). */
START_TEST(reveal_shows_what_the_builtin_adds)
{
    struct cmd_result r = run_cmd("%s --show-lowering -d 0-3", tutorial("11_allreduce_reveal"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "== what pld_tensor_allreduce(.mode = mesh) ran on rank 0 (P=4) ==");
    ck_assert_contains(r.out, "--- step 08, hand-rolled mesh, rank 0");
    ck_assert_contains(r.out, "+++ pld_tensor_allreduce, mode mesh, rank 0");
    /* read-done barrier, store back, epilogue */
    ck_assert_int_eq(count_lines_with(r.out, "+wait_ge          -    signal["), 3);
    ck_assert_contains(r.out, "+wait_ge          -    signal[1, 0]       >= 2");
    ck_assert_contains(r.out, "+notify_add       r0   signal[3, 0]       value -2");
    ck_assert_contains(r.out, "+store            -    data[0, 0]         n=64");
    /* the hand-rolled barrier is common to both */
    ck_assert_contains(r.out, " wait_ge          -    signal[1, 0]       >= 1");
    cmd_result_free(&r);

    r = run_cmd("%s --show-lowering --mode ring -d 0-3", tutorial("11_allreduce_reveal"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "--- step 10, hand-rolled ring, rank 0");
    /* read-complete notifies to the left neighbour (r3 for rank 0), one per
     * round: 2(P-1) = 6, all of them added by the builtin */
    ck_assert_int_eq(count_lines_with(r.out, "+notify_add       r3"), 6);
    ck_assert_int_eq(count_lines_with(r.out, "-notify_add       r3"), 0);
    /* the epilogue returns all 2 * 6 cells it was credited */
    ck_assert_int_eq(count_lines_with(r.out, "value -1"), 2 * 12); /* listing + diff */
    cmd_result_free(&r);
}
END_TEST

/* Every shipped model generates and runs at P = 2, 8, 64 and 256. */
static const char *const models[] = {"a2a3sim", "a5sim",   "hgx-h100", "ring",
                                     "torus2d", "torus3d", "fat-tree"};
static const int model_p[] = {2, 8, 64, 256};

START_TEST(every_model_loads_and_runs)
{
    const char *model = models[_i / 4];
    int p = model_p[_i % 4];
    struct cmd_result r =
        run_cmd("%s -p %s -d 0-%d --mode get", tutorial("07_dynamic_rank_count"), model, p - 1);
    ck_assert_msg(r.status == 0 && strstr(r.out, "\nOK\n"), "%s at P=%d: exit %d\n%s%s", model, p,
                  r.status, r.out, r.err);
    char want[128];
    snprintf(want, sizeof want, "platform=%s P=%d ", model, p);
    ck_assert_contains(r.out, want);
    cmd_result_free(&r);
}
END_TEST

START_TEST(step07_refuses_one_device)
{
    struct cmd_result r = run_cmd("%s -d 0", tutorial("07_dynamic_rank_count"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "needs at least 2 devices");
    cmd_result_free(&r);
}
END_TEST

START_TEST(help_and_bad_flags)
{
    struct cmd_result r = run_cmd("%s --help", tutorial("06_put_get"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_contains(r.out, "--mode MODE");
    ck_assert_contains(r.out, "put get");
    ck_assert_contains(r.out, "--platform");
    cmd_result_free(&r);

    r = run_cmd("%s --mode sideways", tutorial("06_put_get"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "--mode 'sideways' is not one of: put get");
    cmd_result_free(&r);

    r = run_cmd("%s --frobnicate", tutorial("01_hello_rank"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "unknown option '--frobnicate'");
    cmd_result_free(&r);

    r = run_cmd("%s -d 0,x", tutorial("07_dynamic_rank_count"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "-d/--device '0,x'");
    cmd_result_free(&r);

    r = run_cmd("%s -d 0,1,1", tutorial("07_dynamic_rank_count"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "device 1 is listed twice");
    cmd_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tutorials");
    TCase *tc = tcase_create("steps");
    tcase_set_timeout(tc, 60);
    plan_runs();
    plan_thread_runs();
    tcase_add_loop_test(tc, step_passes_its_golden, 0, nruns);
    tcase_add_test(tc, steps_09_and_10_refuse_p_not_dividing_64);
    tcase_add_test(tc, reveal_shows_what_the_builtin_adds);
    tcase_add_loop_test(tc, two_device_steps_refuse_other_counts, 0,
                        (int)(sizeof two_device_steps / sizeof two_device_steps[0]));
    tcase_add_test(tc, step07_refuses_one_device);
    tcase_add_loop_test(tc, every_model_loads_and_runs, 0, 7 * 4);
    tcase_add_test(tc, help_and_bad_flags);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
