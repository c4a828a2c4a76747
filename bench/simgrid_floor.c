/* simgrid_floor.c: what SimGrid alone costs for the work of pldsim's builtin
 * ring allreduce (tools/bench-scale.sh, docs/performance.md).
 *
 *   simgrid-floor PLATFORM.xml P [--bytes N] [--no-data]
 *
 * The same SimGrid activities as `pldsim-scale ring` on the same platform
 * file, and nothing of pldsim: one actor per device dev0..dev(P-1) and one
 * for the host.  As in sim/engine.c, device work goes on each actor's own
 * clock, and SimGrid sees only what other actors see:
 *  - a transfer is a solo flow (sim/flows.c; the ring's flows never share
 *    a link): a timer at the actor's model time finds its end, when CM02
 *    would end it, and a timer then wakes the actor;
 *  - a notify to another rank lands when it is due (route latency plus 4
 *    bytes over the route's bandwidth), applied by a timer (sim/landing.c),
 *    and a wait at a model time past a landing's due time takes it early;
 *  - a wait that holds costs nothing; one that does not sleeps on a
 *    semaphore until a satisfying update;
 *  - the host's dispatches release each rank at the host's model time;
 *  - the end is one sleep.
 *
 * Per rank and round: a ready notify to the right, its wait (then
 * poll_lat), the wait for the right neighbour's read-complete from round
 * r-1, per 16 KiB piece a pull from the left plus a GM load and a vector
 * add (reduce-scatter rounds only) and a GM store, then the read-complete
 * notify; after the rounds the wait for the last read-complete and the
 * 4(P-1) notifies to itself that take back the credits.  Before that the
 * host dispatches every rank (dispatch_lat each) and each rank launches its
 * kernel (launch_lat); with data, each rank writes and reads two elements.
 *
 * The device numbers are read from dev0's <prop>s in the platform file,
 * which pldsim writes from its model.  The run's simulated time therefore
 * equals pldsim's (tests/model/check_accuracy asserts it to the bit); its wall
 * time is the floor that pldsim's own code sits on.  Prints one key=value
 * line. */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <xbt/log.h>

/* sim/shim.cpp, linked in: the timers and flows pldsim's engine uses */
void *pld__sgx_timer_set(double date, void (*fn)(void));
void pld__sgx_timer_cancel(void *timer);
void *pld__sgx_timer_set_arg(double date, void (*fn)(void *), void *arg);

/* The device model, from dev0's <prop>s: seconds, bytes per second,
 * elements per second, bytes.  A pull costs pull_lat, then the flow, and at
 * least a route latency plus bytes/pull_bw (0: no such floor). */
static double hbm_lat, hbm_bw, vector_rate, launch_lat, dispatch_lat, signal_lat, poll_lat,
    signal_bytes, pull_lat, pull_bw;
enum { PIECE_ELEMS = 16384 / 4 }; /* FP32 elements per 16 KiB piece */

struct rank {
    /* cells: ready[r] counts round r's ready notifies from the left,
     * done[r] round r's read-completes from the right */
    int32_t *ready, *done;
    const int32_t *wait_cell; /* what a blocked wait waits for */
    int32_t wait_expected;
    sg_sem_t wake;      /* a blocked wait sleeps here */
    sg_sem_t flow;      /* and a transfer */
    double flow_end;    /* its end */
    sg_sem_t start;     /* released by the host's dispatch of this rank */
    double start_at;    /* the host's model time at that dispatch */
    double ahead;       /* model time past SimGrid's clock */
    double lat_r, bw_r; /* the route to the right neighbour */
    double lat_l, bw_l; /* and to the left one */
};

static struct {
    int P, data;
    int64_t n; /* FP32 elements per rank */
    sg_host_t *hosts;
    struct rank *rk;
    double host_ahead;
    double t0, t1; /* the collective: first rank's start, last rank's end */
    long sleeps, flows, signals, blocks;
} S;

static int self(void)
{
    return (int)(intptr_t)sg_actor_self_get_data();
}

