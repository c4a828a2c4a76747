/* simgrid_floor.c: what SimGrid alone costs for the work of pldsim's builtin
 * ring allreduce (tools/bench-scale.sh, docs/performance.md).
 *
 *   simgrid-floor PLATFORM.xml P [--bytes N] [--no-data]
 *
 * The same SimGrid activities as `pldsim-scale ring` on the same platform
 * file, and nothing of pldsim: one actor per device dev0..dev(P-1) and one
 * for the host.  As in sim/engine.c, device work goes on each actor's own
 * clock and is slept off only before something another actor sees: a
 * transfer (one host-to-host send), a notify to another rank (a sleep until
 * it is due: route latency plus 4 bytes over the route's bandwidth, then
 * the update), and the end.  A wait that holds costs nothing; one that does
 * not sleeps on a semaphore until a satisfying update.  The host's
 * dispatches release each rank at the host's model time, without a sleep.
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
    long sleeps, flows, signals;
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

/* A pull of `bytes` from `from` by `to` (the caller), over a route of
 * latency `lat`. */
static void pull(int from, int to, double bytes, double lat)
{
    elapse(pull_lat);
    catch_up();
    S.flows++;
    double t0 = simgrid_get_clock();
    sg_host_sendto(S.hosts[from], S.hosts[to], bytes);
    double own = pull_bw > 0 ? t0 + lat + bytes / pull_bw - simgrid_get_clock() : 0;
    if (own > 0)
        elapse(own);
}

/* A notify to `owner`'s cell: the signal latency, then (to another rank) a
 * sleep until the update is due there; the update wakes the owner only if
 * its blocked wait is now satisfied.  A notify to itself is a GM write.
 * sim/engine.c releases the waiter at the notifier's next call into the
 * engine instead of here: the same simulated instant and the same simcall,
 * in a different order among the actors that run at that instant. */
static void notify(int me, int owner, int32_t *cell)
{
    struct rank *rk = &S.rk[me];
    if (owner == me) {
        elapse(signal_lat + (hbm_lat + 2 * signal_bytes / hbm_bw)); /* one sum, as cost.c */
    } else {
        elapse(signal_lat);
        int right = owner == (me + 1) % S.P;
        rk->ahead +=
            right ? rk->lat_r + signal_bytes / rk->bw_r : rk->lat_l + signal_bytes / rk->bw_l;
        catch_up();
        S.signals++;
    }
    *cell += 1;
    struct rank *o = &S.rk[owner];
    if (o->wait_cell == cell && *cell >= o->wait_expected) {
        o->wait_cell = NULL;
        sg_sem_release(o->wake);
    }
}

/* Waits until `cell` >= `expected`: one that holds ends at the caller's
 * model time with no simcall; one that does not blocks, and ends at the
 * later of its wake-up and that model time.  Then the poll latency. */
static void wait_ge(int me, const int32_t *cell, int32_t expected)
{
    struct rank *rk = &S.rk[me];
    double t = now();
    int blocked = 0;
    while (*cell < expected) {
        rk->wait_cell = cell;
        rk->wait_expected = expected;
        blocked = 1;
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
            pull(left, me, 4.0 * (double)len, rk->lat_l);
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
    if (!S.hosts || !S.rk) {
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
    /* transfers counts what pldsim's summary counts: flows and signals */
    printf("coll=floor-ring P=%d sim_s=%.17g coll_s=%.17g transfers=%ld flows=%ld sleeps=%ld "
           "wall_s=%.3f rss_mb=%.1f\n",
           S.P, simgrid_get_clock(), S.t1 - S.t0, S.flows + S.signals, S.flows, S.sleeps, w1 - w0,
           (double)ru.ru_maxrss / 1024);
    return 0;
}
