/* check_backends.c: one source, every backend.  Each tutorial step (every
 * mode, at P = 2 and 4) and the extra cases in backend_cases.c run on sim,
 * threads and, when the build has it, mpi (through mpirun).  Every run must
 * pass its golden, and its outputs (--dump-outputs: every host tensor, exact
 * values) must equal the sim run's: bit for bit where the arithmetic cannot
 * depend on timing, within a tolerance where it can (atomic Adds land in
 * arrival order).  The mpi backend's failures must be reported once, with
 * the status the other backends give.  "sim-sparse" is the simulator with
 * every INT32 window kept sparse (PLD_SPARSE_WINDOWS=all, src/mem/sparse.c), so
 * the whole ladder also checks that path against dense storage. */
#include "checktools.h"

#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How mpirun is started.  Open MPI frees little at exit and unloads its
 * components first, so LeakSanitizer (--enable-sanitizers) would report
 * leaks in libraries it cannot even name: leak checking is left to the sim
 * and threads runs of the same code, the rest of ASan stays on. */
#define MPI_LAUNCH "ASAN_OPTIONS=detect_leaks=0 %s --oversubscribe --allow-run-as-root -np %d "

/* The last `n` bytes of `s`: Check cannot carry a long failure message. */
static const char *tail(const char *s, size_t n)
{
    size_t len = s ? strlen(s) : 0;
    return len > n ? s + len - n : s ? s : "";
}

#ifdef MPIRUN
static const char *const backends[] = {"sim", "sim-sparse", "threads", "mpi"};
#else
static const char *const backends[] = {"sim", "sim-sparse", "threads"};
#endif
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

/* Runs `prog args` on P devices of `backend`, dumping its outputs. */
static struct cmd_result run_on(const char *backend, int P, const char *prog, const char *args,
                                const char *dump)
{
#ifdef MPIRUN
    if (strcmp(backend, "mpi") == 0)
        return run_cmd(MPI_LAUNCH "%s %s -d 0-%d --backend mpi --dump-outputs %s </dev/null",
                       MPIRUN, P, prog, args, P - 1, dump);
#endif
    if (strcmp(backend, "sim-sparse") == 0)
        return run_cmd("PLD_SPARSE_WINDOWS=all %s %s -d 0-%d --dump-outputs %s", prog, args, P - 1,
                       dump);
    return run_cmd("%s %s -d 0-%d --backend %s --dump-outputs %s", prog, args, P - 1, backend,
                   dump);
}

/* The relative tolerance for values of `dtype` when arrival order may
 * change a sum; integers are always exact. */
static double tolerance(const char *dtype)
{
    if (strcmp(dtype, "FP16") == 0 || strcmp(dtype, "BF16") == 0)
        return 1e-2;
    if (strcmp(dtype, "FP32") == 0)
        return 1e-5;
    return 0;
}

/* Compares two dumps; returns NULL when they agree, else a description of
 * the first difference (static).  `exact`: the texts must be identical
 * (%.17g of the exact values: equal text is equal bits). */
static const char *compare_dumps(const char *want, const char *got, int exact)
{
    static char why[512];
    if (!want || !got)
        return "a dump is missing";
    if (exact) {
        if (strcmp(want, got) == 0)
            return NULL;
        size_t i = 0, line = 1;
        for (; want[i] && want[i] == got[i]; i++)
            line += want[i] == '\n';
        snprintf(why, sizeof why, "not bit-identical: first difference on dump line %zu", line);
        return why;
    }
    char *a = strdup(want), *b = strdup(got), *sa, *sb;
    char dtype[16] = "";
    const char *res = NULL;
    char *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
    for (int line = 1; la || lb;
         line++, la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        if (!la || !lb) {
            res = "the dumps have different lengths";
            break;
        }
        if (strncmp(la, "tensor ", 7) == 0) {
            if (strcmp(la, lb) != 0) {
                snprintf(why, sizeof why, "line %d: '%s' against '%s'", line, la, lb);
                res = why;
                break;
            }
            sscanf(la, "tensor %*s %15s", dtype);
            continue;
        }
        char *pa = la, *pb = lb, *ea, *eb;
        for (;;) {
            double x = strtod(pa, &ea), y = strtod(pb, &eb);
            if (ea == pa || eb == pb)
                break;
            double tol = tolerance(dtype);
            if (tol == 0 ? x != y : fabs(x - y) > tol * (1 + fabs(x))) {
                snprintf(why, sizeof why, "line %d (%s): %.9g against %.9g", line, dtype, x, y);
                res = why;
                break;
            }
            pa = ea;
            pb = eb;
        }
        if (res)
            break;
    }
    free(a);
    free(b);
    return res;
}

