/* What an MPI call costs, timed over `iterations` calls after a tenth as
 * many to warm up, printed by rank 0 in nanoseconds per call:
 *   pingpong   8-byte messages between ranks 0 and 1, MPI_Send and MPI_Recv
 *   allreduce  MPI_Allreduce of one double over every rank
 *   self       each rank alone: MPI_Isend, MPI_Recv and MPI_Wait of 8 bytes
 *              to itself on MPI_COMM_SELF, three calls that wait for no
 *              other process
 *
 * usage: call_costs [iterations] [pingpong|allreduce|self|all] */
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

static double self(int iterations)
{
    double out = 1.0, in = 0.0;
    MPI_Request request;
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; i++) {
        MPI_Isend(&out, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF, &request);
        MPI_Recv(&in, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - start) * 1e9 / iterations / 3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 100000;
    const char *which = argc > 2 ? argv[2] : "all";
    int all = strcmp(which, "all") == 0;
    if ((all && size > 1) || strcmp(which, "pingpong") == 0) {
        pingpong(rank, iterations / 10);
        double ns = pingpong(rank, iterations);
        if (rank == 0)
            printf("pingpong_ns=%.1f\n", ns);
    }
    if (all || strcmp(which, "allreduce") == 0) {
        allreduce(iterations / 10);
        double ns = allreduce(iterations);
        if (rank == 0)
            printf("allreduce_ns=%.1f\n", ns);
    }
    if (all || strcmp(which, "self") == 0) {
        self(iterations / 10);
        double ns = self(iterations);
        if (rank == 0)
            printf("self_ns=%.1f\n", ns);
    }
    MPI_Finalize();
    return 0;
}