static double *ahead(void)
{
    int me = self();
    return me >= 0 ? &S.rk[me].ahead : &S.host_ahead;
}

static double now(void)
{
    return simgrid_get_clock() + *ahead();
}

/* Device work: on the actor's own clock. */
static void elapse(double seconds)
{
    *ahead() += seconds;
}

static void gm(double bytes)
{
    elapse(hbm_lat + bytes / hbm_bw);
}

static void resume_at(double *a, double t)
{
    double c = simgrid_get_clock();
    *a = t > c ? t - c : 0;
}

/* Sleeps off the actor's own clock (what SimGrid leaves of a sleep below
 * its timing precision stays on it, as in sim/engine.c). */
static void catch_up(void)
{
    double *a = ahead();
    if (*a > 0) {
        double t = simgrid_get_clock() + *a;
        S.sleeps++;
        sg_actor_sleep_for(*a);
        resume_at(a, t);
    }
}

static void flow_end(void *arg)
{
    sg_sem_release(((struct rank *)arg)->flow);
}

static void flow_start(void *arg)
{
    struct rank *rk = arg;
    pld__sgx_timer_set_arg(rk->flow_end, flow_end, rk);
}

/* A pull of `bytes` from `from` by `to` (the caller), over a route of
 * latency `lat` and bandwidth `bw`: a lone CM02 flow, at the rate SimGrid's
 * solver gives it (sim/flows.c). */
static void pull(int from, int to, double bytes, double lat, double bw)
{
    (void)from;
    elapse(pull_lat);
    S.flows++;
    double t0 = now(); /* it starts then, with no sleep before it */
    double penalty = lat > 0 ? lat : 1.0;
    struct rank *rk = &S.rk[to];
    rk->flow_end = t0 + lat + bytes / (bw / (1.0 / penalty) / penalty);
    pld__sgx_timer_set_arg(t0, flow_start, rk);
    sg_sem_acquire(rk->flow);
    *ahead() = 0;
    double own = pull_bw > 0 ? t0 + lat + bytes / pull_bw - simgrid_get_clock() : 0;
    if (own > 0)
        elapse(own);
}

/* An update of `owner`'s cell: wakes the owner only if its blocked wait is
 * now satisfied. */
static void apply(int owner, int32_t *cell)
{
    *cell += 1;
    struct rank *o = &S.rk[owner];
    if (o->wait_cell == cell && *cell >= o->wait_expected) {
        o->wait_cell = NULL;
        sg_sem_release(o->wake);
    }
}

/* Notifies to other ranks in flight, by due time then issue: a binary heap
 * and one timer for its earliest, and each owner's list of them, as
 * sim/landing.c keeps them. */
struct update {
    double due;
    long order;
    int owner, landed;
    int32_t *cell;
    struct update *next, *prev; /* the owner's in flight; then the spare list */
};
static struct {
    struct update **h, *spare;
    size_t n, cap;
    long issued;
    void *timer; /* for the earliest update not landed */
    double timer_at;
    struct update **in, **in_tail; /* per owner */
} U;

static int before(const struct update *a, const struct update *b)
{
    return a->due < b->due || (a->due == b->due && a->order < b->order);
}

static void pop(void)
{
    struct update *last = U.h[--U.n];
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < U.n; i = c) {
        if (c + 1 < U.n && before(U.h[c + 1], U.h[c]))
            c++;
        if (!before(U.h[c], last))
            break;
        U.h[i] = U.h[c];
    }
    if (U.n)
        U.h[i] = last;
}

static void recycle(struct update *u)
{
    u->next = U.spare;
    U.spare = u;
}

static void land_due(void);

static void arm(void)
{
    while (U.n && U.h[0]->landed) {
        struct update *u = U.h[0];
        pop();
        recycle(u);
    }
    if (!U.n || (U.timer && U.timer_at <= U.h[0]->due))
        return;
    if (U.timer)
        pld__sgx_timer_cancel(U.timer);
    U.timer = pld__sgx_timer_set(U.h[0]->due, land_due);
    U.timer_at = U.h[0]->due;
}

