/* perf_jobs.c: the child processes of perf_jobs.h. */
#include "perf_jobs.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int perf_jobs_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* One child at work: its job, its results file and its stderr. */
struct running {
    pid_t pid;
    int k;
    FILE *out, *err;
};

/* The stderr lines already passed on: every child meets the same bad
 * platform file or warns of the same shared cache line, and the user
 * should read it once. */
static struct {
    char **line;
    size_t n, cap;
} seen;

/* Passes on a finished child's stderr, each distinct line once. */
static void pass_on_stderr(FILE *err)
{
    char *line = NULL;
    size_t size = 0;
    rewind(err);
    while (getline(&line, &size, err) > 0) {
        size_t i = 0;
        while (i < seen.n && strcmp(seen.line[i], line) != 0)
            i++;
        if (i < seen.n)
            continue;
        fputs(line, stderr);
        if (seen.n == seen.cap) {
            size_t cap = seen.cap ? 2 * seen.cap : 16;
            char **grown = realloc(seen.line, cap * sizeof *grown);
            if (!grown)
                continue; /* then it may be said twice: no harm */
            seen.line = grown;
            seen.cap = cap;
        }
        if ((seen.line[seen.n] = strdup(line)) != NULL)
            seen.n++;
    }
    free(line);
}

static void forget_stderr(void)
{
    for (size_t i = 0; i < seen.n; i++)
        free(seen.line[i]);
    free(seen.line);
    seen.line = NULL;
    seen.n = seen.cap = 0;
}

