/* A token goes round the ranks three times; each rank adds what its
 * threads computed. MPI is called from the initial thread only
 * (MPI_THREAD_FUNNELED). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long local = 0;
#pragma omp parallel for reduction(+ : local)
    for (long i = 0; i < 200000; i++)
        local += (i % 7) * (rank + 1);
    long token = 0;
    for (int round = 0; round < 3; round++) {
        int next = (rank + 1) % size, previous = (rank + size - 1) % size;
        if (rank == 0) {
            token += local;
            MPI_Send(&token, 1, MPI_LONG, next, round, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, previous, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Status status;
            MPI_Recv(&token, 1, MPI_LONG, previous, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            token += local + status.MPI_TAG;
            MPI_Send(&token, 1, MPI_LONG, next, round, MPI_COMM_WORLD);
        }
    }
    long sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: token %ld, sum %ld over %d ranks\n", token, sum, size);
    MPI_Finalize();
    return 0;
}
