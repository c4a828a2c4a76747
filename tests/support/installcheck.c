/* installcheck.c: built by `make installcheck` against the INSTALLED headers
 * and library through pkg-config, to prove that an installed pldsim is
 * usable on its own.  Each rank adds its rank to x in a kernel; prints OK. */
#include <pld/pld.h>
#include <stdio.h>

struct rank_args {
    pl_tensor x, y;
    int rank;
};

static void add_rank(const struct rank_args *a)
{
    pl_store(pl_add(pl_load(a->x, PL_IDX(0), PL_SHAPE(8)), a->rank), PL_IDX(0), a->y);
}

static void per_device(const struct rank_args *a)
{
    pl_incore(add_rank, a);
}

struct host_args {
    pl_tensor x, y;
};

static void host(const struct host_args *h)
{
    for (int r = 0; r < pld_world_size(); r++) {
        struct rank_args a = {pl_at(h->x, r), pl_at(h->y, r), r};
        pld_dispatch(r, per_device, a);
    }
}

int main(int argc, char **argv)
{
    pld_config cfg;
    pld_config_init(&cfg);
    if (pld_parse_args(&cfg, &argc, argv) != 0)
        return 2;
    struct host_args h = {pl_tensor_new(PL_SHAPE(cfg.ndevices, 8), PL_FP32, "x"),
                          pl_tensor_new(PL_SHAPE(cfg.ndevices, 8), PL_FP32, "y")};
    pl_fill_arange(h.x, 0, 1);
    int rc = pld_run(&cfg, host, &h);
    if (rc)
        return pld_exit_code(rc);
    for (int r = 0; r < cfg.ndevices; r++)
        for (int i = 0; i < 8; i++)
            if (pl_tensor_get(h.y, r * 8 + i) != r * 8 + i + r) {
                printf("FAIL at y[%d][%d]\n", r, i);
                return 1;
            }
    printf("OK\n");
    return 0;
}
