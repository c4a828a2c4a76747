/* check_goldens.c: every tutorial step and mode at its default P leaves a
 * trace identical to its golden in traces/.  On a difference the failure
 * shows the first differing lines; `make update-goldens` rewrites the
 * goldens on purpose (a model change then shows up as a reviewable diff).
 * The goldens are regression baselines: their times are checked against
 * closed forms by check_accuracy and check_timing, not by this test. */
#include "checktools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RUNS 64
static struct {
    char name[256], prog[256], args[256];
} runs[MAX_RUNS];
static int nruns;

static void load_runs(void)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/tools/golden-runs.txt", PLD_SRCDIR);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    while (nruns < MAX_RUNS && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *sp1 = strchr(line, ' ');
        if (!sp1)
            continue;
        *sp1 = '\0';
        char *prog = sp1 + 1, *sp2 = strchr(prog, ' ');
        if (sp2)
            *sp2 = '\0';
        snprintf(runs[nruns].name, sizeof runs[0].name, "%s", line);
        snprintf(runs[nruns].prog, sizeof runs[0].prog, "%s", prog);
        snprintf(runs[nruns++].args, sizeof runs[0].args, "%s", sp2 ? sp2 + 1 : "");
    }
    fclose(f);
}

/* The first line where a and b differ (1-based), and its text in each. */
static int first_difference(const char *a, const char *b, char *wa, char *wb, size_t len)
{
    int line = 1;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || strncmp(a, b, la) != 0) {
            snprintf(wa, len, "%.*s", (int)la, a);
            snprintf(wb, len, "%.*s", (int)lb, b);
            return line;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
        line++;
    }
    return 0;
}

START_TEST(trace_matches_its_golden)
{
    char golden[4096], *fresh_path = write_temp(".txt", "");
    snprintf(golden, sizeof golden, "%s/traces/%s.txt", PLD_SRCDIR, runs[_i].name);
    struct cmd_result r = run_cmd("%s %s --no-summary --trace %s", tutorial(runs[_i].prog),
                                  runs[_i].args, fresh_path);
    ck_assert_msg(r.status == 0, "%s failed:\n%s", runs[_i].name, r.err);
    char *want = slurp(golden), *got = slurp(fresh_path);
    ck_assert_msg(want != NULL, "no golden %s: run `make update-goldens`", golden);
    char wa[512], wb[512];
    int line = first_difference(want, got, wa, wb, sizeof wa);
    ck_assert_msg(line == 0,
                  "trace of %s differs from traces/%s.txt at line %d:\n  golden: %s\n  fresh:  "
                  "%s\n(if the change is intended: make update-goldens)",
                  runs[_i].name, runs[_i].name, line, wa, wb);
    free(want);
    free(got);
    unlink(fresh_path);
    free(fresh_path);
    cmd_result_free(&r);
}
END_TEST

int main(void)
{
    load_runs();
    Suite *s = suite_create("goldens");
    TCase *tc = tcase_create("goldens");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, trace_matches_its_golden, 0, nruns);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
