/* MPI and OpenMP together, with figures known from the arguments: each
 * rank's team sleeps (rank + 1) units in a parallel loop, so rank 0 works
 * least and the last rank most; then every rank passes a message of
 * `ints` integers around a ring, blocking (MPI_Sendrecv) and not
 * (MPI_Isend, MPI_Irecv and two MPI_Wait call sites), and all ranks sum
 * what they received (MPI_Allreduce) and meet at a barrier. Arguments:
 * the unit in milliseconds, the rounds, the integers per message. */
#include "nap.h"
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long unit_ms = argc > 1 ? atol(argv[1]) : 10;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    int ints = argc > 3 ? atoi(argv[3]) : 1000;
    int *out = calloc(ints, sizeof(int));
    int *in = calloc(ints, sizeof(int));
    int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    long received = 0;
    for (int round = 0; round < rounds; round++) {
        int threads = omp_get_max_threads();
#pragma omp parallel for schedule(static, 1)
        for (int i = 0; i < threads; i++) {
            nap_us((rank + 1) * unit_ms * 1000);
        }
        for (int i = 0; i < ints; i++) {
            out[i] = rank + round + i;
        }
        MPI_Sendrecv(out, ints, MPI_INT, next, 1, in, ints, MPI_INT, previous, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        received += in[0];
        MPI_Request requests[2];
        MPI_Irecv(in, ints, MPI_INT, next, 2, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(out, ints, MPI_INT, previous, 2, MPI_COMM_WORLD, &requests[1]);
        MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
        MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
        received += in[0];
    }
    long total = 0;
    MPI_Allreduce(&received, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks passed %ld\n", size, total);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
