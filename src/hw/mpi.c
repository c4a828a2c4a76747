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
 * (liveness_* below).
 *
 * After the run, what each rank stored into host tensors is exchanged, so
 * every process holds every rank's results and checks the same golden.
 * Then stdout of processes other than 0 is closed (PLD_MPI_ALL_STDOUT=1
 * keeps it), so a program prints what it prints on the other backends.
 *
 * This file is the module pld_mpi.so, which libpld loads only when a run
 * asks for --backend mpi (mpi_loader.c); MPI calls go through mpi_calls.h. */
#include "../backend.h"
#include "mpi_calls.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Who each process is, for the liveness check: its host and pid. */
struct mpi_peer {
    char host[64];
    int32_t pid;
};

/* The backend's share of the run (R->be_state). */
struct mpi_state {
    struct pld__run *R;
    const struct pld__frontend *fe; /* the calls back into the front end */
    int me, np;
    int self; /* what mpi_self says: PLD__HOST, me, or PLD__NOBODY between the two */
    double t0;
    struct pld__task_queue tasks; /* this process's rank's */
    struct pld__task *current;    /* running; freed by run_tasks after an error */
    MPI_Win ctl;                  /* one INT32 per process: an error code, 0 while running */
    int32_t *abort_cell;
    jmp_buf unwind;         /* back to the runner of the host or of a task */
    struct mpi_peer *peers; /* every process's, by rank */
    pthread_t watchdog;
    int watching; /* the watchdog runs (atomic: it reads it) */
};

/* R->be_state, cached: set when mpi_run starts, NULL again when it returns. */
static struct mpi_state *M;

static int mpi_self(void)
{
    return M ? M->self : PLD__NOBODY;
}

static double mpi_now(void)
{
    return M ? MPI_Wtime() - M->t0 : 0.0; /* outside a run there is no clock */
}

static void mpi_dispatch(int rank, struct pld__task *t)
{
    if (rank != M->me) { /* runs in its own process */
        free(t->args);
        free(t);
        return;
    }
    pld__tasks_push(&M->tasks, t);
}

static MPI_Win win_of(const struct pld__wbuf *b)
{
    return *(const MPI_Win *)b->be_data;
}

/* Local stores to a window become visible to other processes' RMA, and
 * their RMA to local loads, at a window synchronisation. */
static void sync_all_windows(void)
{
    for (const struct pld__wbuf *b = M->R->wbufs; b; b = b->next)
        MPI_Win_sync(win_of(b));
}

static int mpi_window_alloc(struct pld__wbuf *b)
{
    MPI_Win *w = malloc(sizeof *w);
    void *base = NULL;
    if (!w)
        return PLD_ENOMEM;
    if (MPI_Win_allocate((MPI_Aint)b->slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, w) !=
        MPI_SUCCESS) {
        free(w);
        return PLD_ENOMEM;
    }
    memset(base, 0, (size_t)b->slot);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, *w);
    MPI_Win_sync(*w);
    b->mem = base;
    b->be_data = w;
    return 0;
}

static void mpi_window_free(struct pld__wbuf *b)
{
    MPI_Win *w = b->be_data;
    if (!w)
        return;
    MPI_Win_unlock_all(*w);
    MPI_Win_free(w);
    free(w);
    b->be_data = NULL;
    b->mem = NULL;
}

static MPI_Datatype basic_type(pl_dtype dt)
{
    switch (dt) {
    case PL_FP32:
        return MPI_FLOAT;
    case PL_INT32:
        return MPI_INT32_T;
    case PL_INT16:
        return MPI_INT16_T;
    case PL_INT8:
        return MPI_INT8_T;
    case PL_INT64:
        return MPI_INT64_T;
    default:
        return MPI_DATATYPE_NULL; /* FP16, BF16: no MPI type to add with */
    }
}

_Noreturn static void internal_error(const char *what)
{
    fflush(stdout);
    fprintf(stderr, "pldsim: mpi backend: rank %d: %s\n", M->me, what);
    M->R->error = PLD_EINVAL;
    M->R->be->abort_run();
}

