/* What an MPI call costs: a ping-pong of 8-byte messages between ranks 0
 * and 1 (MPI_Send and MPI_Recv) and an MPI_Allreduce of one double over
 * every rank, each timed over `iterations` calls after a warm-up. Rank 0
 * prints nanoseconds per call of each: `pingpong_ns=... allreduce_ns=...`.
 *
 * usage: mpi_calls [iterations] [pingpong|allreduce|both] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pingpong(int rank, int iterations)
{
    double message = 1.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; i++) {
        if (rank == 0) {
            MPI_Send(&message, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&message, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&message, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&message, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    /* Two calls per iteration on each of the two ranks. */
    return (MPI_Wtime() - start) * 1e9 / iterations / 2;
}

static double allreduce(int iterations)
{
    double mine = 1.0, sum = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; i++)
        MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return (MPI_Wtime() - start) * 1e9 / iterations;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iterations = argc > 1 ? atoi(argv[1]) : 100000;
    const char *which = argc > 2 ? argv[2] : "both";
    int both = strcmp(which, "both") == 0;
    double pingpong_ns = 0, allreduce_ns = 0;
    if (both || strcmp(which, "pingpong") == 0) {
        pingpong(rank, iterations / 10);
        pingpong_ns = pingpong(rank, iterations);
    }
    if (both || strcmp(which, "allreduce") == 0) {
        allreduce(iterations / 10);
        allreduce_ns = allreduce(iterations);
    }
    if (rank == 0)
        printf("pingpong_ns=%.1f allreduce_ns=%.1f\n", pingpong_ns, allreduce_ns);
    MPI_Finalize();
    return 0;
}
