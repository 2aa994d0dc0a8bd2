// A one-dimensional halo exchange on a Cartesian communicator: each rank
// owns a block of cells, swaps its edge cells with its neighbours with
// non-blocking sends and receives, and updates its cells with its threads.
#include <mpi.h>
#include <cstdio>
#include <vector>

namespace {

const int cells = 4096;
const long modulus = 1000003;

void exchange(MPI_Comm line, std::vector<long> &u)
{
    int left, right;
    MPI_Cart_shift(line, 0, 1, &left, &right);
    MPI_Request requests[4];
    MPI_Irecv(&u[0], 1, MPI_LONG, left, 1, line, &requests[0]);
    MPI_Irecv(&u[cells + 1], 1, MPI_LONG, right, 2, line, &requests[1]);
    MPI_Isend(&u[1], 1, MPI_LONG, left, 2, line, &requests[2]);
    MPI_Isend(&u[cells], 1, MPI_LONG, right, 1, line, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
}

void relax(std::vector<long> &u, std::vector<long> &next)
{
#pragma omp parallel for
    for (int i = 1; i <= cells; i++)
        next[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) % modulus;
    u.swap(next);
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[1] = {size}, periods[1] = {0};
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &rank);
    std::vector<long> u(cells + 2, 0), next(cells + 2, 0);
    for (int i = 1; i <= cells; i++)
        u[i] = (rank * cells + i) % 97;
    for (int step = 0; step < 20; step++) {
        exchange(line, u);
        relax(u, next);
    }
    long local = 0, total = 0;
#pragma omp parallel for reduction(+ : local)
    for (int i = 1; i <= cells; i++)
        local = (local + u[i]) % modulus;
    MPI_Reduce(&local, &total, 1, MPI_LONG, MPI_SUM, 0, line);
    if (rank == 0)
        std::printf("halo: checksum %ld\n", total % modulus);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
