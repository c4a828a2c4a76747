/* check_tutorials.c: every tutorial step 01-07 in every mode at every P it
 * supports checks its golden and prints OK; the steps that need exactly two
 * devices refuse any other count with a clear message. */
#include "checktools.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *step;
    const char *args;
} runs[] = {
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
};

START_TEST(step_passes_its_golden)
{
    struct cmd_result r = run_cmd("%s %s", tutorial(runs[_i].step), runs[_i].args);
    ck_assert_msg(r.status == 0, "%s %s exited %d\nstdout:\n%s\nstderr:\n%s", runs[_i].step,
                  runs[_i].args, r.status, r.out, r.err);
    ck_assert_msg(count_lines_with(r.out, "OK") == 1 && strstr(r.out, "\nOK\n"),
                  "%s %s: no OK line in:\n%s", runs[_i].step, runs[_i].args, r.out);
    ck_assert_contains(r.out, "[pldsim] backend=sim");
    ck_assert_str_eq(r.err, "");
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
        ck_assert_int_eq(count_lines_with(r.err, ""), 1); /* one message */
        ck_assert_msg(strstr(r.out, "OK") == NULL, "refused run printed OK");
        cmd_result_free(&r);
    }
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
    tcase_add_loop_test(tc, step_passes_its_golden, 0, (int)(sizeof runs / sizeof runs[0]));
    tcase_add_loop_test(tc, two_device_steps_refuse_other_counts, 0,
                        (int)(sizeof two_device_steps / sizeof two_device_steps[0]));
    tcase_add_test(tc, step07_refuses_one_device);
    tcase_add_test(tc, help_and_bad_flags);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
