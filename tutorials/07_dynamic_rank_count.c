/* Step 07: a dynamic rank count.  Step 06's kernels, unchanged, with the
 * host tensors declared as [NR, 1, SIZE] where NR = pl_dynamic("NR") is bound
 * at run time from the real tensors, so the same program runs at any P >= 2
 * (-d 0,1,2 or -d 0-7).  Window shapes do not depend on NR here: every rank
 * has one src, one dst and one signal cell, whatever the count. */
#include "put_get.h"

#include <string.h>

struct host_args {
    pl_tensor x, y;
    int get;
};

static void host(const struct host_args *h)
{
    /* upstream: x: pl.Tensor[[NR, 1, SIZE], pl.FP32] with NR = pl.dynamic("NR") */
    int64_t NR = pl_dynamic("NR");
    pl_bind_shape(h->x, PL_SHAPE(NR, 1, PG_SIZE));
    pl_bind_shape(h->y, PL_SHAPE(NR, 1, PG_SIZE));

    pg_dispatch_all(h->x, h->y, h->get);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"put", "get", NULL};
    static const struct tut_spec spec = {
        .name = "07_dynamic_rank_count",
        .summary = "Step 07: step 06 at any P >= 2, with the rank count bound at run time.",
        .modes = modes,
        .default_mode = "put",
        .min_p = 2,
        .default_p = 2,
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
