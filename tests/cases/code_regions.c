/* Loops and calls as regions: a loop after a loop pragma is left alone,
 * calls in conditions and arguments are counted in one note, a call
 * declaring a name keeps it in scope; a call and a loop in a function
 * without directives name the function they are in. */
int MPI_Barrier(int comm);
int MPI_Send(const void *buffer, int count, int comm);

int exchange(int *data, int n)
{
#pragma GCC unroll 2
    for (int i = 0; i < n; i++)
        data[i] *= 2;
    int rc = MPI_Barrier(0);
    if (MPI_Barrier(0) != 0)
        return MPI_Send(data, n, 0);
    while (rc < 3)
        rc = MPI_Send(data, MPI_Barrier(0), 0);
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        MPI_Send(&data[i], 1, 0);
    return rc;
}

static void finish(int *data)
{
    for (int i = 0; i < 2; i++)
        MPI_Send(&data[i], 1, 0);
}
