/* check_docs.c: every runnable example in the docs prints what its page
 * says it prints.
 *
 * A runnable example is a fenced block whose info string is `console`.  In
 * it, a line that starts with "$ " is a command; the lines after it, up to
 * the next command or the end of the block, are what the command prints
 * (stdout and stderr together, as a terminal shows them).  A line that is
 * exactly "..." stands for any number of lines.  Times are masked on both
 * sides before comparing (numbers with a unit ns/us/ms/s, and the values of
 * time= and wall=), so a model's latency can change without touching every
 * page, and so wall-clock runs can be shown at all.  A command that exits
 * non-zero fails unless the page says how it is handled (`|| echo ...`).
 * Python's traceback markers (lines of ^ and ~) are not compared: which
 * lines get them depends on the Python version.
 *
 * Commands run in a scratch directory that looks like the build tree's root
 * (tutorials/ and tools/ from the build tree; docs/, models/ and traces/
 * from the source tree), so that the files they write (traces, pictures)
 * land neither in the source tree nor in the build tree, which distcheck
 * wants to find clean.
 *
 * A block marked `console mpi` needs the mpi backend and mpirun: it runs
 * when the build has them, and is skipped otherwise.  A block marked
 * `console python` needs the Python front end (tools/pldsim-py) and is
 * skipped in builds without it, and in sanitizer builds, whose extension
 * an uninstrumented Python cannot load. */
#include "checktools.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef MPIRUN
static const int have_mpirun = 1;
#else
static const int have_mpirun = 0;
#endif
#ifdef PLDSIM_PYTHON
static const int have_python = 1;
#else
static const int have_python = 0;
#endif