/* Runs one program on every backend and checks it against sim's run. */
static void same_on_every_backend(const char *prog, const char *args, int P, int exact)
{
    char dump[NBACKENDS][64], *text[NBACKENDS];
    for (int b = 0; b < NBACKENDS; b++) {
        snprintf(dump[b], sizeof dump[b], "/tmp/pld-backends-%d-%s.txt", (int)getpid(),
                 backends[b]);
        struct cmd_result r = run_on(backends[b], P, prog, args, dump[b]);
        ck_assert_msg(r.status == 0, "%s %s at P=%d on %s exited %d\nstdout:\n%s\nstderr:\n%s",
                      prog, args, P, backends[b], r.status, tail(r.out, 1000), tail(r.err, 2000));
        ck_assert_msg(count_lines_with(r.out, "OK") == 1 && strstr(r.out, "OK\n"),
                      "%s %s at P=%d on %s: not one OK line in:\n%s", prog, args, P, backends[b],
                      tail(r.out, 2000));
        ck_assert_msg(count_error_lines(r.err) == 0, "%s %s on %s: stderr:\n%s", prog, args,
                      backends[b], tail(r.err, 2000));
        text[b] = slurp(dump[b]);
        unlink(dump[b]);
        cmd_result_free(&r);
    }
    ck_assert_msg(text[0] && strstr(text[0], "tensor "), "sim wrote no outputs for %s %s", prog,
                  args);
    for (int b = 1; b < NBACKENDS; b++) {
        const char *why = compare_dumps(text[0], text[b], exact);
        ck_assert_msg(!why, "%s %s at P=%d: %s's outputs differ from sim's: %s", prog, args, P,
                      backends[b], why);
    }
    for (int b = 0; b < NBACKENDS; b++)
        free(text[b]);
}

/* Every step and mode; P = 2 for the two-device steps, else 2 and 4. */
static const struct {
    const char *step, *args;
    int p;
} ladder[] = {
    {"01_hello_rank", "", 2},
    {"02_programming_model", "", 2},
    {"03_window_buffer", "", 2},
    {"04_barrier", "", 2},
    {"04_barrier", "--use-builtin", 2},
    {"05_remote_load_store", "--mode load", 2},
    {"05_remote_load_store", "--mode store", 2},
    {"06_put_get", "--mode put", 2},
    {"06_put_get", "--mode get", 2},
#define BOTH_P(step, args)                                                                         \
    {step, args, 2},                                                                               \
    {                                                                                              \
        step, args, 4                                                                              \
    }
    BOTH_P("07_dynamic_rank_count", "--mode put"),
    BOTH_P("07_dynamic_rank_count", "--mode get"),
    BOTH_P("08_allreduce_mesh", ""),
    BOTH_P("09_allreduce_two_phase", ""),
    BOTH_P("10_allreduce_ring", ""),
    BOTH_P("11_allreduce_reveal", "--mode mesh"),
    BOTH_P("11_allreduce_reveal", "--mode ring"),
    BOTH_P("12_broadcast", "--mode hand"),
    BOTH_P("12_broadcast", "--mode builtin"),
    BOTH_P("13_allgather", "--mode hand"),
    BOTH_P("13_allgather", "--mode builtin"),
    BOTH_P("14_reduce_scatter", "--mode hand"),
    BOTH_P("14_reduce_scatter", "--mode builtin"),
    BOTH_P("15_all_to_all", "--mode hand"),
    BOTH_P("15_all_to_all", "--mode builtin"),
    BOTH_P("16_putting_it_together", ""),
#undef BOTH_P
};