static void land(struct update *u)
{
    int o = u->owner;
    if (u->prev)
        u->prev->next = u->next;
    else
        U.in[o] = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        U.in_tail[o] = u->prev;
    u->landed = 1;
    apply(o, u->cell);
}

static void land_due(void)
{
    double now = simgrid_get_clock();
    U.timer = NULL;
    while (U.n && U.h[0]->due <= now) {
        struct update *u = U.h[0];
        pop();
        if (!u->landed)
            land(u);
        recycle(u);
    }
    arm();
}

/* A wait of `me` at model time t: its updates due by then land now. */
static void land_early(int me, double t)
{
    for (;;) {
        struct update *first = NULL;
        for (struct update *u = U.in[me]; u; u = u->next)
            if (u->due <= t && (!first || before(u, first)))
                first = u;
        if (!first)
            return;
        land(first);
    }
}

static void land_later(int owner, int32_t *cell, double due)
{
    struct update *u = U.spare;
    if (U.n == U.cap) {
        U.cap = U.cap ? 2 * U.cap : 64;
        U.h = realloc(U.h, U.cap * sizeof *U.h);
    }
    if (u)
        U.spare = u->next;
    else
        u = malloc(sizeof *u);
    if (!U.h || !u) {
        fprintf(stderr, "simgrid-floor: out of memory for updates in flight\n");
        exit(2);
    }
    *u = (struct update){due, U.issued++, owner, 0, cell, NULL, U.in_tail[owner]};
    if (U.in_tail[owner])
        U.in_tail[owner]->next = u;
    else
        U.in[owner] = u;
    U.in_tail[owner] = u;
    size_t i = U.n++;
    for (; i > 0 && before(u, U.h[(i - 1) / 2]); i = (i - 1) / 2)
        U.h[i] = U.h[(i - 1) / 2];
    U.h[i] = u;
    arm();
}

/* A notify to `owner`'s cell: the signal latency, then (to another rank)
 * the update lands when it is due there, without a sleep.  A notify to
 * itself is a GM write.  sim/waits.c wakes the waiter of a notify to
 * itself at its next call into the engine instead of here: the same
 * simulated instant and the same simcall. */
static void notify(int me, int owner, int32_t *cell)
{
    struct rank *rk = &S.rk[me];
    if (owner == me) {
        elapse(signal_lat + (hbm_lat + 2 * signal_bytes / hbm_bw)); /* one sum, as cost.c */
        apply(owner, cell);
        return;
    }
    elapse(signal_lat);
    int right = owner == (me + 1) % S.P;
    rk->ahead += right ? rk->lat_r + signal_bytes / rk->bw_r : rk->lat_l + signal_bytes / rk->bw_l;
    S.signals++;
    land_later(owner, cell, simgrid_get_clock() + rk->ahead);
}

/* Waits until `cell` >= `expected`: one that holds ends at the caller's
 * model time with no simcall; one that does not blocks, and ends at the
 * later of its wake-up and that model time.  Then the poll latency. */
static void wait_ge(int me, const int32_t *cell, int32_t expected)
{
    struct rank *rk = &S.rk[me];
    double t = now();
    int blocked = 0;
    if (*cell < expected)
        land_early(me, t);
    while (*cell < expected) {
        rk->wait_cell = cell;
        rk->wait_expected = expected;
        blocked = 1;
        S.blocks++;
        sg_sem_acquire(rk->wake);
    }
    if (blocked)
        resume_at(&rk->ahead, t);
    elapse(poll_lat);
}

static int64_t bound(int64_t i)
{
    return i * S.n / S.P;
}

/* One rank: its kernel launch, then the builtin ring allreduce's steps
 * (src/collectives/allreduce_ring.c), then the epilogue. */
