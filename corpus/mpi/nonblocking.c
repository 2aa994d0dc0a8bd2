/* Non-blocking point-to-point with every way of completing it: a test
 * loop with work between the tests, waits for any and for some, a test of
 * all, a synchronous send, a request freed, and a receive cancelled. */
#include <mpi.h>
#include <stdio.h>

static long work(long from)
{
    long sum = from;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 20000; i++)
        sum += i % 3;
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long out = rank * 100, in = -1, check = 0;

    /* A receive tested until it completes, with work in between. Its
     * first test comes before any rank sends, so at least one test finds
     * it still pending, however fast the message travels. */
    MPI_Request receive, send;
    MPI_Irecv(&in, 1, MPI_LONG, left, 7, MPI_COMM_WORLD, &receive);
    int done = 0;
    MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&out, 1, MPI_LONG, right, 7, MPI_COMM_WORLD, &send);
    long busy = 0;
    while (!done) {
        busy = work(busy) % 1000;
        MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    check += in;

    /* Two receives, completed in whichever order they arrive. */
    long pair[2] = {-1, -1}, mine[2] = {rank + 1, rank + 2};
    MPI_Request pending[4];
    MPI_Irecv(&pair[0], 1, MPI_LONG, left, 8, MPI_COMM_WORLD, &pending[0]);
    MPI_Irecv(&pair[1], 1, MPI_LONG, right, 9, MPI_COMM_WORLD, &pending[1]);
    MPI_Issend(&mine[0], 1, MPI_LONG, right, 8, MPI_COMM_WORLD, &pending[2]);
    MPI_Isend(&mine[1], 1, MPI_LONG, left, 9, MPI_COMM_WORLD, &pending[3]);
    int index;
    MPI_Status status;
    MPI_Waitany(2, pending, &index, &status);
    check += status.MPI_TAG == 8 || status.MPI_TAG == 9;
    int outcount, indices[4];
    MPI_Status statuses[4];
    MPI_Waitsome(2, pending, &outcount, indices, statuses);
    int all = 0;
    while (!all)
        MPI_Testall(2, &pending[2], &all, MPI_STATUSES_IGNORE);
    check += pair[0] + pair[1];

    /* A send whose request is freed; the barrier after the matching
     * receive says it completed. */
    long freed = rank * 3;
    MPI_Request forgotten;
    MPI_Isend(&freed, 1, MPI_LONG, right, 10, MPI_COMM_WORLD, &forgotten);
    MPI_Request_free(&forgotten);
    long got = 0;
    MPI_Recv(&got, 1, MPI_LONG, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check += got;

    /* A receive no one sends to, cancelled. */
    long never = 0;
    MPI_Request cancelled;
    MPI_Irecv(&never, 1, MPI_LONG, left, 99, MPI_COMM_WORLD, &cancelled);
    MPI_Cancel(&cancelled);
    MPI_Wait(&cancelled, &status);
    int was_cancelled = 0;
    MPI_Test_cancelled(&status, &was_cancelled);
    check += was_cancelled;
    MPI_Barrier(MPI_COMM_WORLD);

    long total = 0;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nonblocking: %ld\n", total);
    MPI_Finalize();
    return 0;
}