/* The target side of a region: a subarray of `elem` over the view. */
static MPI_Datatype region_type(const struct pld__region *rg, MPI_Datatype elem)
{
    int nd = rg->full.ndim, sizes[PL_MAX_DIMS], sub[PL_MAX_DIMS], starts[PL_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        if (rg->full.dim[i] > INT_MAX)
            internal_error("a window view has a dimension beyond INT_MAX elements");
        sizes[i] = (int)rg->full.dim[i];
        sub[i] = (int)rg->shape.dim[i];
        starts[i] = (int)rg->offsets.dim[i];
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(nd, sizes, sub, starts, MPI_ORDER_C, elem, &t);
    MPI_Type_commit(&t);
    return t;
}

/* `dt`'s elements as raw bytes, for copies that need no arithmetic. */
static MPI_Datatype bytes_type(pl_dtype dt)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)pl_dtype_size(dt), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

static int region_count(const struct pld__region *rg)
{
    int64_t n = pl_shape_numel(rg->shape);
    if (n > INT_MAX)
        internal_error("one transfer of more than INT_MAX elements");
    return (int)n;
}

static void get_packed(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                       void *packed)
{
    MPI_Datatype e = bytes_type(rg->dtype), t = region_type(rg, e);
    MPI_Get(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, win_of(b));
    MPI_Win_flush(peer, win_of(b));
    MPI_Type_free(&t);
    MPI_Type_free(&e);
}

/* Atomic Add of 16-bit floats, which MPI cannot add: a compare-and-swap
 * loop on the aligned 32-bit word that holds each element. */
static void add_half(int peer, MPI_Win w, const struct pld__region *rg, const uint16_t *src)
{
    int nd = rg->full.ndim;
    int64_t n = pl_shape_numel(rg->shape), idx[PL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t flat = 0;
        for (int d = 0; d < nd; d++)
            flat = flat * rg->full.dim[d] + rg->offsets.dim[d] + idx[d];
        MPI_Aint at = (MPI_Aint)(rg->base + flat * 2), word = at & ~(MPI_Aint)3;
        int shift = (int)(at - word) * 8; /* little-endian: the low half comes first */
        uint32_t old, seen;
        MPI_Fetch_and_op(NULL, &old, MPI_UINT32_T, peer, word, MPI_NO_OP, w);
        MPI_Win_flush(peer, w);
        for (;;) {
            uint16_t h = (uint16_t)(old >> shift);
            double sum = (double)pld__elem_get(rg->dtype, &h) + pld__elem_get(rg->dtype, &src[k]);
            pld__elem_set(rg->dtype, &h, (float)sum);
            uint32_t want = (old & ~(0xffffu << shift)) | ((uint32_t)h << shift);
            MPI_Compare_and_swap(&want, &old, &seen, MPI_UINT32_T, peer, word, w);
            MPI_Win_flush(peer, w);
            if (seen == old)
                break;
            old = seen;
        }
        for (int d = nd - 1; d >= 0; d--) { /* next element of the region, row-major */
            if (++idx[d] < rg->shape.dim[d])
                break;
            idx[d] = 0;
        }
    }
}

static void put_packed(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                       const void *packed, pl_atomic op)
{
    MPI_Win w = win_of(b);
    if (op == PL_ATOMIC_ADD && basic_type(rg->dtype) == MPI_DATATYPE_NULL) {
        add_half(peer, w, rg, packed);
        return;
    }
    MPI_Datatype e = op == PL_ATOMIC_ADD ? basic_type(rg->dtype) : bytes_type(rg->dtype);
    MPI_Datatype t = region_type(rg, e);
    if (op == PL_ATOMIC_ADD)
        MPI_Accumulate(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, MPI_SUM, w);
    else
        MPI_Put(packed, region_count(rg), e, peer, (MPI_Aint)rg->base, 1, t, w);
    MPI_Win_flush(peer, w);
    MPI_Type_free(&t);
    if (op != PL_ATOMIC_ADD)
        MPI_Type_free(&e);
}