static void device(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int P = S.P, me = self(), rounds = 2 * (P - 1);
    int left = (me + P - 1) % P, right = (me + 1) % P;
    struct rank *rk = &S.rk[me];

    rk->lat_r = sg_host_get_route_latency(S.hosts[me], S.hosts[right]);
    rk->bw_r = sg_host_get_route_bandwidth(S.hosts[me], S.hosts[right]);
    rk->lat_l = sg_host_get_route_latency(S.hosts[me], S.hosts[left]);
    rk->bw_l = sg_host_get_route_bandwidth(S.hosts[me], S.hosts[left]);
    sg_sem_acquire(rk->start);
    resume_at(&rk->ahead, rk->start_at);
    elapse(launch_lat);
    if (S.data) { /* the benchmark writes both ends of its row */
        gm(4);
        gm(4);
    }
    double t0 = now();
    if (t0 < S.t0)
        S.t0 = t0;
    for (int r = 0; r < rounds; r++) {
        int rs = r < P - 1, s = rs ? r : r - (P - 1);
        int idx = rs ? ((me - s - 2) % P + 2 * P) % P : ((me - s - 1) % P + 2 * P) % P;
        int64_t lo = bound(idx), hi = bound(idx + 1);
        notify(me, right, &S.rk[right].ready[r]);
        wait_ge(me, &rk->ready[r], 1);
        if (r > 0)
            wait_ge(me, &rk->done[r - 1], 1);
        for (int64_t off = lo; off < hi; off += PIECE_ELEMS) {
            int64_t len = hi - off < PIECE_ELEMS ? hi - off : PIECE_ELEMS;
            pull(left, me, 4.0 * (double)len, rk->lat_l, rk->bw_l);
            if (rs) {
                gm(4.0 * (double)len);
                elapse((double)len / vector_rate);
            }
            gm(4.0 * (double)len);
        }
        notify(me, left, &S.rk[left].done[r]);
    }
    wait_ge(me, &rk->done[rounds - 1], 1);
    /* take back the credits (pldsim adds -1; nothing waits on them any more) */
    for (int r = 0; r < rounds; r++) {
        notify(me, me, &rk->ready[r]);
        notify(me, me, &rk->done[r]);
    }
    double t1 = now();
    if (t1 > S.t1)
        S.t1 = t1;
    if (S.data) { /* and reads them back */
        gm(4);
        gm(4);
    }
    catch_up();
}