/* Every reduction in the ladder adds in an order fixed by the program (the
 * mesh in rank order, the ring in its schedule), never in arrival order, so
 * every backend must produce the same bits. */
/* A table that breaks the contract is refused when the backend is chosen
 * (pld__backend_check), with the reason; every compiled-in table passes. */
START_TEST(a_backend_table_that_breaks_the_contract_is_refused)
{
    char why[256];
    for (int i = 0; pld__backends[i]; i++)
        ck_assert_msg(pld__backend_check(pld__backends[i], why, sizeof why) == 0, "%s", why);
    struct pld_backend bad = pld_backend_threads;
    bad.wait = NULL;
    ck_assert_int_eq(pld__backend_check(&bad, why, sizeof why), -1);
    ck_assert_str_eq(why, "backend 'threads': no wait hook");
    bad = pld_backend_threads;
    bad.size -= sizeof(void *);
    ck_assert_int_eq(pld__backend_check(&bad, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "its table is"));
    bad = pld_backend_sim;
    bad.kick = NULL; /* idle without kick */
    ck_assert_int_eq(pld__backend_check(&bad, why, sizeof why), -1);
    ck_assert_str_eq(why, "backend 'sim': idle and kick come together");
    bad = pld_backend_threads;
    bad.caps |= PLD_CAP_DISTRIBUTED; /* a distributed backend with no window hooks */
    ck_assert_int_eq(pld__backend_check(&bad, why, sizeof why), -1);
    bad.name = "";
    ck_assert_int_eq(pld__backend_check(&bad, why, sizeof why), -1);
    ck_assert_str_eq(why, "a backend table has no name");
}
END_TEST

START_TEST(step_gives_the_same_bits_on_every_backend)
{
    same_on_every_backend(tutorial(ladder[_i].step), ladder[_i].args, ladder[_i].p, 1);
}
END_TEST

static const char *cases_prog(void)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/tests/support/backend_cases", PLD_BUILDDIR);
    return path;
}

/* Strided regions move the same bytes everywhere; atomic Adds of floats
 * sum in arrival order, so only their integers must match exactly. */
START_TEST(strided_put_get_is_exact_on_every_backend)
{
    same_on_every_backend(cases_prog(), "strided", 2 + _i, 1);
}
END_TEST

/* A large INT32 window is sparse on the simulator by default and dense
 * elsewhere: every way into it must give the same bits. */
START_TEST(sparse_window_paths_are_exact_on_every_backend)
{
    same_on_every_backend(cases_prog(), "sparse", 2 + _i, 1);
}
END_TEST

/* Three full 1 MiB INT32 copies: the simulator's sparse table grows eight
 * times and its lines fill three arenas; every value must still be where
 * it was stored. */
START_TEST(sparse_table_grows_across_arenas_on_every_backend)
{
    same_on_every_backend(cases_prog(), "lines", 3, 1);
}
END_TEST

/* A [4096, 65536] INT32 signal window is 1 GiB per copy; two ranks touch
 * 256 of its cells each.  Kept sparse, the run fits in a 1 GiB data limit
 * (ulimit -d); kept dense it cannot even be allocated, and says so. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* A sanitizer's shadow memory counts against the data limit: no limit. */
#define DATA_LIMIT ""
#else
#define DATA_LIMIT "ulimit -d 1048576 && "
#endif
/* Whether a private writable mapping larger than RLIMIT_DATA is refused.
 * Linux refuses it (since 4.7); gVisor, where CI may run, applies the
 * limit to brk only, so there a dense window is not refused either. */