/* A growable string. */
struct buf {
    char *s;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_add(b, tmp, n < (int)sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Splits `s` into lines (the array owns copies); trailing blanks of each
 * line and trailing empty lines are dropped, since a page cannot show them. */
static char **split_lines(const char *s, int *n)
{
    char **v = NULL;
    *n = 0;
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
            len--;
        v = realloc(v, sizeof *v * (*n + 1));
        v[(*n)++] = strndup(s, len);
        s = nl ? nl + 1 : s + strlen(s);
    }
    while (*n && v[*n - 1][0] == '\0')
        free(v[--*n]);
    return v;
}

/* Drops the lines of Python's traceback markers (only spaces, ^ and ~):
 * which lines get them depends on the Python (3.13 leaves out a marker that
 * would underline a whole line), and the page shows the Python it was run
 * on, so they are compared on neither side. */
static void drop_traceback_markers(char **v, int *n)
{
    int w = 0;
    for (int i = 0; i < *n; i++) {
        const char *p = v[i];
        while (*p == ' ')
            p++;
        if (*p == '^' && strspn(p, "^~") == strlen(p))
            free(v[i]);
        else
            v[w++] = v[i];
    }
    *n = w;
}

static void free_lines(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Returns a copy of `line` (which it frees) with times replaced by "<t>":
 * a number followed by a time unit ("36.001 us", "17us", "1.5 ms", "0.2 s",
 * "3 µs"), and the value after "time=" or "wall=".  The result may be
 * longer than the line ("1s"), hence a new string. */
static char *mask_times(char *line)
{
    static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s"};
    struct buf out = {0};
    for (const char *p = line; *p;) {
        int after_key =
            p - line >= 5 && (strncmp(p - 5, "time=", 5) == 0 || strncmp(p - 5, "wall=", 5) == 0);
        int starts_number =
            is_digit(*p) && (p == line || !is_digit(p[-1])) && (p == line || p[-1] != '.');
        if (!starts_number) {
            buf_add(&out, p++, 1);
            continue;
        }
        const char *q = p;
        while (is_digit(*q) || (*q == '.' && is_digit(q[1])))
            q++;
        const char *u = *q == ' ' ? q + 1 : q;
        size_t ulen = 0;
        for (size_t k = 0; k < sizeof units / sizeof units[0] && !ulen; k++) {
            size_t n = strlen(units[k]);
            if (strncmp(u, units[k], n) != 0)
                continue; /* only now is u[n] known to be inside the line */
            char next = u[n];
            if (!((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z')))
                ulen = n;
        }
        if (ulen) {
            buf_add(&out, "<t>", 3);
            p = u + ulen;
        } else if (after_key) {
            buf_add(&out, "<t>", 3);
            p = q;
        } else {
            buf_add(&out, p, (size_t)(q - p));
            p = q;
        }
    }
    free(line);
    return out.s ? out.s : strdup("");
}

/* Does expected[i..] match actual[j..]?  "..." matches any run of lines. */
static int lines_match(char **e, int ne, int i, char **a, int na, int j)
{
    for (; i < ne; i++, j++) {
        if (strcmp(e[i], "...") == 0) {
            for (int k = j; k <= na; k++)
                if (lines_match(e, ne, i + 1, a, na, k))
                    return 1;
            return 0;
        }
        if (j >= na || strcmp(e[i], a[j]) != 0)
            return 0;
    }
    return j == na;
}

/* The first line where a literal comparison parts ways, for the report. */
static int first_difference(char **e, int ne, char **a, int na)
{
    int i = 0;
    while (i < ne && i < na && strcmp(e[i], "...") != 0 && strcmp(e[i], a[i]) == 0)
        i++;
    return i;
}

static void append_indented(struct buf *r, const char *label, char **v, int n)
{
    buf_printf(r, "  %s:\n", label);
    if (!n)
        buf_printf(r, "    | (nothing)\n");
    for (int i = 0; i < n; i++)
        buf_printf(r, "    | %s\n", v[i]);
}

/* Runs one command and compares; on a difference appends to `report`. */
static int check_command(const char *scratch, const char *page, int line, const char *cmd, int mpi,
                         const char *expected, struct buf *report)
{
    /* Open MPI frees little at exit (see check_backends.c): under
     * --enable-sanitizers its leaks are not this page's to report */
    struct cmd_result res = run_cmd("cd '%s' && { %s%s\n} 2>&1", scratch,
                                    mpi ? "export ASAN_OPTIONS=detect_leaks=0; " : "", cmd);
    drop_sanitizer_noise(res.out);
    int ne, na;
    char **e = split_lines(expected, &ne), **a = split_lines(res.out, &na);
    drop_traceback_markers(e, &ne);
    drop_traceback_markers(a, &na);
    for (int i = 0; i < ne; i++)
        e[i] = mask_times(e[i]);
    for (int i = 0; i < na; i++)
        a[i] = mask_times(a[i]);
    int ok = res.status == 0 && lines_match(e, ne, 0, a, na, 0);
    if (!ok) {
        buf_printf(report, "%s:%d: $ %s\n", page, line, cmd);
        if (res.status)
            buf_printf(report, "  exited with status %d\n", res.status);
        if (!lines_match(e, ne, 0, a, na, 0))
            buf_printf(report, "  output differs from line %d of the block's output\n",
                       first_difference(e, ne, a, na) + 1);
        append_indented(report, "expected (times masked)", e, ne);
        append_indented(report, "actual (times masked)", a, na);
        if (res.err && *res.err)
            buf_printf(report, "  (the shell said: %s)\n", res.err);
    }
    free_lines(e, ne);
    free_lines(a, na);
    cmd_result_free(&res);
    return ok;
}

/* A directory that looks like the build tree's root; see the top comment. */
static char *make_scratch(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/pldtest-docs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const struct {
        const char *name;
        int from_build;
    } links[] = {{"tutorials", 1}, {"tools", 1}, {"docs", 0}, {"models", 0}, {"traces", 0}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", links[i].from_build ? PLD_BUILDDIR : PLD_SRCDIR,
                 links[i].name);
        snprintf(to, sizeof to, "%s/%s", dir, links[i].name);
        ck_assert_msg(symlink(from, to) == 0, "symlink %s -> %s failed", to, from);
    }
    return dir;
}

static void remove_scratch(char *dir)
{
    struct cmd_result r = run_cmd("rm -rf '%s'", dir);
    cmd_result_free(&r);
    free(dir);
}

/* Runs every runnable block of the page at `path` (named `page` in the
 * report).  Returns the number of commands run; adds failures to *failed. */
static int check_page(const char *path, const char *page, int *failed, struct buf *report)
{
    char *text = slurp(path);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    int n;
    char **lines = split_lines(text, &n);
    char *scratch = make_scratch();
    int commands = 0, in_console = 0, in_other = 0, indent = 0, mpi = 0;
    int cmd_line = 0;
    char *cmd = NULL;
    struct buf expected = {0};
    for (int i = 0; i <= n; i++) {
        const char *l = i < n ? lines[i] : "```";
        const char *fence = l + strspn(l, " ");
        int is_fence = strncmp(fence, "```", 3) == 0;
        if (!in_console) {
            if (is_fence && i < n) {
                if (in_other)
                    in_other = 0;
                else if (strcmp(fence + 3, "console") == 0 ||
                         (have_mpirun && strcmp(fence + 3, "console mpi") == 0) ||
                         (have_python && strcmp(fence + 3, "console python") == 0))
                    in_console = 1, indent = (int)(fence - l),
                    mpi = strcmp(fence + 3, "console mpi") == 0;
                else
                    in_other = 1;
            }
            continue;
        }
        /* a block inside a list item is indented with its fence */
        for (int k = 0; k < indent && *l == ' '; k++)
            l++;
        if (is_fence || strncmp(l, "$ ", 2) == 0) {
            if (cmd) {
                commands++;
                *failed += !check_command(scratch, page, cmd_line, cmd, mpi,
                                          expected.s ? expected.s : "", report);
                free(cmd);
                cmd = NULL;
            }
            expected.len = 0;
            if (expected.s)
                expected.s[0] = '\0';
            if (is_fence) {
                in_console = 0;
                continue;
            }
            cmd = strdup(l + 2);
            cmd_line = i + 1;
        } else if (cmd) {
            buf_add(&expected, l, strlen(l));
            buf_add(&expected, "\n", 1);
        }
    }
    free(expected.s);
    remove_scratch(scratch);
    free_lines(lines, n);
    free(text);
    return commands;
}

/* Every page under docs/, and README.md. */
static void collect_pages(const char *dir, const char *rel, char ***pages, int *n)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096], sub[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        size_t len = strlen(de->d_name);
        if (S_ISDIR(st.st_mode)) {
            collect_pages(path, sub, pages, n);
        } else if (len > 3 && strcmp(de->d_name + len - 3, ".md") == 0) {
            *pages = realloc(*pages, sizeof **pages * (*n + 1));
            (*pages)[(*n)++] = strdup(sub);
        }
    }
    closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(every_runnable_block_on_every_page_prints_what_it_shows)
{
    char **pages = NULL;
    int n = 0, failed = 0, commands = 0;
    collect_pages(PLD_SRCDIR "/docs", "docs", &pages, &n);
    qsort(pages, (size_t)n, sizeof *pages, by_name);
    pages = realloc(pages, sizeof *pages * (n + 1));
    pages[n++] = strdup("README.md");
    struct buf report = {0};
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", PLD_SRCDIR, pages[i]);
        int k = check_page(path, pages[i], &failed, &report);
        printf("docs: %-44s %2d commands\n", pages[i], k);
        commands += k;
        free(pages[i]);
    }
    free(pages);
    printf("docs: %d commands on %d pages, %d failed\n", commands, n, failed);
    /* the whole report goes to the log: Check carries only a short message */
    if (failed)
        printf("%s", report.s);
    fflush(stdout);
    ck_assert_msg(failed == 0,
                  "%d of %d documented commands differ from their pages (the log has "
                  "each one); the first:\n%.1500s",
                  failed, commands, report.s);
    ck_assert_msg(commands >= 16, "only %d runnable commands in the docs", commands);
    free(report.s);
}
END_TEST

/* The checker itself: a page written here, run through check_page. */
static int check_text(const char *page_text, struct buf *report)
{
    char *path = write_temp(".md", page_text);
    int failed = 0;
    check_page(path, "page.md", &failed, report);
    unlink(path);
    free(path);
    return failed;
}

START_TEST(a_wrong_expected_output_fails_and_says_where)
{
    struct buf r = {0};
    int failed = check_text("# t\n\n```console\n$ echo hello\nhallo\n```\n", &r);
    ck_assert_int_eq(failed, 1);
    ck_assert_contains(r.s, "page.md:4: $ echo hello");
    ck_assert_contains(r.s, "    | hallo");
    ck_assert_contains(r.s, "    | hello");
    ck_assert_contains(r.s, "output differs from line 1");
    free(r.s);
}
END_TEST

START_TEST(a_failing_command_fails)
{
    struct buf r = {0};
    ck_assert_int_eq(check_text("```console\n$ echo out; exit 3\nout\n```\n", &r), 1);
    ck_assert_contains(r.s, "exited with status 3");
    free(r.s);
    r = (struct buf){0};
    ck_assert_int_eq(check_text("```console\n$ ./tutorials/no_such_step\n```\n", &r), 1);
    free(r.s);
}
END_TEST

START_TEST(times_are_masked_and_dots_skip_lines)
{
    struct buf r = {0};
    const char *page = "Text, and a block that is not run:\n\n```sh\n$ false\n```\n\n"
                       "```console\n"
                       "$ echo 'time=36.001 us moved=8 B'; echo 'took 17us'; echo 'wall=3.5'\n"
                       "time=1.000 us moved=8 B\ntook 2 ms\nwall=9\n"
                       "$ printf 'a\\nb\\nc\\nd\\n'\na\n...\nd\n"
                       "$ printf 'a\\nd\\n'\na\n...\nd\n"
                       "```\n";
    ck_assert_msg(check_text(page, &r) == 0, "%s", r.s);
    free(r.s);
    /* masking hides times, not other numbers */
    r = (struct buf){0};
    ck_assert_int_eq(check_text("```console\n$ echo 'moved=8 B'\nmoved=9 B\n```\n", &r), 1);
    free(r.s);
    r = (struct buf){0};
    ck_assert_int_eq(check_text("```console\n$ printf 'a\\nb\\n'\na\n...\nc\n```\n", &r), 1);
    free(r.s);
}
END_TEST

/* The timelines on the walkthroughs are what the programs draw today. */
static const struct {
    const char *image, *step, *args;
} pictures[] = {
    {"05.svg", "05_remote_load_store", ""},           {"08.svg", "08_allreduce_mesh", ""},
    {"09.svg", "09_allreduce_two_phase", ""},         {"10.svg", "10_allreduce_ring", ""},
    {"11.svg", "11_allreduce_reveal", "--mode ring"},
};

START_TEST(the_walkthrough_timelines_are_current)
{
    char *scratch = make_scratch();
    for (size_t i = 0; i < sizeof pictures / sizeof pictures[0]; i++) {
        struct cmd_result r = run_cmd("cd '%s' && ./tutorials/%s %s --trace now.svg", scratch,
                                      pictures[i].step, pictures[i].args);
        ck_assert_msg(r.status == 0, "%s failed: %s", pictures[i].step, r.err);
        cmd_result_free(&r);
        char now[4096], committed[4096];
        snprintf(now, sizeof now, "%s/now.svg", scratch);
        snprintf(committed, sizeof committed, "%s/docs/tutorials/img/%s", PLD_SRCDIR,
                 pictures[i].image);
        char *a = slurp(now), *b = slurp(committed);
        ck_assert_msg(b != NULL, "missing %s", committed);
        ck_assert_msg(a && strcmp(a, b) == 0,
                      "docs/tutorials/img/%s is stale; regenerate it with\n"
                      "  ./tutorials/%s %s --trace docs/tutorials/img/%s",
                      pictures[i].image, pictures[i].step, pictures[i].args, pictures[i].image);
        free(a);
        free(b);
    }
    remove_scratch(scratch);
}
END_TEST

/* docs/overlap.md's timeline is what its Python program draws today (the
 * Python front end is in the build, and its interpreter can load it). */
START_TEST(the_overlap_walkthrough_timeline_is_current)
{
    if (!have_python)
        return;
    char *scratch = make_scratch();
    struct cmd_result r = run_cmd("cd '%s' && ./tools/pldsim-py --topology mesh:2,dispatch_lat=0 "
                                  "--trace now.svg docs/examples/overlap.py -d 0,1",
                                  scratch);
    ck_assert_msg(r.status == 0, "overlap.py failed: %s", r.err);
    cmd_result_free(&r);
    char now[4096], committed[4096];
    snprintf(now, sizeof now, "%s/now.svg", scratch);
    snprintf(committed, sizeof committed, "%s/docs/img/overlap.svg", PLD_SRCDIR);
    char *a = slurp(now), *b = slurp(committed);
    ck_assert_msg(b != NULL, "missing %s", committed);
    ck_assert_msg(a && strcmp(a, b) == 0,
                  "docs/img/overlap.svg is stale; regenerate it with\n  tools/pldsim-py "
                  "--topology mesh:2,dispatch_lat=0 --trace docs/img/overlap.svg "
                  "docs/examples/overlap.py -d 0,1");
    free(a);
    free(b);
    remove_scratch(scratch);
}
END_TEST

/* The reveal discipline of docs/tutorials/00-index.md: its table names, for
 * each builtin, the step that reveals it ("| `pld_tensor_x` | ... | step NN
 * ..."); no step before that one may call it, in its source or in the
 * tutorial headers it includes. */
static int reveal_step(const char *index, const char *builtin)
{
    char needle[128];
    snprintf(needle, sizeof needle, "| `%s` |", builtin);
    const char *row = strstr(index, needle);
    if (!row)
        return -1;
    const char *cell = strchr(row + strlen(needle), '|'); /* the third cell */
    int step = -1;
    if (cell && sscanf(cell, "| step %d", &step) != 1)
        step = -1;
    return step;
}

/* A step's code: its source and the local headers it includes. */
static char *step_code(const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tutorials/%s", PLD_SRCDIR, file);
    char *text = slurp(path);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    struct buf code = {0};
    buf_add(&code, text, strlen(text));
    for (const char *p = text; (p = strstr(p, "#include \"")) != NULL; p++) {
        char hdr[256];
        if (sscanf(p, "#include \"%255[^\"]\"", hdr) != 1)
            continue;
        snprintf(path, sizeof path, "%s/tutorials/%s", PLD_SRCDIR, hdr);
        char *h = slurp(path);
        if (h)
            buf_add(&code, h, strlen(h));
        free(h);
    }
    free(text);
    return code.s;
}

static const char *const builtins[] = {"pld_tensor_barrier",        "pld_tensor_allreduce",
                                       "pld_tensor_broadcast",      "pld_tensor_allgather",
                                       "pld_tensor_reduce_scatter", "pld_tensor_all_to_all"};

START_TEST(no_builtin_appears_before_the_step_that_reveals_it)
{
    char *index = slurp(PLD_SRCDIR "/docs/tutorials/00-index.md");
    ck_assert_msg(index != NULL, "docs/tutorials/00-index.md is missing");
    DIR *d = opendir(PLD_SRCDIR "/tutorials");
    ck_assert_ptr_nonnull(d);
    int steps = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int n;
        size_t len = strlen(de->d_name);
        if (sscanf(de->d_name, "%2d_", &n) != 1 || len < 3 || strcmp(de->d_name + len - 2, ".c"))
            continue;
        steps++;
        char *code = step_code(de->d_name);
        for (size_t k = 0; k < sizeof builtins / sizeof builtins[0]; k++) {
            int reveal = reveal_step(index, builtins[k]);
            ck_assert_msg(reveal > 0, "00-index.md's reveal table has no row for %s", builtins[k]);
            char call[128];
            snprintf(call, sizeof call, "%s(", builtins[k]);
            ck_assert_msg(n >= reveal || !strstr(code, call),
                          "tutorials/%s calls %s, which step %d reveals", de->d_name, builtins[k],
                          reveal);
        }
        free(code);
    }
    closedir(d);
    ck_assert_int_eq(steps, 16);
    /* the table is read the way it is meant: a later reveal would flag step 05 */
    ck_assert_int_eq(
        reveal_step("| `pld_tensor_barrier` | step 04 | step 06 (x) |\n", "pld_tensor_barrier"), 6);
    char *five = step_code("05_remote_load_store.c");
    ck_assert_ptr_nonnull(strstr(five, "pld_tensor_barrier("));
    free(five);
    free(index);
}
END_TEST

int main(void)
{
    /* Open MPI 5 (Debian 13) prints a line per rank when its TCP transport
     * finds no IPv6 pairing on a host that has IPv6; the pages' mpirun runs
     * are on one machine, where IPv4 is enough */
    setenv("OMPI_MCA_btl_tcp_disable_family", "6", 0);
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("docs");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, a_wrong_expected_output_fails_and_says_where);
    tcase_add_test(tc, a_failing_command_fails);
    tcase_add_test(tc, times_are_masked_and_dots_skip_lines);
    tcase_add_test(tc, the_walkthrough_timelines_are_current);
    tcase_add_test(tc, the_overlap_walkthrough_timeline_is_current);
    tcase_add_test(tc, no_builtin_appears_before_the_step_that_reveals_it);
    tcase_add_test(tc, every_runnable_block_on_every_page_prints_what_it_shows);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
