/* mpi.c: the mpi backend.  One process per device, started by
 * `mpirun -np P PROG --backend mpi`; MPI rank r is device rank r.
 *
 * Every process runs the host orchestrator, so window allocation happens in
 * the same order everywhere and is collective: each buffer is one
 * MPI_Win_allocate'd window with a passive-target epoch open for the whole
 * run (MPI_Win_lock_all).  pld_dispatch(r, ...) keeps a task only in
 * process r, which runs its tasks once the host has finished.  remote_load
 * and get are MPI_Get + flush, remote_store and put MPI_Put (or, for atomic
 * Add, MPI_Accumulate) + flush.  A notify is an MPI_Accumulate, SUM for
 * AtomicAdd and REPLACE for Set: MPI makes accumulates atomic only against
 * other accumulates, so a Set written with MPI_Put could tear against a
 * concurrent Add.  A wait polls its own cell after MPI_Win_sync, backing off
 * from a tight loop to short sleeps so that oversubscribed runs still move.
 *
 * An error in one process does not kill the job: the process writes its
 * error code into every process's abort cell (a small window of its own),
 * every wait sees it and unwinds, and all processes meet at the end of the
 * run, agree on the first failing rank's code and return it.  A wait that
 * passes --wait-timeout does the same, and process 0 prints one deadlock
 * report built from every process's wait.
 *
 * A process that dies (killed, out of memory) writes no abort cell, and
 * Open MPI 4.1 has no way to tell the others (no ULFM): any MPI call that
 * involves it may never return.  mpirun's default error manager then ends
 * the job; when it is told not to (--mca orte_abort_on_non_zero_status 0),
 * a watchdog thread of each process checks that the other processes on
 * its host are still alive, and on a death the lowest surviving rank
 * prints one report naming the dead rank and ends the job with MPI_Abort
 * (mpi_liveness.c).
 *
 * After the run, what each rank stored into host tensors is exchanged, so
 * every process holds every rank's results and checks the same golden.
 * Then stdout of processes other than 0 is closed (PLD_MPI_ALL_STDOUT=1
 * keeps it), so a program prints what it prints on the other backends.
 *
 * This file is the module pld_mpi.so, which libpld loads only when a run
 * asks for --backend mpi (mpi_loader.c); MPI calls go through mpi_calls.h.
 * The run and the table are here; mpi_bind.c, mpi_window.c, mpi_ops.c and
 * mpi_liveness.c hold the rest, and mpi.h is what they share. */
#include "mpi.h"
#include "mem.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int mpi_self(void)
{
    return pld__mpi ? pld__mpi->self : PLD__NOBODY;
}

static void mpi_dispatch(int rank, struct pld__task *t)
{
    if (rank != pld__mpi->me) { /* runs in its own process */
        free(t->args);
        free(t);
        return;
    }
    pld__tasks_push(&pld__mpi->tasks, t);
}

