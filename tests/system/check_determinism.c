/* check_determinism.c: the same step twice gives byte-identical traces and
 * the same simulated time; the trace holds one line per primitive. */
#include "checktools.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *step, *args;
} runs[] = {
    {"01_hello_rank", ""},
    {"04_barrier", ""},
    {"04_barrier", "--use-builtin"},
    {"05_remote_load_store", "--mode store"},
    {"06_put_get", "--mode put"},
    {"06_put_get", "--mode get"},
    {"07_dynamic_rank_count", "-d 0-7 --mode get"},
    {"07_dynamic_rank_count", "-d 0-11 --mode put"},
    {"10_allreduce_ring", "-d 0-7"},
    {"11_allreduce_reveal", "--mode ring -d 0-4"},
    {"15_all_to_all", "--mode builtin -d 0-5"},
    {"16_putting_it_together", "-d 0-3"},
};

static char *trace_of(const char *step, const char *args, char **out)
{
    char *path = write_temp(".txt", "");
    struct cmd_result r = run_cmd("%s %s --trace %s", tutorial(step), args, path);
    ck_assert_msg(r.status == 0, "%s %s failed:\n%s", step, args, r.err);
    char *text = slurp(path);
    unlink(path);
    free(path);
    *out = r.out;
    free(r.err);
    return text;
}

START_TEST(two_runs_give_identical_traces)
{
    char *out1, *out2;
    char *a = trace_of(runs[_i].step, runs[_i].args, &out1);
    char *b = trace_of(runs[_i].step, runs[_i].args, &out2);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(strlen(a) > 200, "trace too short:\n%s", a);
    ck_assert_msg(strcmp(a, b) == 0, "traces differ:\n--- first\n%s\n--- second\n%s", a, b);
    ck_assert_str_eq(out1, out2); /* same summary line, same simulated time */
    free(a);
    free(b);
    free(out1);
    free(out2);
}
END_TEST

START_TEST(trace_lists_each_primitive)
{
    char *out;
    char *t = trace_of("06_put_get", "--mode put", &out);
    /* Per rank: dispatch, launch, load x, store src, put, notify, wait, load
     * dst, store y. */
    ck_assert_int_eq(count_lines_with(t, " dispatch "), 2);
    ck_assert_int_eq(count_lines_with(t, " launch "), 2);
    ck_assert_int_eq(count_lines_with(t, " put "), 2);
    ck_assert_int_eq(count_lines_with(t, " notify_add "), 2);
    ck_assert_int_eq(count_lines_with(t, " wait_ge "), 2);
    ck_assert_int_eq(count_lines_with(t, " load "), 4);
    ck_assert_int_eq(count_lines_with(t, " store "), 4);
    /* A put of 64 FP32 from r0 lands in r1's window slot 'dst', which starts
     * at byte 256, right after the 256-byte 'src' slot. */
    ck_assert_contains(t, "r0    put              r1    dst               256      256");
    ck_assert_contains(t, "put_get.h:");
    free(t);
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("traces");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, two_runs_give_identical_traces, 0, (int)(sizeof runs / sizeof runs[0]));
    tcase_add_test(tc, trace_lists_each_primitive);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
