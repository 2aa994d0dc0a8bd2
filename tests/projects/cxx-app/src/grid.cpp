#include "particles.hpp"

template <typename T>
static T sum_of_squares(const std::vector<T> &values)
{
    T total = 0;
    const long n = static_cast<long>(values.size());
#pragma omp parallel for reduction(+ : total)
    for (long i = 0; i < n; ++i)
        total += values[i] * values[i];
    return total;
}

static long count_tasks(int depth)
{
    if (depth == 0)
        return 1;
    long left = 0, right = 0;
#pragma omp task shared(left)
    left = count_tasks(depth - 1);
#pragma omp task shared(right)
    right = count_tasks(depth - 1);
#pragma omp taskwait
    return left + right + 1;
}

long grid_checksum(int n)
{
    std::vector<long> cells(n);
    for (int i = 0; i < n; ++i)
        cells[i] = (i * 37) % 1000;
    long nodes = 0;
#pragma omp parallel
#pragma omp single
    nodes = count_tasks(8);
    return sum_of_squares(cells) + nodes;
}