static int data_limit_refuses_mappings(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim;
        if (getrlimit(RLIMIT_DATA, &lim) != 0 || lim.rlim_max < (rlim_t)1 << 30)
            _exit(2);
        lim.rlim_cur = (rlim_t)1 << 30;
        if (setrlimit(RLIMIT_DATA, &lim) != 0)
            _exit(2);
        void *p =
            mmap(NULL, (size_t)2 << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        _exit(p == MAP_FAILED ? 0 : 1);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

START_TEST(huge_sparse_signal_window_fits_in_little_memory)
{
    struct cmd_result r = run_cmd(DATA_LIMIT "%s huge -d 0-1", cases_prog());
    ck_assert_msg(r.status == 0 && strstr(r.out, "OK\n"), "exit %d\nstdout:\n%s\nstderr:\n%s",
                  r.status, tail(r.out, 1000), tail(r.err, 2000));
    cmd_result_free(&r);
    if (!*DATA_LIMIT)
        return;
    if (!data_limit_refuses_mappings()) {
        fprintf(stderr, "note: this kernel does not apply RLIMIT_DATA to mappings; the dense "
                        "window's refusal is not checked\n");
        return;
    }
    r = run_cmd(DATA_LIMIT "PLD_SPARSE_WINDOWS=off %s huge -d 0-1", cases_prog());
    ck_assert_int_ne(r.status, 0);
    ck_assert_contains(r.err, "out of memory for 2 copies of 1073741824 bytes of window 'huge'");
    ck_assert_int_eq(count_error_lines(r.err), 1);
    cmd_result_free(&r);
}
END_TEST

/* Issue 41, class 2: a sparse window's copies were reserved as address
 * space, so an 8 GiB signal window was refused under a 4 GiB address-space
 * limit (ulimit -v) while its cells took a few KiB, and the message said
 * "out of memory" and advised --no-data, which keeps signal windows too.
 * Its addresses are now made up: it runs under the limit, with and without
 * --no-data. */
START_TEST(a_sparse_window_runs_under_an_address_space_limit)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return; /* a sanitizer reserves terabytes of shadow: no limit here */
#endif
    for (int no_data = 0; no_data < 2; no_data++) {
        struct cmd_result r = run_cmd("ulimit -v 4000000 && %s huge -d 0-7%s", cases_prog(),
                                      no_data ? " --no-data" : "");
        ck_assert_msg(r.status == 0 && strstr(r.out, "OK\n"), "exit %d\n%s", r.status, r.err);
        cmd_result_free(&r);
    }
}
END_TEST

/* What made-up addresses cannot give: a run's sparse windows share 56 PiB
 * of them.  One 32 PiB copy fits and runs; two are refused in one line
 * naming the size and the room, before anything runs. */
START_TEST(a_sparse_window_past_its_room_says_so)
{
    if (sizeof(void *) < 8)
        return; /* a 32-bit build reserves address space instead */
    struct cmd_result r = run_cmd("%s vast -d 0", cases_prog());
    ck_assert_msg(r.status == 0 && strstr(r.out, "OK\n"), "exit %d\n%s", r.status, r.err);
    cmd_result_free(&r);
    r = run_cmd("%s vast -d 0-1", cases_prog());
    ck_assert_msg(r.status == 3, "exit %d\n%s", r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    ck_assert_contains(r.err, "pld_alloc_window_buffer: cannot give window 'vast' 64.0 PiB of "
                              "addresses (2 copies of 36028797018963968 bytes;");
    ck_assert_contains(r.err, "the sparse windows of a run share 56.0 PiB of addresses; expected "
                              "a window whose copies fit: make the window smaller");
    ck_assert_msg(!strstr(r.err, "--no-data"), "%s", r.err);
    cmd_result_free(&r);
    /* the room already taken is said, or "32 PiB of 56 PiB" reads as a
     * contradiction; one copy is not "1 copies" */
    r = run_cmd("%s vast2 -d 0", cases_prog());
    ck_assert_msg(r.status == 3, "exit %d\n%s", r.status, r.err);
    ck_assert_int_eq(count_error_lines(r.err), 1);
    ck_assert_contains(r.err, "cannot give window 'vast2' 32.0 PiB of addresses (1 copy of "
                              "36028797018963968 bytes;");
    ck_assert_contains(r.err, "the sparse windows of a run share 56.0 PiB of addresses, and its "
                              "earlier ones have taken 32.0 PiB of it; expected a window whose "
                              "copies fit");
    cmd_result_free(&r);
}
END_TEST

START_TEST(atomic_adds_agree_on_every_backend)
{
    same_on_every_backend(cases_prog(), "atomics", 2 + _i, 0);
}
END_TEST

/* The comparison itself: it must see a one-ulp change, and tolerate an
 * FP32 rounding difference only where asked. */
START_TEST(dump_comparison_catches_differences)
{
    const char *a = "tensor y FP32 [1, 2]\n1.5 0.10000000149011612\n";
    const char *b = "tensor y FP32 [1, 2]\n1.5 0.10000000149011613\n";
    const char *c = "tensor y FP32 [1, 2]\n1.5 0.2\n";
    const char *d = "tensor y INT32 [1, 2]\n1 2\n";
    const char *e = "tensor y INT32 [1, 2]\n1 3\n";
    ck_assert_ptr_null(compare_dumps(a, a, 1));
    ck_assert_ptr_nonnull(compare_dumps(a, b, 1));
    ck_assert_ptr_null(compare_dumps(a, b, 0));
    ck_assert_ptr_nonnull(compare_dumps(a, c, 0));
    ck_assert_ptr_nonnull(compare_dumps(d, e, 0));
    ck_assert_ptr_nonnull(compare_dumps(a, d, 0));
}
END_TEST

#ifdef MPIRUN
static struct cmd_result mpi_run(int np, const char *prog, const char *args)
{
    return run_cmd(MPI_LAUNCH "%s %s --backend mpi </dev/null", MPIRUN, np, prog, args);
}

START_TEST(mpi_deadlock_is_reported_once_with_every_wait)
{
    struct cmd_result r = mpi_run(2, cases_prog(), "deadlock -d 0,1 --wait-timeout 1s");
    ck_assert_msg(r.status == 4, "exit %d\nstderr:\n%s", r.status, tail(r.err, 2000));
    ck_assert_int_eq(count_lines_with(r.err, "pldsim: wait timeout"), 1);
    ck_assert_contains(r.err, "rank 0: waits for sig[1, 0] >= 1; the cell holds 0\n");
    ck_assert_contains(r.err, "rank 1: waits for sig[0, 0] >= 1; the cell holds 0\n");
    ck_assert_contains(r.err, "tests/support/backend_cases.c:");
    cmd_result_free(&r);
}
END_TEST

START_TEST(mpi_rank_error_is_reported_once_and_others_unwind)
{
    struct cmd_result r = mpi_run(3, cases_prog(), "bad_peer -d 0-2 --wait-timeout 20s");
    ck_assert_msg(r.status == 3, "exit %d\nstderr:\n%s", r.status, tail(r.err, 2000));
    ck_assert_int_eq(count_lines_with(r.err, "rank 2: pld_tile_remote_load: peer 3 out of range "
                                             "[0, 3)"),
                     1);
    ck_assert_int_eq(count_lines_with(r.err, "pldsim: "), 0); /* no echo, no deadlock report */
    cmd_result_free(&r);
}
END_TEST

/* Issue 51, class 5: a refusal every process meets at once (the mpi
 * backend has no split-phase collectives) was printed by each, and two
 * processes interleaved it into one garbled line.  One process claims the
 * report, job-wide; the others stay silent.  sim and threads run it. */
START_TEST(mpi_refusal_met_by_every_process_is_printed_once)
{
    struct cmd_result r = mpi_run(4, cases_prog(), "defer -d 0-3 --wait-timeout 20s");
    ck_assert_msg(r.status == 3, "exit %d\nstderr:\n%s", r.status, tail(r.err, 2000));
    ck_assert_int_eq(count_lines_with(r.err, "split-phase collectives need the sim or threads "
                                             "backend; on mpi call the collective without defer"),
                     1);
    /* mpirun adds its own lines: count pldsim's (file:line), whole */
    ck_assert_int_eq(count_lines_with(r.err, "backend_cases.c:"), 1);
    ck_assert_int_eq(count_lines_with(r.err, "pld_deferred"), 1);
    cmd_result_free(&r);
    for (int b = 0; b < 2; b++) {
        r = run_cmd("%s defer -d 0-3 --backend %s", cases_prog(), b ? "threads" : "sim");
        ck_assert_msg(r.status == 0 && strstr(r.out, "OK\n"), "exit %d\n%s", r.status, r.err);
        cmd_result_free(&r);
    }
}
END_TEST

/* Issue 18, item 7: a rank's process killed in the middle of an allreduce.
 * Open MPI's mpirun sees the death, names the rank and ends the others, so
 * the job ends at once, non-zero; nothing may wait out the whole
 * --wait-timeout, let alone hang (timeout(1) is the safety net). */
START_TEST(mpi_killed_rank_ends_the_job_and_is_named)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cmd_result r = run_cmd("PLD_TEST_KILL_RANK=2 timeout 60 env " MPI_LAUNCH
                                  "%s killed -d 0-3 --wait-timeout 5s --backend mpi </dev/null",
                                  MPIRUN, 4, cases_prog());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_msg(r.status != 0 && r.status != 124, "exit %d\nstderr:\n%s", r.status,
                  tail(r.err, 2000));
    ck_assert_msg(s < 5 + 10, "took %.1f s (--wait-timeout 5s)", s);
    ck_assert_msg(strstr(r.err, "rank 2") || strstr(r.out, "rank 2"),
                  "no word of rank 2:\nstderr:\n%s\nstdout:\n%s", tail(r.err, 1500),
                  tail(r.out, 500));
    cmd_result_free(&r);
}
END_TEST

/* Issue 28, class 10: the same with mpirun told not to end the job
 * (--mca orte_abort_on_non_zero_status 0).  The survivors hung inside MPI
 * calls that need the dead process, past any --wait-timeout; now the mpi
 * backend's own liveness check sees the death, one survivor names the
 * dead rank and ends the job, well within --wait-timeout.  Rank 0 dies
 * too, in the second case: the report comes from the lowest survivor. */
START_TEST(mpi_killed_rank_without_mpirun_abort_is_named_by_pldsim)
{
    int victim = _i == 0 ? 2 : 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cmd_result r =
        run_cmd("PLD_TEST_KILL_RANK=%d timeout 60 env " MPI_LAUNCH
                "--mca orte_abort_on_non_zero_status 0 %s killed -d 0-3 --wait-timeout 10s "
                "--backend mpi </dev/null",
                victim, MPIRUN, 4, cases_prog());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_msg(r.status != 0 && r.status != 124, "exit %d\nstderr:\n%s", r.status,
                  tail(r.err, 2000));
    ck_assert_msg(s < 10, "took %.1f s (--wait-timeout 10s)", s);
    char said[128];
    snprintf(said, sizeof said, "pldsim: rank %d's process (pid ", victim);
    ck_assert_int_eq(count_lines_with(r.err, said), 1);
    snprintf(said, sizeof said,
             "died during the run: no MPI call that needs it can complete, so "
             "rank %d ends the job",
             victim == 0 ? 1 : 0);
    ck_assert_contains(r.err, said);
    cmd_result_free(&r);
}
END_TEST

/* Issue 41, class 1: an interrupt in the middle of a run (here the
 * program's own kernel sends it, as Ctrl-C or kill would arrive) was, on
 * sim, SimGrid's handler: no word and exit 1, the status of a golden
 * mismatch.  Now, on sim and threads alike, one line says so and the
 * process ends with the signal: 130 for SIGINT, 143 for SIGTERM. */
START_TEST(an_interrupt_ends_the_run_with_one_line_and_the_signal)
{
    const char *backend = _i % 2 ? "threads" : "sim";
    int term = _i >= 2;
    struct cmd_result r = run_cmd("PLD_TEST_SIGNAL=%s timeout 60 %s interrupt -d 0,1 --backend %s",
                                  term ? "TERM" : "INT", cases_prog(), backend);
    ck_assert_msg(r.status == (term ? 143 : 130), "%s: exit %d\n%s", backend, r.status, r.err);
    ck_assert_int_eq(count_lines_with(r.err, ""), 1);
    ck_assert_contains(r.err, term ? "pldsim: terminated (SIGTERM); the run has no result"
                                   : "pldsim: interrupted (SIGINT); the run has no result");
    cmd_result_free(&r);
}
END_TEST

/* Issue 41, class 1: on threads, a rank looping in its own code while
 * another's wait timed out: the report came, then the process waited for
 * the looping thread forever, and the report called it "finished or
 * idle".  Now it is named as running, and the process ends soon after. */
START_TEST(threads_timeout_with_a_spinning_rank_ends_the_process)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cmd_result r =
        run_cmd("timeout 60 %s spin -d 0,1 --backend threads --wait-timeout 1s", cases_prog());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_msg(r.status == 4, "exit %d after %.1f s\n%s", r.status, s, r.err);
    ck_assert_msg(s < 30, "took %.1f s", s);
    ck_assert_contains(r.err, "pldsim: wait timeout at t=");
    ck_assert_contains(r.err, "pldsim: 1 other rank is still running (rank 1)");
    ck_assert_contains(r.err, "pldsim: rank 1 is still running 2 s after the run ended: it is in "
                              "the program's own code, outside any pld call");
    ck_assert_msg(!strstr(r.err, "finished or idle"), "%s", r.err);
    cmd_result_free(&r);
}
END_TEST