static void finalize_at_exit(void)
{
    int done;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

static void report_deadlock(void)
{
    struct pld__wait_msg mine, *all = NULL;
    pld__mpi->fe->wait_export(pld__mpi->me, &mine);
    if (pld__mpi->me == 0 && !(all = calloc((size_t)pld__mpi->np, sizeof *all)))
        return;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (pld__mpi->me != 0)
        return;
    for (int r = 0; r < pld__mpi->np; r++)
        pld__mpi->fe->wait_import(r, &all[r]);
    /* timed out: here the only way to find one (process 0's wait may not
     * have timed out) */
    pld__mpi->fe->note(PLD__NOTE_NOTIFIERS_UNKNOWN | PLD__NOTE_TIMED_OUT);
    pld__mpi->fe->report_deadlock();
    free(all); /* printed: nothing reads the imported waits after the report */
}

/* Every process gets every rank's stores into host tensors. */
static int exchange_host_writes(void)
{
    unsigned char *mine;
    size_t len;
    int rc = pld__host_writes_pack(&mine, &len), bad = 0;
    if (rc) /* the others wait in the broadcasts below: nothing sane is left */
        MPI_Abort(MPI_COMM_WORLD, pld_exit_code(rc));
    for (int root = 0; root < pld__mpi->np; root++) {
        uint64_t n = len;
        MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
        unsigned char *buf = root == pld__mpi->me ? mine : malloc(n ? n : 1);
        if (!buf) {
            fprintf(stderr,
                    "pldsim: mpi backend: rank %d: out of memory for %llu bytes of "
                    "results\n",
                    pld__mpi->me, (unsigned long long)n);
            MPI_Abort(MPI_COMM_WORLD, pld_exit_code(PLD_ENOMEM));
        }
        for (uint64_t at = 0; at < n; at += INT_MAX)
            MPI_Bcast(buf + at, (int)(n - at < INT_MAX ? n - at : INT_MAX), MPI_BYTE, root,
                      MPI_COMM_WORLD);
        if (root != pld__mpi->me) {
            if (pld__host_writes_apply(buf, n))
                bad = PLD_EINVAL;
            free(buf);
        }
    }
    free(mine);
    return bad;
}

static void run_host(pld__host_fn host, const void *args)
{
    pld__mpi->self = PLD__HOST;
    if (setjmp(pld__mpi->unwind) == 0)
        host(args);
    pld__mpi->self = PLD__NOBODY;
}

static void run_tasks(void)
{
    pld__mpi->self = pld__mpi->me;
    if (setjmp(pld__mpi->unwind) == 0)
        while ((pld__mpi->current = pld__tasks_pop(&pld__mpi->tasks))) {
            pld__mpi->fe->run_task(pld__mpi->me, pld__mpi->current);
            pld__task_free(pld__mpi->current);
        }
    pld__mpi->self = PLD__NOBODY;
    pld__task_free(pld__mpi->current); /* left by an error, with the rest */
    pld__mpi->current = NULL;
    pld__tasks_free(&pld__mpi->tasks);
}

/* PLD_MPI_ALL_STDOUT is unset, empty, 0 or 1: anything else is refused at
 * launch, not taken as 0 at the end of the run. */
static int all_stdout_known(void)
{
    const char *v = getenv("PLD_MPI_ALL_STDOUT");
    return !v || !*v || strcmp(v, "0") == 0 || strcmp(v, "1") == 0;
}

static int check_launch(const struct pld__run_env *env)
{
    const char *why = NULL;
    char buf[256];
    if (pld__mpi->np != env->P) {
        snprintf(buf, sizeof buf,
                 "the mpi backend runs one process per device: the device list has %d but "
                 "mpirun started %d; run mpirun -np %d PROG --backend mpi",
                 env->P, pld__mpi->np, env->P);
        why = buf;
    } else if (env->cfg->no_data) {
        why = env->cfg->timing_only
                  ? "--timing-only is a timing-study option of the sim backend; the mpi backend "
                    "computes all data"
                  : "--no-data is a timing-study option of the sim backend; the mpi backend keeps "
                    "all data";
    } else if (!all_stdout_known()) {
        snprintf(buf, sizeof buf,
                 "PLD_MPI_ALL_STDOUT '%s': expected 1 (every process prints) or 0 (only "
                 "process 0)",
                 getenv("PLD_MPI_ALL_STDOUT"));
        why = buf;
    }
    if (!why)
        return 0;
    if (pld__mpi->me == 0) /* every process finds the same: say it once */
        pld__config_error(env->P == pld__mpi->np ? PLD_EUSAGE : PLD_EDEVICES, "%s", why);
    return env->P == pld__mpi->np ? PLD_EUSAGE : PLD_EDEVICES;
}

/* Runs the host, then this process's rank's tasks, and gathers the run's
 * outcome from every process. */
static int run_process(const struct pld__run_env *env, pld__host_fn host, const void *args,
                       struct pld__run_result *out)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &pld__mpi->me);
    MPI_Comm_size(MPI_COMM_WORLD, &pld__mpi->np);
    int rc = check_launch(env);
    if (rc)
        return rc;
    pld__mpi->fe->mute_host(pld__mpi->me != 0);
    struct pld__device dev;
    pld__device_defaults(&dev); /* no platform: the UB size is a2a3's */
    pld__mpi->fe->set_device(PLD__HOST, &dev);
    pld__mpi->fe->set_platform_desc("mpi");
    for (int r = 0; r < env->P; r++)
        pld__mpi->fe->set_device(r, &dev);
    pld__mpi_liveness_start();
    MPI_Win_allocate(2 * sizeof(int32_t), sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &pld__mpi->abort_cell, &pld__mpi->ctl);
    pld__mpi->abort_cell[0] = pld__mpi->abort_cell[1] = 0;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, pld__mpi->ctl);
    MPI_Barrier(MPI_COMM_WORLD);
    pld__mpi->t0 = MPI_Wtime();

    run_host(host, args);
    /* every window is allocated and zeroed in every process before any
     * rank reaches into another's */
    MPI_Barrier(MPI_COMM_WORLD);
    if (!pld__mpi->fe->error())
        run_tasks();
    /* a rank that is done keeps its windows open for the others */
    MPI_Barrier(MPI_COMM_WORLD);

    /* the run's code: the first failing rank's own error */
    int *codes = malloc((size_t)pld__mpi->np * sizeof *codes), own = pld__mpi->fe->error();
    if (!codes)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", pld__mpi->np);
    MPI_Allgather(&own, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
    rc = 0;
    for (int p = 0; p < pld__mpi->np && !rc; p++)
        rc = codes[p];
    free(codes);
    if (rc == PLD_EDEADLOCK)
        report_deadlock();
    if (!rc)
        rc = exchange_host_writes();
    out->error = rc;

    unsigned long long moved = pld__mpi->fe->bytes_moved(), total = 0;
    MPI_Allreduce(&moved, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    out->job_bytes_moved = 1;
    out->bytes_moved = total;
    double mine = mpi_now();
    MPI_Allreduce(&mine, &out->end_time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Win_unlock_all(pld__mpi->ctl);
    MPI_Win_free(&pld__mpi->ctl);
    pld__mpi->abort_cell = NULL; /* no claim after this: see pld__mpi_claim_report */

    const char *all = getenv("PLD_MPI_ALL_STDOUT");
    if (pld__mpi->me != 0 && !(all && strcmp(all, "1") == 0)) {
        /* the others print what process 0 prints, from the same data */
        fflush(stdout);
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            close(fd);
        }
    }
    return rc;
}

static int mpi_run(const struct pld__run_env *env, pld__host_fn host, const void *args,
                   const struct pld__frontend *fe, struct pld__run_result *out)
{
    int inited, provided;
    MPI_Initialized(&inited);
    if (!inited) {
        MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
        atexit(finalize_at_exit);
    }
    if (!(pld__mpi = calloc(1, sizeof *pld__mpi)))
        return pld__config_error(PLD_ENOMEM, "out of memory for the mpi backend's state");
    pld__mpi->env = env;
    pld__mpi->fe = fe;
    pld__mpi->self = PLD__NOBODY;
    int rc = run_process(env, host, args, out);
    pld__mpi_liveness_stop(); /* after the run's last collective: every process got there */
    free(pld__mpi);
    pld__mpi = NULL;
    return rc;
}

const struct pld_backend pld_backend_mpi = {
    .name = "mpi",
    .size = sizeof(struct pld_backend),
    .caps = PLD_CAP_DISTRIBUTED,
    .run = mpi_run,
    .self = mpi_self,
    .now = mpi_now,
    .dispatch = mpi_dispatch,
    .charge = pld__charge_nothing,
    .settle = pld__settle_nothing,
    .read = pld__mpi_read,
    .write = pld__mpi_write,
    .notify = pld__mpi_notify,
    .wait = pld__mpi_wait,
    .route_bw = NULL,
    .abort_run = pld__mpi_abort_run,
    .window_alloc = pld__mpi_window_alloc,
    .window_free = pld__mpi_window_free,
    .claim_report = pld__mpi_claim_report,
};