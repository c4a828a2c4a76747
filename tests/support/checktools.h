/* checktools.h: helpers shared by the Check suites: run a command and
 * capture what it printed, capture stderr around an in-process pld_run,
 * and paths into the build tree. */
#ifndef PLD_CHECKTOOLS_H
#define PLD_CHECKTOOLS_H

#include <check.h>
#include <stddef.h>

/* What a command did. */
struct cmd_result {
    int status; /* exit status, or 128 + signal */
    char *out;  /* everything written to stdout */
    char *err;  /* everything written to stderr */
};

/* Runs `fmt` (printf-style) through /bin/sh and captures both streams. */
struct cmd_result run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_result_free(struct cmd_result *r);

/* Runs `sh -c "exec CMD"` in a process group of its own, waits until that
 * group has `procs` live processes whose executable's name contains
 * `name` (NULL: any; at most 60 s: a libtool wrapper script and its
 * subshells, which carry the script's name, must not count), then sends `sig` to the first process
 * alone, or with `group` to the whole group, as a terminal's Ctrl-C does.  `left` gets how many
 * processes of the group are still alive (not zombies) half a second after the first one ended. */
struct cmd_result run_cmd_signalled(int sig, int group, int procs, const char *name, int *left,
                                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Drops, in place, the lines ASan prints when SimGrid switches stacks
 * (run_cmd does it for stderr; a caller that merges 2>&1 needs it too). */
void drop_sanitizer_noise(char *s);

/* Absolute path of a built tutorial ("01_hello_rank"). */
const char *tutorial(const char *name);

/* Starts capturing this process's stderr (fd 2) into a temp file. */
void capture_stderr_begin(void);
/* Stops capturing and returns what was written (caller frees). */
char *capture_stderr_end(void);

/* Writes `text` to a new temp file whose name ends with `suffix`; returns
 * its path (static buffer per call site is not safe: caller frees). */
char *write_temp(const char *suffix, const char *text);

/* Reads a whole file (caller frees), NULL if unreadable. */
char *slurp(const char *path);

/* Counts the lines of `s` that contain `needle`. */
int count_lines_with(const char *s, const char *needle);

/* Counts where `needle` occurs in `s`, overlaps included. */
int count_of(const char *s, const char *needle);

/* Counts the lines of `s` that are not warnings (": warning: "), such as
 * the cache-line warnings some layouts get. */
int count_error_lines(const char *s);

/* Asserts that `hay` contains `needle`, printing both on failure. */
#define ck_assert_contains(hay, needle)                                                            \
    ck_assert_msg((hay) != NULL && strstr((hay), (needle)) != NULL,                                \
                  "expected to find \"%s\" in:\n%s", (needle), (hay) ? (hay) : "(null)")

/* Runs a suite in fork mode and returns the process exit status: 1 if a
 * test failed; else 77 (automake's SKIP) if a test was skipped for a
 * missing tool, naming each; else 0. */
int run_suite(Suite *s);

/* 1 if `tool` is a command on PATH (xmllint, chromium), else 0. */
int have_tool(const char *tool);

/* Records, from inside test `test` (__func__), that it did not run because
 * `why`; the test then returns.  run_suite reports the suite as SKIP with
 * the reasons. */
void skip_test(const char *test, const char *why);

/* In a test that needs the optional `tool`: skips the test without it. */
#define NEED_TOOL(tool)                                                                            \
    do {                                                                                           \
        if (!have_tool(tool)) {                                                                    \
            skip_test(__func__, tool " was not found (configure finds it optional)");              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#endif
