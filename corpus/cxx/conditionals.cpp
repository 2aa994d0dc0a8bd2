/* pomp-corpus: variants -DSIGNED_INDEX -DRANGE_LOOPS -DSIGNED_INDEX,-DRANGE_LOOPS */
// Preprocessor conditionals around directives in C++: guarded directives
// in methods and templates, a loop header whose index type a macro picks,
// a loop chosen by a macro after its directive, alternative directives in
// a namespace, and a linkage block that only C++ compiles.
#include <cstdio>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif
static long triangle(long n) { return n * (n + 1) / 2; }
#ifdef __cplusplus
}
#endif

namespace grid {

class Field {
public:
    explicit Field(std::size_t n) : values_(n)
    {
#ifdef _OPENMP
#pragma omp parallel for
#endif
#ifdef SIGNED_INDEX
        for (long i = 0; i < static_cast<long>(values_.size()); ++i) {
#else
        for (std::size_t i = 0; i < values_.size(); ++i) {
#endif
            values_[i] = static_cast<long>(i % 11);
        }
    }

    long total() const
    {
        long sum = 0;
#pragma omp parallel for reduction(+ : sum)
#ifdef RANGE_LOOPS
        for (long v : values_)
            sum += v;
#else
        for (std::size_t i = 0; i < values_.size(); ++i)
            sum += values_[i];
#endif
        return sum;
    }

    template <typename F>
    long count_if(F predicate) const
    {
        long count = 0;
#if defined(SIGNED_INDEX)
#pragma omp parallel for reduction(+ : count) schedule(static, 4)
#else
#pragma omp parallel for reduction(+ : count) schedule(guided)
#endif
        for (std::size_t i = 0; i < values_.size(); ++i)
            count += predicate(values_[i]) ? 1 : 0;
        return count;
    }

private:
    std::vector<long> values_;
};

} // namespace grid

static int check(const char *what, long got, long expected)
{
    std::printf("%-30s %ld\n", what, got);
    if (got != expected) {
        std::printf("FAILED: %s: expected %ld\n", what, expected);
        return 1;
    }
    return 0;
}

int main()
{
    grid::Field field(1100);
    int failures = 0;
    failures += check("guarded split header", field.total(), 100 * triangle(10));
    failures += check("alternative directives", field.count_if([](long v) { return v > 5; }), 500);
    return failures;
}