/* Stops and reaps every child still running. */
static void stop_all(struct running *run, int slots)
{
    for (int i = 0; i < slots; i++)
        if (run[i].pid > 0)
            kill(run[i].pid, SIGTERM);
    for (int i = 0; i < slots; i++)
        if (run[i].pid > 0) {
            while (waitpid(run[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
            fclose(run[i].out);
            fclose(run[i].err); /* stopped: what it said is not the news */
            run[i].pid = 0;
        }
}

/* Interrupts (Ctrl-C, SIGTERM, a closed terminal) while children run.
 * Without this the parent died alone and its children went on simulating
 * sizes nobody would read, holding the terminal's output open.  The handler
 * does it all itself (kill and write are async-signal-safe), so no signal
 * can slip in between a check and a blocking waitpid: it stops every child
 * (SIGKILL: a simulation holds nothing worth saving; their results files
 * are unlinked tmpfiles), says so in one line, and ends this process with
 * the same signal, as a shell expects of an interrupted program.
 *
 * SIGINT and SIGTERM are caught even when this process was started with
 * them ignored: a shell script's background job gets SIGINT ignored, and a
 * CI runner or supervisor that cancels the job by signalling its process
 * group then left the parent and every child simulating (issue 51).  Only
 * SIGHUP keeps an inherited ignore: that is nohup's request. */
static const int interrupts[] = {SIGINT, SIGTERM, SIGHUP};
enum { NINTERRUPTS = sizeof interrupts / sizeof interrupts[0] };
static struct sigaction before[NINTERRUPTS]; /* the dispositions a child gets back */
static struct running *volatile live;
static volatile int live_slots;

static void say(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w;
}

static void on_interrupt(int sig)
{
    int stopped = 0;
    struct running *run = live;
    for (int i = 0; run && i < live_slots; i++)
        if (run[i].pid > 0)
            stopped += kill(run[i].pid, SIGKILL) == 0;
    say(perf_prog);
    say(sig == SIGINT    ? ": interrupted (SIGINT)"
        : sig == SIGTERM ? ": terminated (SIGTERM)"
                         : ": hung up (SIGHUP)");
    if (stopped)
        say(": the simulations still running were stopped");
    say("; the table is incomplete\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

void perf_jobs_catch_interrupts(void)
{
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NINTERRUPTS; i++) {
        sigaction(interrupts[i], NULL, &before[i]);
        if (interrupts[i] != SIGHUP || before[i].sa_handler != SIG_IGN)
            sigaction(interrupts[i], &sa, NULL);
    }
}

int perf_jobs_run(int n, const int *order, int jobs, int (*job)(int k, FILE *out),
                  int (*collect)(int k, FILE *in), const char *(*what)(int k),
                  void (*progress)(int done, int n))
{
    if (jobs > n)
        jobs = n;
    if (jobs < 1)
        jobs = 1;
    struct running *run = calloc((size_t)jobs, sizeof *run);
    if (!run) {
        fprintf(stderr, "%s: out of memory for %d jobs\n", perf_prog, jobs);
        return 1;
    }
    int next = 0, done = 0, busy = 0, status = 0;
    live_slots = jobs;
    live = run;
    pid_t parent = getpid();
    while (done < n && status == 0) {
        while (busy < jobs && next < n) { /* start what fits */
            int slot = 0;
            while (run[slot].pid > 0)
                slot++;
            FILE *out = tmpfile(), *err = out ? tmpfile() : NULL;
            if (!err) {
                fprintf(stderr, "%s: cannot make a temporary file for a job: %s\n", perf_prog,
                        strerror(errno));
                if (out)
                    fclose(out);
                status = 1;
                break;
            }
            fflush(stderr);
            /* the interrupts wait while the child is made: one that came
             * before it put its own dispositions back would run this
             * process's handler in it, and say it twice */
            sigset_t hold, was;
            sigemptyset(&hold);
            for (int i = 0; i < NINTERRUPTS; i++)
                sigaddset(&hold, interrupts[i]);
            sigprocmask(SIG_BLOCK, &hold, &was);
            pid_t pid = fork();
            if (pid != 0)
                sigprocmask(SIG_SETMASK, &was, NULL);
            if (pid < 0) {
                fprintf(stderr, "%s: cannot start a job: %s\n", perf_prog, strerror(errno));
                fclose(out);
                fclose(err);
                status = 1;
                break;
            }
            if (pid == 0) {
                /* a child outlives nothing: it dies with the parent, even of
                 * SIGKILL, and takes the signals as a plain program does */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                    _exit(1);
                for (int i = 0; i < NINTERRUPTS; i++)
                    sigaction(interrupts[i], &before[i], NULL);
                sigprocmask(SIG_SETMASK, &was, NULL); /* a held one now ends it plainly */
                if (dup2(fileno(err), STDERR_FILENO) < 0)
                    _exit(1);
                int rc = job(order[next], out);
                if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
                    fprintf(stderr, "%s: cannot write a job's results: %s\n", perf_prog,
                            strerror(errno));
                    rc = 1;
                }
                _exit(rc); /* not exit: this process's stdio and atexit belong to the parent */
            }
            run[slot] = (struct running){pid, order[next], out, err};
            next++;
            busy++;
        }
        if (status || busy == 0)
            break;
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "%s: waiting for a job: %s\n", perf_prog, strerror(errno));
            status = 1;
            break;
        }
        int slot = 0;
        while (slot < jobs && run[slot].pid != pid)
            slot++;
        if (slot == jobs)
            continue; /* not one of ours */
        struct running r = run[slot];
        run[slot].pid = 0;
        busy--;
        pass_on_stderr(r.err);
        fclose(r.err);
        if (WIFSIGNALED(ws)) {
            fprintf(stderr, "%s: the simulation of %s died of signal %d (%s)\n", perf_prog,
                    what(r.k), WTERMSIG(ws), strsignal(WTERMSIG(ws)));
            status = 128 + WTERMSIG(ws);
        } else if (WEXITSTATUS(ws) != 0) {
            status = WEXITSTATUS(ws); /* the child said why */
        } else {
            rewind(r.out);
            status = collect(r.k, r.out);
        }
        fclose(r.out);
        done++;
        if (status == 0 && progress)
            progress(done, n);
    }
    live = NULL; /* before the pids go: a late signal must not kill a stranger */
    stop_all(run, jobs);
    free(run);
    forget_stderr();
    return status;
}