/* Are the region's elements contiguous in `s`?  Only its leading
 * dimension may be longer than the region's. */
static int is_packed(const struct pld__region *rg, struct pld__span s)
{
    if (s.full.ndim != rg->shape.ndim)
        return 0;
    for (int i = 1; i < rg->shape.ndim; i++)
        if (s.full.dim[i] != rg->shape.dim[i])
            return 0;
    return 1;
}

/* The caller's side of a put/get may be strided: it is packed into (or
 * unpacked from) a contiguous staging copy, as the DMA engine would. */
static void *staging(const struct pld__region *rg)
{
    void *p = malloc((size_t)pl_shape_numel(rg->shape) * pl_dtype_size(rg->dtype));
    if (!p)
        internal_error("out of memory staging a transfer");
    return p;
}

static int mpi_read(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                    struct pld__span dst, struct pld__cost *c)
{
    c->t_start = mpi_now();
    if (peer == M->me) {
        pld__shm_read(peer, b, rg, dst); /* a plain load of its own slot */
    } else if (is_packed(rg, dst)) {
        get_packed(peer, b, rg, dst.ptr);
    } else {
        unsigned char *tmp = staging(rg);
        get_packed(peer, b, rg, tmp);
        pld__copy_region(rg->dtype, rg->shape, dst.ptr, dst.full, tmp, rg->shape, PL_ATOMIC_NONE);
        free(tmp);
    }
    c->t_end = mpi_now();
    return 0;
}

static int mpi_write(int peer, const struct pld__wbuf *b, const struct pld__region *rg,
                     struct pld__span src, pl_atomic op, struct pld__cost *c)
{
    c->t_start = mpi_now();
    /* MPI makes accumulates atomic only against other MPI atomics on the
     * same location: a rank's own Add goes through MPI too, as its own
     * notifies do, or it races with a peer's */
    if (peer == M->me && op == PL_ATOMIC_NONE) {
        pld__shm_write(peer, b, rg, src, op);
    } else if (is_packed(rg, src)) {
        put_packed(peer, b, rg, src.ptr, op);
    } else {
        unsigned char *tmp = staging(rg);
        pld__copy_region(rg->dtype, rg->shape, tmp, rg->shape, src.ptr, src.full, PL_ATOMIC_NONE);
        put_packed(peer, b, rg, tmp, op);
        free(tmp);
    }
    c->t_end = mpi_now();
    return 0;
}

static int mpi_notify(int owner, const struct pld__cell_ref *cell, pld_notify_op op, int32_t value,
                      struct pld__cost *c)
{
    MPI_Win w = win_of(cell->b);
    c->t_start = mpi_now();
    /* the notify releases what this rank wrote before it, its own window's
     * local stores included; even its own cell is updated through MPI, so
     * that it is atomic against the peers' notifies */
    sync_all_windows();
    MPI_Accumulate(&value, 1, MPI_INT32_T, owner, (MPI_Aint)cell->off, 1, MPI_INT32_T,
                   op == PLD_NOTIFY_SET ? MPI_REPLACE : MPI_SUM, w);
    MPI_Win_flush(owner, w);
    c->t_end = mpi_now();
    return 0;
}

/* Tells every process that this run failed with `code`. */
static void raise_abort(int code)
{
    int32_t c = code;
    for (int p = 0; p < M->np; p++) {
        MPI_Accumulate(&c, 1, MPI_INT32_T, p, 0, 1, MPI_INT32_T, MPI_REPLACE, M->ctl);
        MPI_Win_flush(p, M->ctl);
    }
}

static int abort_seen(void)
{
    MPI_Win_sync(M->ctl);
    return __atomic_load_n(M->abort_cell, __ATOMIC_ACQUIRE) != 0;
}

_Noreturn static void mpi_abort_run(void)
{
    int code = M->R->error ? M->R->error : PLD_EINVAL;
    if (!abort_seen())
        raise_abort(code);
    longjmp(M->unwind, 1);
}

