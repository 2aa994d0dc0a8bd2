/* Every collective operation, on MPI_COMM_WORLD and on communicators made
 * from it (a duplicate, and the even and odd ranks split apart), with
 * what each rank contributes computed by its threads. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long work(int rank, int n)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++)
        sum += (i * (rank + 3)) % 11;
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = work(rank, 100000), check = 0;

    long seed = rank == 0 ? 12345 : 0;
    MPI_Bcast(&seed, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    check += seed;

    long *parts = malloc(sizeof(long) * (size_t)size * 4);
    long *gathered = malloc(sizeof(long) * (size_t)size * 4);
    int *counts = malloc(sizeof(int) * (size_t)size);
    int *pairs = malloc(sizeof(int) * (size_t)size);
    int *displs = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size * 4; i++)
        parts[i] = mine + i;
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + i % 3;
        /* What this rank and rank i send each other. */
        pairs[i] = 1 + (rank + i) % 3;
        displs[i] = 4 * i;
    }

    long piece = 0;
    MPI_Scatter(parts, 1, MPI_LONG, &piece, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    check += piece;
    MPI_Gather(&mine, 1, MPI_LONG, gathered, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < size; i++)
            check += gathered[i];
    MPI_Gatherv(parts, counts[rank], MPI_LONG, gathered, counts, displs, MPI_LONG, 1 % size,
                MPI_COMM_WORLD);
    if (rank == 1 % size)
        for (int i = 0; i < size; i++)
            check += gathered[displs[i]];
    long several[4] = {0, 0, 0, 0};
    MPI_Scatterv(parts, counts, displs, MPI_LONG, several, counts[rank], MPI_LONG, 0,
                 MPI_COMM_WORLD);
    check += several[0];
    MPI_Allgather(&mine, 1, MPI_LONG, gathered, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        check += gathered[i] % 5;
    MPI_Allgatherv(parts, counts[rank], MPI_LONG, gathered, counts, displs, MPI_LONG,
                   MPI_COMM_WORLD);
    check += gathered[displs[size - 1]] % 7;
    MPI_Alltoall(parts, 1, MPI_LONG, gathered, 1, MPI_LONG, MPI_COMM_WORLD);
    check += gathered[0] % 13;
    MPI_Alltoallv(parts, pairs, displs, MPI_LONG, gathered, pairs, displs, MPI_LONG,
                  MPI_COMM_WORLD);
    check += gathered[displs[size - 1]] % 17;

    long total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    check += total;
    long everywhere = mine;
    MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    check += everywhere;
    int *blocks = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        blocks[i] = 2;
    long scattered[2] = {0, 0};
    MPI_Reduce_scatter(parts, scattered, blocks, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    check += scattered[1] % 19;
    MPI_Reduce_scatter_block(parts, scattered, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    check += scattered[0] % 23;
    long prefix = 0, before = 0;
    MPI_Scan(&mine, &prefix, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&mine, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    check += (prefix - (rank == 0 ? 0 : before)) % 29;

    MPI_Comm copy, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    MPI_Comm_split(copy, rank % 2, -rank, &half);
    long halves = 0;
    MPI_Allreduce(&mine, &halves, 1, MPI_LONG, MPI_SUM, half);
    int half_rank;
    MPI_Comm_rank(half, &half_rank);
    MPI_Bcast(&halves, 1, MPI_LONG, 0, half);
    check += halves % 31 + half_rank;
    MPI_Barrier(copy);
    MPI_Comm_free(&half);
    MPI_Comm_free(&copy);

    long all = 0;
    MPI_Reduce(&check, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("collectives: %ld\n", all);
    free(parts);
    free(gathered);
    free(counts);
    free(pairs);
    free(displs);
    free(blocks);
    MPI_Finalize();
    return 0;
}