START_TEST(mpi_process_count_must_match_the_devices)
{
    struct cmd_result r = mpi_run(2, tutorial("08_allreduce_mesh"), "-d 0-3");
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_lines_with(r.err, "the device list has 4 but mpirun started 2; run "
                                             "mpirun -np 4"),
                     1);
    cmd_result_free(&r);
    /* started without mpirun: MPI initialises as a singleton first */
    r = run_cmd("ASAN_OPTIONS=detect_leaks=0 %s -d 0,1 --backend mpi",
                tutorial("08_allreduce_mesh"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "mpirun started 1; run mpirun -np 2 PROG --backend mpi");
    cmd_result_free(&r);
}
END_TEST

START_TEST(mpi_refuses_what_it_cannot_do)
{
    static const char *const flags[] = {"--trace x.txt", "--summary", "--no-data"};
    for (int k = 0; k < 3; k++) {
        char args[64];
        snprintf(args, sizeof args, "-d 0,1 %s", flags[k]);
        struct cmd_result r = mpi_run(2, tutorial("08_allreduce_mesh"), args);
        ck_assert_msg(r.status == 2, "%s: exit %d", flags[k], r.status);
        ck_assert_contains(r.err, k < 2 ? "not available on the mpi backend" : "--no-data is a");
        cmd_result_free(&r);
    }
    /* its one variable: a value it does not know is refused, once, not
     * taken as 0 (issue 41) */
    struct cmd_result r =
        run_cmd("PLD_MPI_ALL_STDOUT=yes " MPI_LAUNCH "%s -d 0,1 --backend mpi </dev/null", MPIRUN,
                2, tutorial("08_allreduce_mesh"));
    ck_assert_msg(r.status == 2, "PLD_MPI_ALL_STDOUT=yes: exit %d\n%s", r.status, r.err);
    ck_assert_int_eq(count_lines_with(r.err, "pldsim: PLD_MPI_ALL_STDOUT 'yes': expected 1 (every "
                                             "process prints) or 0 (only process 0)"),
                     1);
    cmd_result_free(&r);
}
END_TEST

