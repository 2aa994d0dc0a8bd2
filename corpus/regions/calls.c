/* pomp-corpus: regions mpi,loops,functions */
/* Call sites as regions, with a small MPI-like library defined here:
 * a call as a statement, as the value assigned and as the value a
 * declaration initialises (whose name stays in scope), the body of an
 * unbraced if, calls in a loop and in OpenMP constructs, and calls in
 * conditions and arguments, which are left as written. */
#include <stdio.h>
#include <omp.h>

typedef int MPI_Comm;
#define MPI_COMM_WORLD 0

static int sent, barriers;

int MPI_Send(const void *buffer, int count, MPI_Comm comm) {
    (void)buffer;
    (void)comm;
#pragma omp atomic
    sent += count;
    return 0;
}

int MPI_Barrier(MPI_Comm comm) {
    (void)comm;
#pragma omp atomic
    barriers++;
    return 0;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    (void)comm;
    *rank = 0;
    return 0;
}

static int exchange(int steps) {
    int data[4] = {1, 2, 3, 4};
    int rc = 0;
    for (int s = 0; s < steps; s++) {
        MPI_Send(data, 4, MPI_COMM_WORLD);
        rc = MPI_Barrier(MPI_COMM_WORLD);
    }
    if (steps > 1)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        rc = MPI_Send(data, 1, MPI_COMM_WORLD);
    return rc;
}

int main(void) {
    int rank;
    int rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d rc %d\n", rank, rc);
    printf("exchange %d\n", exchange(3));
    if (MPI_Barrier(MPI_COMM_WORLD) != 0)
        return 1;
#pragma omp parallel num_threads(2)
    {
        MPI_Send(&rank, 1, MPI_COMM_WORLD);
#pragma omp single
        MPI_Barrier(MPI_COMM_WORLD);
#pragma omp critical(comm)
        MPI_Send(&rank, 2, MPI_COMM_WORLD);
    }
    printf("sent %d barriers %d\n", sent, barriers);
    return 0;
}
