/* check_trust.c: every simulated time says how far it can be trusted
 * (issue 53, item 4).  The summary shares the ops' time out by the model's
 * trust_* labels:
 *  - on a2a3, step 10 at P = 4: each kind carries a2a3.model's label, the
 *    shares add up, and two kinds hold their closed forms (4 launches of
 *    launch_lat, 4 dispatches of dispatch_lat); no warning line;
 *  - the run's own line ends with the shares by label;
 *  - on a5 (nothing fitted) the run says in one line that its time is
 *    mostly guesses, and the JSON agrees;
 *  - on threads, whose times are the machine's, there is no trust at all;
 *  - a label that is not one of the four is refused in one line. */
#include "checktools.h"
#include "../../src/model/model.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs step 10 at P = 4 with `flags`, its JSON summary into *doc; returns
 * the run (its stdout holds the run's last lines). */
static struct cmd_result run_step10(const char *flags, json_t **doc)
{
    char *path = write_temp(".json", "");
    struct cmd_result r =
        run_cmd("%s -d 0-3 %s --summary-json %s", tutorial("10_allreduce_ring"), flags, path);
    ck_assert_msg(r.status == 0, "%s", r.err);
    json_error_t err;
    *doc = json_load_file(path, 0, &err);
    ck_assert_msg(*doc, "invalid JSON: %s", err.text);
    unlink(path);
    free(path);
    return r;
}

/* models/a2a3.model as built in, read by libpld's own parser: the closed
 * forms follow the model, not a copy of its numbers or of its units. */
static struct pld__model A;

/* The label and op time of `kind` in the summary's trust.kinds. */
static const char *kind_label(json_t *trust, const char *kind, double *us, json_t **share)
{
    json_t *kinds = json_object_get(trust, "kinds");
    for (size_t i = 0; i < json_array_size(kinds); i++) {
        json_t *k = json_array_get(kinds, i);
        if (strcmp(json_string_value(json_object_get(k, "kind")), kind) == 0) {
            *us = json_number_value(json_object_get(k, "op_time_us"));
            *share = json_object_get(k, "share");
            return json_string_value(json_object_get(k, "label"));
        }
    }
    return NULL;
}

START_TEST(a2a3_time_is_mostly_checked)
{
    json_t *doc;
    struct cmd_result r = run_step10("", &doc);
    ck_assert_msg(strstr(r.out, "most of this run's op time") == NULL, "a warning on a2a3:\n%s",
                  r.out);
    /* the run's line ends with the shares by label, each with its kinds */
    ck_assert_contains(r.out, " moved=1.6 KiB trust: checked 99.9 % (dispatch, signal, pull, gm), "
                              "fitted 0.1 % (launch), guess 0.0 % (vector)\n");
    json_t *trust = json_object_get(doc, "trust");
    ck_assert(json_is_object(trust));
    static const struct {
        const char *kind, *label;
    } want[] = {{"gm", "checked"},      {"vector", "guess"},   {"launch", "fitted"},
                {"pull", "checked"},    {"signal", "checked"}, {"wait", "guess"},
                {"dispatch", "checked"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double us;
        json_t *share;
        const char *label = kind_label(trust, want[i].kind, &us, &share);
        ck_assert_msg(label && strcmp(label, want[i].label) == 0, "%s is %s, a2a3.model says %s",
                      want[i].kind, label ? label : "(missing)", want[i].label);
        ck_assert_msg(us > 0, "%s: %g us", want[i].kind, us);
        /* a wait's time is what it waits for: no share of its own */
        ck_assert(strcmp(want[i].kind, "wait") == 0 ? json_is_null(share) : json_is_real(share));
    }
    double us;
    json_t *share;
    /* closed forms: one launch and one dispatch a rank */
    kind_label(trust, "launch", &us, &share);
    ck_assert_msg(fabs(us - 4 * A.dev.launch_lat * 1e6) < 1e-9, "launches: %.17g us", us);
    kind_label(trust, "dispatch", &us, &share);
    ck_assert_msg(fabs(us - 4 * A.dev.dispatch_lat * 1e6) < 1e-6, "dispatches: %.17g us", us);
    /* the shares and the labels' times add up to the ops' time */
    double priced = json_number_value(json_object_get(trust, "op_time_us")), sum = 0, labels = 0;
    json_t *kinds = json_object_get(trust, "kinds"), *v;
    for (size_t i = 0; i < json_array_size(kinds); i++)
        sum += json_number_value(json_object_get(json_array_get(kinds, i), "share"));
    const char *key;
    json_object_foreach(json_object_get(trust, "by_label_us"), key, v) labels +=
        json_number_value(v);
    ck_assert_msg(fabs(sum - 1) < 1e-9, "shares add up to %.17g", sum);
    ck_assert_msg(fabs(labels - priced) < 1e-6 * priced, "labels %.17g us, ops %.17g us", labels,
                  priced);
    ck_assert(json_is_false(json_object_get(trust, "mostly_guesses")));
    ck_assert(json_number_value(json_object_get(trust, "guess_share")) < 0.01);
    json_decref(doc);
    cmd_result_free(&r);

    /* the text summary says the same */
    r = run_cmd("%s -d 0-3 --summary", tutorial("10_allreduce_ring"));
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_contains(r.out, "trust (ops' time, waits aside): checked 99.");
    ck_assert_contains(r.out, "launch fitted 0.1 %");
    ck_assert_contains(r.out, "dispatch checked 96.9 %");
    cmd_result_free(&r);
}
END_TEST

START_TEST(a5_says_its_time_is_mostly_guesses)
{
    json_t *doc;
    struct cmd_result r = run_step10("--platform a5", &doc);
    ck_assert_contains(r.out, " trust: guess 100.0 % (dispatch, gm, signal, pull, launch, vector)\n"
                              "[pldsim] most of this run's op time (");
    ck_assert_contains(r.out, "%) is priced by guessed costs (dispatch ");
    ck_assert_int_eq(count_lines_with(r.out, "most of this run's op time"), 1);
    json_t *trust = json_object_get(doc, "trust");
    ck_assert(json_is_true(json_object_get(trust, "mostly_guesses")));
    ck_assert(json_number_value(json_object_get(trust, "guess_share")) > 0.5);
    json_decref(doc);
    cmd_result_free(&r);
}
END_TEST

START_TEST(threads_times_are_not_labelled)
{
    json_t *doc;
    struct cmd_result r = run_step10("--backend threads", &doc);
    ck_assert(json_is_null(json_object_get(doc, "trust")));
    ck_assert_msg(strstr(r.out, "most of this run's op time") == NULL && !strstr(r.out, " trust:"),
                  "%s", r.out);
    json_decref(doc);
    cmd_result_free(&r);
}
END_TEST

START_TEST(a_label_is_one_of_four)
{
    char *model = write_temp(".model", "name = sure\nbase = a2a3\ntrust_gm = sure\n");
    struct cmd_result r = run_cmd("%s --platform %s", tutorial("01_hello_rank"), model);
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, ":3: bad value 'sure' for 'trust_gm'; expected checked, fitted, "
                              "spec or guess");
    cmd_result_free(&r);
    unlink(model);
    free(model);
}
END_TEST

int main(void)
{
    const char *text = pld__builtin_model_text("a2a3");
    if (!text || pld__model_parse(text, "a2a3", &A) != 0)
        return 1;
    Suite *s = suite_create("trust");
    TCase *tc = tcase_create("labels");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a2a3_time_is_mostly_checked);
    tcase_add_test(tc, a5_says_its_time_is_mostly_guesses);
    tcase_add_test(tc, threads_times_are_not_labelled);
    tcase_add_test(tc, a_label_is_one_of_four);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
