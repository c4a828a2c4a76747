/* ring_allreduce_mpi.c: the MPI peer of pldsim's ring allreduce, for SMPI
 * (tools/bench-scale.sh builds it with smpicc; it is not part of the build).
 *
 *   smpirun -np P -platform PLAT.xml -hostfile HOSTS ./ring_allreduce_mpi [BYTES]
 *
 * A textbook ring allreduce of BYTES (default 1 MiB) of floats per rank,
 * written with MPI_Sendrecv: P-1 reduce-scatter steps then P-1 allgather
 * steps, each sending one chunk to the right neighbour while receiving one
 * from the left.  Chunk i is [i*N/P, (i+1)*N/P) elements, as in pldsim.
 * Rank r contributes r+1 everywhere; rank 0 checks both ends of the result
 * and prints the simulated seconds (MPI_Wtime under SMPI) of the collective
 * between two barriers, and the messages it sent in all. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long lo_of(long i, long n, int p)
{
    return i * n / p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long n = (argc > 1 ? atol(argv[1]) : 1L << 20) / (long)sizeof(float);
    float *buf = malloc((size_t)n * sizeof *buf), *tmp = malloc((size_t)(n / p + 1) * sizeof *tmp);
    if (!buf || !tmp)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long j = 0; j < n; j++)
        buf[j] = (float)(me + 1);
    int left = (me + p - 1) % p, right = (me + 1) % p;
    long msgs = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int s = 0; s < p - 1; s++) { /* reduce-scatter: after it, chunk me+1 is whole */
        long si = ((me - s) % p + p) % p, ri = ((me - s - 1) % p + p) % p;
        long slo = lo_of(si, n, p), rlo = lo_of(ri, n, p);
        int scount = (int)(lo_of(si + 1, n, p) - slo), rcount = (int)(lo_of(ri + 1, n, p) - rlo);
        MPI_Sendrecv(buf + slo, scount, MPI_FLOAT, right, s, tmp, rcount, MPI_FLOAT, left, s,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int j = 0; j < rcount; j++)
            buf[rlo + j] += tmp[j];
        msgs++;
    }
    for (int s = 0; s < p - 1; s++) { /* allgather of the whole chunks */
        long si = ((me + 1 - s) % p + p) % p, ri = ((me - s) % p + p) % p;
        long slo = lo_of(si, n, p), rlo = lo_of(ri, n, p);
        int scount = (int)(lo_of(si + 1, n, p) - slo), rcount = (int)(lo_of(ri + 1, n, p) - rlo);
        MPI_Sendrecv(buf + slo, scount, MPI_FLOAT, right, p + s, buf + rlo, rcount, MPI_FLOAT, left,
                     p + s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        msgs++;
    }
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);

    double want = (double)p * (p + 1) / 2;
    int bad = buf[0] != (float)want || buf[n - 1] != (float)want, anybad = 0;
    long allmsgs = 0;
    double tmax = 0, dt = t1 - t0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&msgs, &allmsgs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dt, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll=mpi-ring P=%d bytes=%ld coll_s=%.17g messages=%ld wrong=%d\n", p,
               n * (long)sizeof(float), tmax, allmsgs, anybad);
    free(buf);
    free(tmp);
    MPI_Finalize();
    return anybad;
}