/* pld_dispatch of every rank in turn, as bench/scale.c's host does. */
static void host(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (int r = 0; r < S.P; r++) {
        elapse(dispatch_lat);
        S.rk[r].start_at = now();
        sg_sem_release(S.rk[r].start);
    }
    catch_up();
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int usage(void)
{
    fputs("usage: simgrid-floor PLATFORM.xml P [--bytes N] [--no-data]\n"
          "                     [--cfg=SIMGRID_SETTING ...]\n"
          "  PLATFORM.xml: hosts dev0..dev(P-1) and host (as pldsim writes it to\n"
          "  $PLDSIM_SAVE_PLATFORM); N: bytes of FP32 per rank (default 1048576)\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *platform = argv[1];
    char *end;
    long P = strtol(argv[2], &end, 10);
    long long bytes = 1048576;
    S.data = 1;
    /* the network settings pldsim uses (sim/engine.c), then the caller's */
    char *sargv[64] = {argv[0], "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                       "--cfg=network/TCP-gamma:0"};
    int sargc = 4;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
            bytes = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--no-data") == 0)
            S.data = 0;
        else if (strncmp(argv[i], "--cfg=", 6) == 0 && sargc < 63) /* SimGrid's own */
            sargv[sargc++] = argv[i];
        else
            return usage();
    }
    /* P >= 3: with P = 2 the two neighbours' credits share one cell */
    if (*end || P < 3 || P > 4096 || bytes < 4 * P) {
        fprintf(stderr, "simgrid-floor: P must be 3..4096 and --bytes at least 4P\n");
        return 2;
    }
    S.P = (int)P;
    S.n = bytes / 4;
    S.t0 = 1e300;

    xbt_log_control_set("root.thresh:critical");
    simgrid_init(&sargc, sargv);
    double w0 = wall();
    simgrid_load_platform(platform);

    S.hosts = calloc((size_t)P, sizeof *S.hosts);
    S.rk = calloc((size_t)P, sizeof *S.rk);
    U.in = calloc((size_t)P, sizeof *U.in);
    U.in_tail = calloc((size_t)P, sizeof *U.in_tail);
    if (!S.hosts || !S.rk || !U.in || !U.in_tail) {
        fprintf(stderr, "simgrid-floor: out of memory for %ld ranks\n", P);
        return 2;
    }
    for (int r = 0; r < S.P; r++) {
        char name[32];
        snprintf(name, sizeof name, "dev%d", r);
        if (!(S.hosts[r] = sg_host_by_name(name))) {
            fprintf(stderr, "simgrid-floor: %s has no host %s\n", platform, name);
            return 2;
        }
        S.rk[r].ready = calloc(2 * (size_t)P, sizeof(int32_t));
        S.rk[r].done = calloc(2 * (size_t)P, sizeof(int32_t));
        S.rk[r].wake = sg_sem_init(0);
        S.rk[r].flow = sg_sem_init(0);
        S.rk[r].start = sg_sem_init(0);
        if (!S.rk[r].ready || !S.rk[r].done) {
            fprintf(stderr, "simgrid-floor: out of memory for %ld ranks\n", P);
            return 2;
        }
        sg_actor_t a = sg_actor_init(name, S.hosts[r]);
        sg_actor_set_data(a, (void *)(intptr_t)r);
        sg_actor_start_(a, device, 0, NULL);
    }
    /* a platform for another P would run, and time nothing comparable */
    char extra[32];
    snprintf(extra, sizeof extra, "dev%d", S.P);
    if (sg_host_by_name(extra)) {
        fprintf(stderr, "simgrid-floor: %s has more than %d devices (it has %s)\n", platform, S.P,
                extra);
        return 2;
    }
    static const struct {
        const char *key;
        double *to;
    } props[] = {{"hbm_lat", &hbm_lat},           {"hbm_bw", &hbm_bw},
                 {"vector_rate", &vector_rate},   {"launch_lat", &launch_lat},
                 {"dispatch_lat", &dispatch_lat}, {"signal_lat", &signal_lat},
                 {"poll_lat", &poll_lat},         {"signal_bytes", &signal_bytes},
                 {"pull_lat", &pull_lat},         {"pull_bw", &pull_bw}};
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        const char *v = sg_host_get_property_value(S.hosts[0], props[i].key);
        if (!v) {
            fprintf(stderr,
                    "simgrid-floor: %s: dev0 has no <prop id=\"%s\"> (write the file "
                    "with PLD_SAVE_PLATFORM)\n",
                    platform, props[i].key);
            return 2;
        }
        *props[i].to = strtod(v, NULL);
    }
    sg_host_t cpu = sg_host_by_name("host");
    if (!cpu) {
        fprintf(stderr, "simgrid-floor: %s has no host 'host'\n", platform);
        return 2;
    }
    sg_actor_t h = sg_actor_init("host", cpu);
    sg_actor_set_data(h, (void *)(intptr_t)-1);
    sg_actor_start_(h, host, 0, NULL);
    simgrid_run();
    double w1 = wall();

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* transfers counts what pldsim's summary counts: flows and signals;
     * blocks, the waits that blocked */
    printf("coll=floor-ring P=%d sim_s=%.17g coll_s=%.17g transfers=%ld flows=%ld sleeps=%ld "
           "blocks=%ld wall_s=%.3f rss_mb=%.1f\n",
           S.P, simgrid_get_clock(), S.t1 - S.t0, S.flows + S.signals, S.flows, S.sleeps, S.blocks,
           w1 - w0, (double)ru.ru_maxrss / 1024);
    return 0;
}
