/* Step 06: tensor-level put and get.
 *
 * --mode put (default): push x into the right neighbour's dst window, then
 * notify it; wait for the left neighbour's notify, then read dst.
 * Golden: y[r] = x[(r - 1) % P].
 * --mode get: announce our src is ready to the left neighbour, wait for the
 * right neighbour's announcement, then pull its src.
 * Golden: y[r] = x[(r + 1) % P].
 *
 * put and get are synchronous for the caller but carry no signal: the
 * notify/wait pair is what makes the data safe to use.  Needs exactly 2
 * devices; step 07 lifts that. */
#include "put_get.h"

#include <string.h>

struct host_args {
    pl_tensor x, y;
    int get;
};

static void host(const struct host_args *h)
{
    pg_dispatch_all(h->x, h->y, h->get);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"put", "get", NULL};
    static const struct tut_spec spec = {
        .name = "06_put_get",
        .summary = "Step 06: pass x around the ring with pld_tensor_put or pld_tensor_get.",
        .modes = modes,
        .default_mode = "put",
        .exact_p = 2,
    };
    struct tut t;
    tut_init(&t, &spec, argc, argv);
    int get = strcmp(t.mode, "get") == 0;

    struct host_args h = {pl_tensor_new(PL_SHAPE(t.P, 1, PG_SIZE), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(t.P, 1, PG_SIZE), PL_FP32, "y"), get};
    pl_fill_randn(h.x, t.cfg.seed);
    int rc = pld_run(&t.cfg, host, &h);

    char why[256];
    int ok = pg_check(h.x, h.y, t.P, get, why, sizeof why);
    pl_tensor_free(&h.x);
    pl_tensor_free(&h.y);
    return tut_finish(rc, ok, why);
}
