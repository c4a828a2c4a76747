/* mpi-allreduce-bench.c: the yardstick for pldsim's real backends: plain
 * MPI_Allreduce (FP32, Sum) timed exactly as pldsim-bench-backends times
 * pld_tensor_allreduce: a barrier, then N calls each followed by a barrier,
 * rank 0's clock around them.  Built only when configure finds MPI; it does
 * not link libpld.
 *
 *   mpirun -np P mpi-allreduce-bench [-b BYTES] [-e BYTES] [--iters N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long long minb = 4096, maxb = 64LL << 20;
    int iters = 20, me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-b") == 0)
            minb = atoll(argv[i + 1]);
        else if (strcmp(argv[i], "-e") == 0)
            maxb = atoll(argv[i + 1]);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    if (minb < 4 || maxb < minb || iters < 1) {
        if (me == 0)
            fprintf(stderr, "usage: mpi-allreduce-bench [-b BYTES] [-e BYTES] [--iters N]\n");
        MPI_Finalize();
        return 2;
    }
    float *buf = calloc((size_t)(maxb / 4), sizeof *buf);
    if (!buf) {
        fprintf(stderr, "mpi-allreduce-bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double factor = 2.0 * (np - 1) / np;
    if (me == 0)
        printf("# MPI_Allreduce P=%d, FP32 sum, in place, %d calls per size\n"
               "# %12s %12s %10s %10s\n",
               np, iters, "bytes", "time(us)", "algbw", "busbw");
    for (long long b = minb; b <= maxb; b *= 4) {
        int n = (int)(b / 4);
        MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / iters, alg = (double)n * 4 / t / 1e9;
        if (me == 0)
            printf("  %12lld %12.2f %10.2f %10.2f\n", (long long)n * 4, t * 1e6, alg, alg * factor);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
