/* checktools.c: see checktools.h. */
#include "checktools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The bytes of `path`, NUL-terminated, and their count in *len. */
static char *slurp_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

char *slurp(const char *path)
{
    size_t n;
    return slurp_bytes(path, &n);
}

/* A command's output as text.  Open MPI 5's launcher (prterun) forwards a
 * rank's stderr with a NUL byte before it, which would end the string
 * there and hide the message: NUL bytes are dropped. */
static char *slurp_output(const char *path)
{
    size_t n;
    char *buf = slurp_bytes(path, &n);
    if (buf) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != '\0')
                buf[w++] = buf[i];
        buf[w] = '\0';
    }
    return buf;
}

static char *temp_path(const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/pldtest-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    ck_assert_msg(fd >= 0, "mkstemps failed");
    close(fd);
    return p;
}

/* The files write_temp made, removed when the process that made them
 * exits: many tests hand the path on and never unlink it, and a make check
 * used to leave dozens of files in /tmp.  The pid, because a test's forked
 * child inherits the list and must not remove its parent's fixtures. */
static struct {
    char *path;
    pid_t pid;
} temps[256];
static int ntemps;

static void remove_temps(void)
{
    for (int k = 0; k < ntemps; k++)
        if (temps[k].pid == getpid())
            unlink(temps[k].path);
}

static void remember_temp(const char *p)
{
    if (ntemps == 0)
        atexit(remove_temps);
    if (ntemps < (int)(sizeof temps / sizeof temps[0]))
        temps[ntemps++] = (__typeof__(temps[0])){strdup(p), getpid()};
}

char *write_temp(const char *suffix, const char *text)
{
    char *p = temp_path(suffix);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    remember_temp(p);
    return p;
}

/* Under --enable-sanitizers, ASan warns (three lines) whenever SimGrid
 * switches an actor's stack in a way it cannot follow (google/sanitizers
 * issue 189).  The warning is about ASan itself, not about our code, so the
 * captured output drops it before any test looks at it. */
void drop_sanitizer_noise(char *s)
{
    static const char *const noise[] = {"==WARNING: ASan is ignoring requested "
                                        "__asan_handle_no_return",
                                        "False positive error reports may follow",
                                        "For details see https://github.com/google/sanitizers/"
                                        "issues/189"};
    char *out = s;
    for (char *p = s; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        int drop = 0;
        for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++)
            drop |= memmem(p, len, noise[k], strlen(noise[k])) != NULL;
        if (!drop) {
            memmove(out, p, len);
            out += len;
        }
        p += len;
    }
    if (s)
        *out = '\0';
}

/* A finished command's result, from its wait status and the files its
 * stdout and stderr went to (removed, and their paths freed). */
static struct cmd_result collect_result(int st, char *out, char *err)
{
    struct cmd_result r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    r.out = slurp_output(out);
    r.err = slurp_output(err);
    drop_sanitizer_noise(r.err);
    unlink(out);
    unlink(err);
    free(out);
    free(err);
    return r;
}

struct cmd_result run_cmd(const char *fmt, ...)
{
    char cmd[8192], full[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *out = temp_path(".out"), *err = temp_path(".err");
    snprintf(full, sizeof full, "( %s ) >%s 2>%s </dev/null", cmd, out, err);
    int st = system(full);
    return collect_result(st, out, err);
}

/* The live (not zombie) processes of process group `pgid` whose
 * executable's name contains `name` (NULL: any), from /proc. */
static int live_in_group(pid_t pgid, const char *name)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *paren = strrchr(buf, ')'); /* "pid (comm) S ppid pgrp ..." */
        char state, exe[4096];
        int ppid, pgrp;
        if (!paren || sscanf(paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || pgrp != pgid ||
            state == 'Z' || state == 'X')
            continue;
        /* by the executable, not the command name: a shell script's
         * subshells carry the script's name (a libtool wrapper's do) */
        snprintf(path, sizeof path, "/proc/%s/exe", e->d_name);
        ssize_t len2 = readlink(path, exe, sizeof exe - 1);
        if (len2 > 0)
            exe[len2] = '\0';
        if (!name || (len2 > 0 && strstr(strrchr(exe, '/') ? strrchr(exe, '/') : exe, name)))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

struct cmd_result run_cmd_signalled(int sig, int group, int procs, const char *name, int *left,
                                    const char *fmt, ...)
{
    char cmd[8192], full[8300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "exec %s", cmd);
    char *out = temp_path(".out"), *err = temp_path(".err");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_TRUNC),
            e = open(err, O_WRONLY | O_TRUNC);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execl("/bin/sh", "sh", "-c", full, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    for (int k = 0; k < 600 && live_in_group(pid, name) < procs; k++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(group ? -pid : pid, sig);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    struct timespec half = {0, 500 * 1000 * 1000};
    nanosleep(&half, NULL);
    *left = live_in_group(pid, NULL);
    if (*left)
        kill(-pid, SIGKILL); /* the test fails; the machine should not pay for it */
    return collect_result(st, out, err);
}

void cmd_result_free(struct cmd_result *r)
{
    free(r->out);
    free(r->err);
}

const char *tutorial(const char *name)
{
    static char buf[8][4096];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 4096, "%s/tutorials/%s", PLD_BUILDDIR, name);
    return p;
}

static int saved_fd = -1;
static char *cap_path;

void capture_stderr_begin(void)
{
    fflush(stderr);
    cap_path = temp_path(".stderr");
    remember_temp(cap_path); /* a test that exits while capturing never reaches the end */
    FILE *f = fopen(cap_path, "w");
    ck_assert_ptr_nonnull(f);
    saved_fd = dup(2);
    dup2(fileno(f), 2);
    fclose(f);
}

char *capture_stderr_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    char *s = slurp(cap_path);
    drop_sanitizer_noise(s);
    unlink(cap_path);
    free(cap_path);
    return s;
}

int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

int count_lines_with(const char *s, const char *needle)
{
    int n = 0;
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char *line = strndup(s, len);
        n += strstr(line, needle) != NULL;
        free(line);
        s = nl ? nl + 1 : s + len;
    }
    return n;
}

int count_error_lines(const char *s)
{
    return count_lines_with(s, "") - count_lines_with(s, ": warning: ");
}

int have_tool(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/* The tests run in forked children: they append their skips to a file
 * that run_suite made and reads once they are done. */
static char skip_file[64];

void skip_test(const char *test, const char *why)
{
    FILE *f = skip_file[0] ? fopen(skip_file, "a") : NULL;
    if (f) {
        fprintf(f, "  %s: %s\n", test, why);
        fclose(f);
    }
    fprintf(stderr, "SKIP %s: %s\n", test, why);
}

int run_suite(Suite *s)
{
    snprintf(skip_file, sizeof skip_file, "/tmp/pldtest-skips-XXXXXX");
    int fd = mkstemp(skip_file);
    if (fd < 0)
        skip_file[0] = 0;
    else
        close(fd);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char *skips = skip_file[0] ? slurp(skip_file) : NULL;
    if (skip_file[0])
        unlink(skip_file);
    int skipped = skips && *skips;
    if (skipped && !failed)
        printf("SKIP: the other tests passed; these did not run:\n%s", skips);
    free(skips);
    return failed ? EXIT_FAILURE : skipped ? 77 : EXIT_SUCCESS;
}
