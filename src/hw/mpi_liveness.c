/* mpi_liveness.c: the mpi backend's check that the processes on this host
 * are still alive (mpi.c says why a dead process needs one). */
#include "mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- liveness: the processes on this host that have died ----
 *
 * Without ULFM an MPI call that needs a dead process blocks forever (a
 * flush of an RMA aimed at it, the barriers and gathers that end a run),
 * so the check cannot be an MPI call, and cannot run on the thread that
 * is blocked: a watchdog thread asks the kernel whether each other
 * process of this host still exists (kill(pid, 0); a zombie that mpirun
 * has not reaped yet counts as dead).  Processes on other hosts cannot be
 * checked that way: their death is mpirun's to notice (docs/backends.md).
 * The watchdog is armed from the first barrier of a run to its last
 * collective: MPI_Finalize's fence keeps every process alive until all
 * have left the run, so a process that is gone before that has died. */

enum { WATCH_NS = 50 * 1000 * 1000 };

static int pid_dead(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0)
        return 0;
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')'); /* "pid (comm) S ...": comm may hold spaces */
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The ranks on this host that have died, at most `max` of them, in `dead`;
 * how many. */
static int dead_ranks(int *dead, int max)
{
    int n = 0;
    for (int p = 0; p < pld__mpi->np; p++)
        if (p != pld__mpi->me &&
            strcmp(pld__mpi->peers[p].host, pld__mpi->peers[pld__mpi->me].host) == 0 &&
            pid_dead((pid_t)pld__mpi->peers[p].pid) && n < max)
            dead[n++] = p;
    return n;
}

/* A death is final: one survivor prints one report and ends the job with
 * MPI_Abort, which asks only the runtime (never the dead process) to kill
 * every process, on every host: the survivors cannot leave by themselves
 * (MPI_Finalize waits for the dead one, and Open MPI 4.1's mpirun hangs
 * once processes exit non-zero after a killed one, with
 * orte_abort_on_non_zero_status 0).  MPI_Abort from this thread, while the
 * main one is blocked in MPI, is outside MPI_THREAD_SINGLE's rules; it is
 * the one call left that can end the job.
 *
 * Who reports: the lowest survivor, so the report is the same in every
 * run.  But the reporter's own exit (MPI_Abort) makes it look dead too, and
 * a survivor whose watchdog ran late would then take itself for the lowest
 * and report again; so reporting also takes a claim in memory this host's
 * processes share (claim_win, the one host-wide word that needs no MPI call
 * and no file of ours), and a survivor that finds it taken stays silent.
 * The other survivors abort too, later, in case the reporter cannot. */
_Noreturn static void end_job_after_death(const int *dead, int n)
{
    int lowest = -1;
    for (int p = 0; p < pld__mpi->np && lowest < 0; p++) {
        int gone = 0;
        for (int k = 0; k < n; k++)
            gone |= dead[k] == p;
        if (!gone)
            lowest = p;
    }
    int unclaimed = 0;
    if (lowest == pld__mpi->me)
        unclaimed =
            !pld__mpi->claim || __atomic_exchange_n(pld__mpi->claim, 1, __ATOMIC_ACQ_REL) == 0;
    if (unclaimed) {
        char msg[1024];
        int len = snprintf(msg, sizeof msg, "pldsim: rank %d's process (pid %d on %s)", dead[0],
                           (int)pld__mpi->peers[dead[0]].pid, pld__mpi->peers[dead[0]].host);
        for (int k = 1; k < n && len < (int)sizeof msg - 64; k++)
            len += snprintf(msg + len, sizeof msg - (size_t)len, "%s rank %d's (pid %d)",
                            k + 1 == n ? " and" : ",", dead[k], (int)pld__mpi->peers[dead[k]].pid);
        if (len < (int)sizeof msg)
            snprintf(msg + len, sizeof msg - (size_t)len,
                     " died during the run: no MPI call that needs it can complete, so rank %d "
                     "ends the job (MPI_Abort, status %d)\n",
                     pld__mpi->me, pld_exit_code(PLD_EDEADLOCK));
        fflush(stdout);
        ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
        (void)w;
    } else {
        struct timespec ts = {2, 0};
        nanosleep(&ts, NULL);
    }
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, pld_exit_code(PLD_EDEADLOCK));
    _exit(pld_exit_code(PLD_EDEADLOCK));
}

static void *watchdog_main(void *unused)
{
    (void)unused;
    while (__atomic_load_n(&pld__mpi->watching, __ATOMIC_ACQUIRE)) {
        int dead[64], n = dead_ranks(dead, 64);
        if (n)
            end_job_after_death(dead, n);
        struct timespec ts = {0, WATCH_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The report's claim: one int, in memory shared by this host's processes
 * (collective).  Without it (an MPI that cannot share memory) the watchdog
 * still works, and a late survivor may repeat the report. */
static void make_claim(void)
{
    pld__mpi->host_comm = MPI_COMM_NULL;
    pld__mpi->claim = NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &pld__mpi->host_comm) != MPI_SUCCESS)
        return;
    int first;
    MPI_Comm_rank(pld__mpi->host_comm, &first);
    int *mine = NULL, *shared = NULL, disp;
    MPI_Aint size;
    if (MPI_Win_allocate_shared(first == 0 ? (MPI_Aint)sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                                pld__mpi->host_comm, &mine, &pld__mpi->claim_win) != MPI_SUCCESS) {
        MPI_Comm_free(&pld__mpi->host_comm);
        return;
    }
    if (first == 0)
        *mine = 0;
    MPI_Win_shared_query(pld__mpi->claim_win, 0, &size, &disp, &shared);
    MPI_Barrier(pld__mpi->host_comm); /* zeroed before anyone claims */
    pld__mpi->claim = shared;
}

/* Learns every process's host and pid (collective), then arms the
 * watchdog; 0, or -1 if it could not start (the run goes on unwatched). */
int pld__mpi_liveness_start(void)
{
    struct mpi_peer me = {.pid = (int32_t)getpid()};
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "?");
    if (!(pld__mpi->peers = calloc((size_t)pld__mpi->np, sizeof *pld__mpi->peers)))
        return -1;
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, pld__mpi->peers, (int)sizeof me, MPI_BYTE,
                  MPI_COMM_WORLD);
    make_claim();
    __atomic_store_n(&pld__mpi->watching, 1, __ATOMIC_RELEASE);
    if (pthread_create(&pld__mpi->watchdog, NULL, watchdog_main, NULL) != 0) {
        __atomic_store_n(&pld__mpi->watching, 0, __ATOMIC_RELEASE);
        return -1;
    }
    return 0;
}

void pld__mpi_liveness_stop(void)
{
    if (__atomic_exchange_n(&pld__mpi->watching, 0, __ATOMIC_ACQ_REL))
        pthread_join(pld__mpi->watchdog, NULL);
    if (pld__mpi->host_comm != MPI_COMM_NULL && pld__mpi->peers) {
        /* collective over this host: every process got here (mpi_run) */
        MPI_Win_free(&pld__mpi->claim_win);
        MPI_Comm_free(&pld__mpi->host_comm);
    }
    pld__mpi->claim = NULL;
    free(pld__mpi->peers);
    pld__mpi->peers = NULL;
}
