/* fuzz_platform.c: libFuzzer target for the platform-file path: the input
 * is a user's SimGrid platform XML, given as --platform FILE.xml; pldsim
 * loads it, checks its links' bandwidths and latencies, maps ranks to hosts
 * devN, reads each host's device <prop>s, and runs a barrier, whose
 * notifies cross every rank's routes.  The invariant (docs/errors.md):
 * any input either runs, or ends with pldsim's own message ("pldsim: ...")
 * and a pldsim exit status (2..5) - never a crash, a SimGrid abort or
 * backtrace, or a hang.
 *
 * Why a child process per input: SimGrid initialises once per process and
 * cannot load a second platform, and on some inputs it aborts the whole
 * process; pldsim does not pre-validate the XML itself (sim/platform.c
 * hands the file straight to simgrid_load_platform and checks what SimGrid
 * built), so there is no in-process validator to fuzz instead, and the
 * only way to exercise "load, map ranks, read properties" is the real
 * path.  So each input runs in a fork()ed child, bounded by alarm(); the
 * parent turns a child's signal, a non-pldsim exit status, a SimGrid
 * message or a hang into abort(), which libFuzzer records as a crash with
 * the input as its artifact.  The cost: the child's edge counters die
 * with it, so libFuzzer is guided only by the parent's few branches (the
 * outcomes), and works as a mutation fuzzer over the seeds (valid
 * platforms as --save-platform writes them, and broken ones).  Copying the
 * counters back through shared memory was tried: declaring
 * __start___sancov_cntrs in this file stops clang registering the counters
 * at all (TODO: take the range from a separate, uninstrumented file). */
#include <pld/pld.h>

#include "../../src/core/internal.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

/* A hung child is killed by this alarm (seconds); libFuzzer's -timeout=10
 * would otherwise see the parent wait and report a timeout without the
 * child's story. */
enum { CHILD_SECONDS = 5 };

struct dev_args {
    pld_dtensor sig;
};

static void barrier_kernel(const struct dev_args *a)
{
    pld_tensor_barrier(a->sig);
}

static void per_device(const struct dev_args *a)
{
    pl_incore(barrier_kernel, a);
}

static void host(const void *unused)
{
    (void)unused;
    int P = pld_world_size();
    pld_buffer sig = pld_alloc_window_buffer(((int64_t)P * 4 + 63) / 64 * 64, .name = "sig");
    for (int r = 0; r < P; r++) {
        struct dev_args a = {pld_window(sig, PL_SHAPE(P, 1), PL_INT32)};
        pld_dispatch(r, per_device, a);
    }
}

/* The child: the platform path as a program takes it; never returns. */
_Noreturn static void child(const char *path, int P, int errfd)
{
    dup2(errfd, 2);
    close(errfd);
    if (!freopen("/dev/null", "w", stdout))
        _exit(99);
    alarm(CHILD_SECONDS);
    char devices[16];
    snprintf(devices, sizeof devices, "0-%d", P - 1);
    char *argv[] = {"fuzz_platform", "--platform", (char *)path, "-d", devices, NULL};
    int argc = 5;
    pld_config cfg;
    pld_config_init(&cfg);
    int rc = pld_parse_args(&cfg, &argc, argv);
    if (rc == 0)
        rc = pld_exit_code(pld_run(&cfg, host, NULL));
    else
        rc = 2;
    fflush(stderr);
    /* not exit(): libFuzzer's atexit hook would call that a crash */
    _exit(rc);
}

/* What the child wrote on stderr (at most cap - 1 bytes). */
static void read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    lseek(fd, 0, SEEK_SET);
    for (ssize_t k; n + 1 < cap && (k = read(fd, buf + n, cap - 1 - n)) > 0;)
        n += (size_t)k;
    buf[n] = '\0';
}

_Noreturn static void fail(const char *why, const char *err)
{
    fprintf(stderr, "fuzz_platform: %s\n--- child's stderr ---\n%s\n---\n", why, err);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    char dir[] = "/tmp/fuzz-platform-XXXXXX";
    if (!mkdtemp(dir))
        abort();
    char path[64], errpath[64];
    snprintf(path, sizeof path, "%s/p.xml", dir);
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    int errfd = open(errpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (errfd < 0)
        abort();
    int P = 1 + (int)(size % 3); /* 1 to 3 ranks: mapping past the hosts too */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0)
        child(path, P, errfd);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    static char err[65536];
    read_all(errfd, err, sizeof err);
    close(errfd);
    unlink(errpath);
    unlink(path);
    rmdir(dir);
    if (WIFSIGNALED(status)) {
        char why[64];
        snprintf(why, sizeof why, "the child died of signal %d (%s)", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? "a hang" : strsignal(WTERMSIG(status)));
        fail(why, err);
    }
    int code = WEXITSTATUS(status);
    if (code == 0)
        return 0;
    if (code < 2 || code > 5)
        fail("the child's exit status is not one of pldsim's (2..5)", err);
    /* pldsim's message comes first; SimGrid's log lines and backtraces
     * start with "[" or "Backtrace" (the input's own text may be quoted in
     * pldsim's message, so only line starts count) */
    if (strncmp(err, "pldsim: ", 8) != 0 && !strstr(err, ": rank "))
        fail("the child failed without pldsim's message first", err);
    for (const char *line = err; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
        if (*line == '[' || strncmp(line, "Backtrace", 9) == 0)
            fail("SimGrid's abort or backtrace reached the user", err);
    return 0;
}
