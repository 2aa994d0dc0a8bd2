// C++ forms around directives: range-based for under parallel for, lambdas
// whose bodies hold directives, a lambda called from a parallel region, and
// a user region holding a lambda whose return leaves only the lambda.
#include <cstdio>
#include <numeric>
#include <vector>

int main()
{
    int failures = 0;
    std::vector<int> values(500);
    std::iota(values.begin(), values.end(), 1);

    long range_sum = 0;
#pragma omp parallel for reduction(+ : range_sum)
    for (int value : values)
        range_sum += value;
    std::printf("range-for sum: %ld\n", range_sum);
    failures += range_sum != 500L * 501 / 2;

    auto parallel_squares = [&values]() {
        long squares = 0;
#pragma omp parallel for reduction(+ : squares)
        for (std::size_t i = 0; i < values.size(); ++i)
            squares += static_cast<long>(values[i]) * values[i];
        return squares;
    };
    long squares = parallel_squares();
    std::printf("lambda with parallel for: %ld\n", squares);
    failures += squares != 500L * 501 * 1001 / 6;

    int calls = 0;
    auto count_once = [&calls]() {
#pragma omp single
        ++calls;
    };
#pragma omp parallel
    {
        count_once();
        count_once();
    }
    std::printf("lambda called in parallel: %d\n", calls);
    failures += calls != 2;

    std::vector<long> doubled(values.size());
#pragma omp parallel
    {
        auto twice = [](int v) { return 2L * v; };
#pragma omp for
        for (std::size_t i = 0; i < values.size(); ++i)
            doubled[i] = twice(values[i]);
    }
    long doubled_sum = std::accumulate(doubled.begin(), doubled.end(), 0L);
    std::printf("lambda inside parallel: %ld\n", doubled_sum);
    failures += doubled_sum != 2 * range_sum;

#pragma pomp inst begin(with_lambda)
    auto clamp = [](int v) {
        if (v > 10)
            return 10;
        return v;
    };
    int clamped = clamp(3) + clamp(30);
#pragma pomp inst end(with_lambda)
    std::printf("clamped: %d\n", clamped);
    failures += clamped != 13;

    if (failures) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("lambdas_ranges: ok\n");
    return 0;
}