/* The mpi backend is a module: a simulator run must not load MPI (it
 * costs every run start-up time), and an mpi run must. */
START_TEST(mpi_module_is_loaded_only_when_asked_for)
{
    struct cmd_result r = run_cmd("LD_DEBUG=files %s", tutorial("01_hello_rank"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(!strstr(r.err, "file=libmpi"), "a sim run loaded MPI:\n%s", tail(r.err, 2000));
    cmd_result_free(&r);
    r = run_cmd(MPI_LAUNCH "env LD_DEBUG=files %s --backend mpi </dev/null", MPIRUN, 2,
                tutorial("01_hello_rank"));
    ck_assert_msg(r.status == 0 && strstr(r.err, "pld_mpi.so") && strstr(r.err, "file=libmpi"),
                  "exit %d; the mpi run did not load the module and MPI:\n%s", r.status,
                  tail(r.err, 2000));
    cmd_result_free(&r);
}
END_TEST

START_TEST(mpi_module_missing_is_one_clear_message)
{
    struct cmd_result r = run_cmd("PLD_MPI_MODULE=/nonexistent/pld_mpi.so %s --backend mpi",
                                  tutorial("08_allreduce_mesh"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "cannot load the mpi backend: /nonexistent/pld_mpi.so");
    ck_assert_contains(r.err, "set PLD_MPI_MODULE");
    ck_assert_int_eq(count_error_lines(r.err), 1);
    cmd_result_free(&r);
}
END_TEST

/* A module from another build of libpld has another backend table. */
START_TEST(mpi_module_of_another_libpld_is_refused)
{
    struct cmd_result r =
        run_cmd("PLD_MPI_MODULE=%s/tests/support/.libs/stale_mpi_module.so %s --backend mpi",
                PLD_BUILDDIR, tutorial("08_allreduce_mesh"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "the module was built for another libpld (its backend table is");
    ck_assert_int_eq(count_error_lines(r.err), 1);
    cmd_result_free(&r);
}
END_TEST
#else
START_TEST(mpi_backend_says_how_to_get_it)
{
    struct cmd_result r = run_cmd("%s -d 0,1 --backend mpi", tutorial("08_allreduce_mesh"));
    ck_assert_int_eq(r.status, 2);
    ck_assert_contains(r.err, "apt-get install libopenmpi-dev openmpi-bin");
    cmd_result_free(&r);
}
END_TEST
#endif

int main(void)
{
    /* Open MPI 5 (Debian 13) prints a line per rank when its TCP transport
     * finds no IPv6 pairing on a host that has IPv6 (docs/backends.md); the
     * runs here are on one machine, where IPv4 is enough */
    setenv("OMPI_MCA_btl_tcp_disable_family", "6", 0);
    Suite *s = suite_create("backends");
    TCase *tc = tcase_create("same outputs");
    tcase_add_test(tc, a_backend_table_that_breaks_the_contract_is_refused);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, dump_comparison_catches_differences);
    tcase_add_loop_test(tc, step_gives_the_same_bits_on_every_backend, 0,
                        (int)(sizeof ladder / sizeof ladder[0]));
    tcase_add_loop_test(tc, strided_put_get_is_exact_on_every_backend, 0, 3);
    tcase_add_loop_test(tc, atomic_adds_agree_on_every_backend, 0, 3);
    tcase_add_loop_test(tc, sparse_window_paths_are_exact_on_every_backend, 0, 3);
    tcase_add_test(tc, sparse_table_grows_across_arenas_on_every_backend);
    tcase_add_test(tc, huge_sparse_signal_window_fits_in_little_memory);
    tcase_add_test(tc, a_sparse_window_runs_under_an_address_space_limit);
    tcase_add_test(tc, a_sparse_window_past_its_room_says_so);
    tcase_add_loop_test(tc, an_interrupt_ends_the_run_with_one_line_and_the_signal, 0, 4);
    tcase_add_test(tc, threads_timeout_with_a_spinning_rank_ends_the_process);
    suite_add_tcase(s, tc);
    TCase *mpi = tcase_create("mpi");
    tcase_set_timeout(mpi, 120);
#ifdef MPIRUN
    tcase_add_test(mpi, mpi_deadlock_is_reported_once_with_every_wait);
    tcase_add_test(mpi, mpi_rank_error_is_reported_once_and_others_unwind);
    tcase_add_test(mpi, mpi_killed_rank_ends_the_job_and_is_named);
    tcase_add_loop_test(mpi, mpi_killed_rank_without_mpirun_abort_is_named_by_pldsim, 0, 2);
    tcase_add_test(mpi, mpi_refusal_met_by_every_process_is_printed_once);
    tcase_add_test(mpi, mpi_process_count_must_match_the_devices);
    tcase_add_test(mpi, mpi_refuses_what_it_cannot_do);
    tcase_add_test(mpi, mpi_module_is_loaded_only_when_asked_for);
    tcase_add_test(mpi, mpi_module_missing_is_one_clear_message);
    tcase_add_test(mpi, mpi_module_of_another_libpld_is_refused);
#else
    tcase_add_test(mpi, mpi_backend_says_how_to_get_it);
#endif
    suite_add_tcase(s, mpi);
    return run_suite(s);
}
