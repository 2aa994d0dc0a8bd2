/* MPI called from every OpenMP thread at once (MPI_THREAD_MULTIPLE): each
 * thread exchanges with its counterparts on the neighbouring ranks, under
 * a tag of its own, and reduces over a communicator of its own. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define THREADS 2

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm own[THREADS];
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long results[THREADS];
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num();
        long sum = 0;
        for (int round = 0; round < 50; round++) {
            long out = rank * 1000 + t * 10 + round, in = 0;
            MPI_Sendrecv(&out, 1, MPI_LONG, right, t, &in, 1, MPI_LONG, left, t,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long reduced = 0;
            MPI_Allreduce(&in, &reduced, 1, MPI_LONG, MPI_SUM, own[t]);
            sum += reduced % 1009;
        }
        results[t] = sum;
    }
    long total = 0;
    for (int t = 0; t < THREADS; t++) {
        total += results[t];
        MPI_Comm_free(&own[t]);
    }
    if (rank == 0)
        printf("threads: %ld\n", total);
    MPI_Finalize();
    return 0;
}
