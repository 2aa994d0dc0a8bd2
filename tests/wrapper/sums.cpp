#include <cstdio>
#include <numeric>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

int main()
{
    std::vector<long> values(1000);
    std::iota(values.begin(), values.end(), 1L);
    long total = 0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : total)
#endif
    for (std::size_t i = 0; i < values.size(); ++i)
        total += values[i];
    long squares = 0;
#ifdef USE_SQUARES
#pragma omp parallel for reduction(+ : squares)
#endif
    for (std::size_t i = 0; i < values.size(); ++i)
        squares += values[i] * values[i];
    std::printf("%ld %ld\n", total, squares);
    return 0;
}