static int satisfied(const int32_t *cell, pld_wait_cmp cmp, int32_t expected)
{
    return pld__wait_holds(__atomic_load_n(cell, __ATOMIC_ACQUIRE), cmp, expected);
}

static void mpi_wait(const struct pld__cell_ref *ref, pld_wait_cmp cmp, int32_t expected)
{
    MPI_Win w = win_of(ref->b);
    const int32_t *cell = ref->addr; /* its own cell is in this process */
    double timeout = M->R->cfg->wait_timeout > 0 ? M->R->cfg->wait_timeout : 60.0;
    double deadline = MPI_Wtime() + timeout;
    long nap = 0; /* ns; 0 while polling tightly */
    for (unsigned polls = 0;; polls++) {
        MPI_Win_sync(w);
        if (satisfied(cell, cmp, expected))
            break;
        if (abort_seen()) /* another rank failed: stop here, still counted as waiting */
            longjmp(M->unwind, 1);
        if (MPI_Wtime() > deadline) {
            M->R->timed_out = 1;
            int zero = 0;
            __atomic_compare_exchange_n(&M->R->error, &zero, PLD_EDEADLOCK, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
            raise_abort(PLD_EDEADLOCK);
            longjmp(M->unwind, 1);
        }
        if (polls >= 64) {
            /* the notifier may share our core (mpirun --oversubscribe) */
            nap = nap ? (nap < 50000 ? nap * 2 : nap) : 1000;
            struct timespec ts = {0, nap};
            nanosleep(&ts, NULL);
        }
        int flag; /* lets MPI progress one-sided traffic aimed at us */
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    sync_all_windows(); /* what the notifier put before its notify is now visible */
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
    struct pld__run *R = M->R;
    struct pld__wait_msg mine, *all = NULL;
    pld__wait_export(M->me, &mine);
    if (M->me == 0 && !(all = calloc((size_t)M->np, sizeof *all)))
        return;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (M->me != 0)
        return;
    for (int r = 0; r < M->np; r++)
        pld__wait_import(r, &all[r]);
    R->notifiers_unknown = 1;
    R->timed_out = 1; /* here the only way to find one: process 0's wait may not have timed out */
    M->fe->report_deadlock();
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
    for (int root = 0; root < M->np; root++) {
        uint64_t n = len;
        MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
        unsigned char *buf = root == M->me ? mine : malloc(n ? n : 1);
        if (!buf) {
            fprintf(stderr,
                    "pldsim: mpi backend: rank %d: out of memory for %llu bytes of "
                    "results\n",
                    M->me, (unsigned long long)n);
            MPI_Abort(MPI_COMM_WORLD, pld_exit_code(PLD_ENOMEM));
        }
        for (uint64_t at = 0; at < n; at += INT_MAX)
            MPI_Bcast(buf + at, (int)(n - at < INT_MAX ? n - at : INT_MAX), MPI_BYTE, root,
                      MPI_COMM_WORLD);
        if (root != M->me) {
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
    M->self = PLD__HOST;
    if (setjmp(M->unwind) == 0)
        host(args);
    M->self = PLD__NOBODY;
}

static void run_tasks(void)
{
    M->self = M->me;
    if (setjmp(M->unwind) == 0)
        while ((M->current = pld__tasks_pop(&M->tasks))) {
            M->fe->run_task(M->me, M->current);
            pld__task_free(M->current);
        }
    M->self = PLD__NOBODY;
    pld__task_free(M->current); /* left by an error, with the rest */
    M->current = NULL;
    pld__tasks_free(&M->tasks);
}

static int check_launch(struct pld__run *R)
{
    const char *why = NULL;
    char buf[256];
    if (M->np != R->P) {
        snprintf(buf, sizeof buf,
                 "the mpi backend runs one process per device: the device list has %d but "
                 "mpirun started %d; run mpirun -np %d PROG --backend mpi",
                 R->P, M->np, R->P);
        why = buf;
    } else if (R->cfg->no_data) {
        why = "--no-data is a timing-study option of the sim backend; the mpi backend keeps "
              "all data";
    }
    if (!why)
        return 0;
    if (M->me == 0) /* every process finds the same: say it once */
        pld__config_error(R->P == M->np ? PLD_EUSAGE : PLD_EDEVICES, "%s", why);
    return R->P == M->np ? PLD_EUSAGE : PLD_EDEVICES;
}

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
    for (int p = 0; p < M->np; p++)
        if (p != M->me && strcmp(M->peers[p].host, M->peers[M->me].host) == 0 &&
            pid_dead((pid_t)M->peers[p].pid) && n < max)
            dead[n++] = p;
    return n;
}

/* A death is final: the lowest surviving rank prints one report and ends
 * the job with MPI_Abort, which asks only the runtime (never the dead
 * process) to kill every process, on every host: the survivors cannot
 * leave by themselves (MPI_Finalize waits for the dead one, and Open MPI
 * 4.1's mpirun hangs once processes exit non-zero after a killed one, with
 * orte_abort_on_non_zero_status 0).  MPI_Abort from this thread, while the
 * main one is blocked in MPI, is outside MPI_THREAD_SINGLE's rules; it is
 * the one call left that can end the job.  The other survivors abort too,
 * later, in case the reporter cannot. */
_Noreturn static void end_job_after_death(const int *dead, int n)
{
    int lowest = -1;
    for (int p = 0; p < M->np && lowest < 0; p++) {
        int gone = 0;
        for (int k = 0; k < n; k++)
            gone |= dead[k] == p;
        if (!gone)
            lowest = p;
    }
    if (lowest == M->me) {
        char msg[1024];
        int len = snprintf(msg, sizeof msg, "pldsim: rank %d's process (pid %d on %s)", dead[0],
                           (int)M->peers[dead[0]].pid, M->peers[dead[0]].host);
        for (int k = 1; k < n && len < (int)sizeof msg - 64; k++)
            len += snprintf(msg + len, sizeof msg - (size_t)len, "%s rank %d's (pid %d)",
                            k + 1 == n ? " and" : ",", dead[k], (int)M->peers[dead[k]].pid);
        if (len < (int)sizeof msg)
            snprintf(msg + len, sizeof msg - (size_t)len,
                     " died during the run: no MPI call that needs it can complete, so rank %d "
                     "ends the job (MPI_Abort, status %d)\n",
                     M->me, pld_exit_code(PLD_EDEADLOCK));
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
    while (__atomic_load_n(&M->watching, __ATOMIC_ACQUIRE)) {
        int dead[64], n = dead_ranks(dead, 64);
        if (n)
            end_job_after_death(dead, n);
        struct timespec ts = {0, WATCH_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* Learns every process's host and pid (collective), then arms the
 * watchdog; 0, or -1 if it could not start (the run goes on unwatched). */
static int liveness_start(void)
{
    struct mpi_peer me = {.pid = (int32_t)getpid()};
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "?");
    if (!(M->peers = calloc((size_t)M->np, sizeof *M->peers)))
        return -1;
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, M->peers, (int)sizeof me, MPI_BYTE,
                  MPI_COMM_WORLD);
    __atomic_store_n(&M->watching, 1, __ATOMIC_RELEASE);
    if (pthread_create(&M->watchdog, NULL, watchdog_main, NULL) != 0) {
        __atomic_store_n(&M->watching, 0, __ATOMIC_RELEASE);
        return -1;
    }
    return 0;
}

static void liveness_stop(void)
{
    if (__atomic_exchange_n(&M->watching, 0, __ATOMIC_ACQ_REL))
        pthread_join(M->watchdog, NULL);
    free(M->peers);
    M->peers = NULL;
}

/* Runs the host, then this process's rank's tasks, and gathers the run's
 * outcome from every process. */
static int run_process(struct pld__run *R, pld__host_fn host, const void *args)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &M->me);
    MPI_Comm_size(MPI_COMM_WORLD, &M->np);
    int rc = check_launch(R);
    if (rc)
        return rc;
    pld__mute_host = M->me != 0;
    pld__device_defaults(&R->host_dev); /* no platform: the UB size is a2a3's */
    snprintf(R->platform_desc, sizeof R->platform_desc, "mpi");
    for (int r = 0; r < R->P; r++) {
        R->ranks[r].dev = R->host_dev;
        R->ranks[r].device_id = R->cfg->device_ids[r];
    }
    liveness_start();
    MPI_Win_allocate(sizeof(int32_t), sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &M->abort_cell, &M->ctl);
    *M->abort_cell = 0;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, M->ctl);
    MPI_Barrier(MPI_COMM_WORLD);
    M->t0 = MPI_Wtime();

    run_host(host, args);
    /* every window is allocated and zeroed in every process before any
     * rank reaches into another's */
    MPI_Barrier(MPI_COMM_WORLD);
    if (!R->error)
        run_tasks();
    /* a rank that is done keeps its windows open for the others */
    MPI_Barrier(MPI_COMM_WORLD);

    /* the run's code: the first failing rank's own error */
    int *codes = malloc((size_t)M->np * sizeof *codes), own = R->error;
    if (!codes)
        return pld__config_error(PLD_ENOMEM, "out of memory for %d ranks", M->np);
    MPI_Allgather(&own, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
    rc = 0;
    for (int p = 0; p < M->np && !rc; p++)
        rc = codes[p];
    free(codes);
    if (rc == PLD_EDEADLOCK)
        report_deadlock();
    if (!rc)
        rc = exchange_host_writes();
    R->error = rc;

    unsigned long long moved = R->bytes_moved, total = 0;
    MPI_Allreduce(&moved, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    R->bytes_moved = total;
    double mine = mpi_now();
    MPI_Allreduce(&mine, &R->end_time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Win_unlock_all(M->ctl);
    MPI_Win_free(&M->ctl);

    const char *all = getenv("PLD_MPI_ALL_STDOUT");
    if (M->me != 0 && !(all && strcmp(all, "1") == 0)) {
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

static int mpi_run(struct pld__run *R, pld__host_fn host, const void *args,
                   const struct pld__frontend *fe)
{
    int inited, provided;
    MPI_Initialized(&inited);
    if (!inited) {
        MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
        atexit(finalize_at_exit);
    }
    if (!(M = R->be_state = calloc(1, sizeof *M)))
        return pld__config_error(PLD_ENOMEM, "out of memory for the mpi backend's state");
    M->R = R;
    M->fe = fe;
    M->self = PLD__NOBODY;
    int rc = run_process(R, host, args);
    liveness_stop(); /* after the run's last collective: every process got there */
    free(M);
    M = R->be_state = NULL;
    return rc;
}

struct pld_mpi_calls pld_mpi_fn;

/* Looks up every MPI call in `self` (this module's handle) and its
 * dependencies.  Returns 0, or -1 with the reason in `why`. */
int pld_mpi_bind(void *self, char *why, size_t len)
{
#define PLD_MPI_LOOKUP(name)                                                                       \
    if (!(*(void **)&pld_mpi_fn.name = dlsym(self, "MPI_" #name))) {                               \
        snprintf(why, len, "MPI_" #name " not found: %s", dlerror());                              \
        return -1;                                                                                 \
    }
    PLD_MPI_CALLS(PLD_MPI_LOOKUP)
#undef PLD_MPI_LOOKUP
    /* the whole point: not SMPI's copy inside libsimgrid */
    Dl_info info;
    if (dladdr(*(void **)&pld_mpi_fn.Init_thread, &info) && info.dli_fname &&
        strstr(info.dli_fname, "simgrid")) {
        snprintf(why, len, "MPI_Init_thread resolved to %s (SimGrid's SMPI), not to MPI",
                 info.dli_fname);
        return -1;
    }
    return 0;
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
    .read = mpi_read,
    .write = mpi_write,
    .notify = mpi_notify,
    .wait = mpi_wait,
    .route_bw = NULL,
    .abort_run = mpi_abort_run,
    .window_alloc = mpi_window_alloc,
    .window_free = mpi_window_free,
};
