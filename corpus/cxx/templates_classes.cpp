// Directives in templates, class methods (inline and out of line),
// constructors and namespaces.
#include <cstdio>
#include <vector>

namespace numeric {
namespace detail {

template <typename T>
T parallel_sum(const std::vector<T> &items)
{
    T total = T();
#pragma omp parallel for reduction(+ : total)
    for (std::size_t i = 0; i < items.size(); ++i)
        total += items[i];
    return total;
}

} // namespace detail

class Histogram {
public:
    explicit Histogram(int bins) : counts_(bins, 0)
    {
#pragma omp parallel for
        for (int b = 0; b < bins; ++b)
            counts_[b] = 0;
    }

    void add_all(const std::vector<int> &samples)
    {
#pragma omp parallel for
        for (std::size_t i = 0; i < samples.size(); ++i) {
            int bin = samples[i] % static_cast<int>(counts_.size());
#pragma omp atomic
            counts_[bin]++;
        }
    }

    long total() const;
    long count(int bin) const { return counts_[bin]; }

private:
    std::vector<long> counts_;
};

long Histogram::total() const
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (std::size_t b = 0; b < counts_.size(); ++b)
        sum += counts_[b];
    return sum;
}

} // namespace numeric

template <int Factor>
struct Scaler {
    static long scaled_sum(int n)
    {
        long sum = 0;
#pragma omp parallel
        {
#pragma omp for reduction(+ : sum)
            for (int i = 0; i < n; ++i)
                sum += Factor * i;
        }
        return sum;
    }
};

int main()
{
    int failures = 0;
    std::vector<double> halves(64, 0.5);
    std::vector<long> ones(64, 1);
    double half_sum = numeric::detail::parallel_sum(halves);
    long one_sum = numeric::detail::parallel_sum(ones);
    std::printf("template sums: %.1f %ld\n", half_sum, one_sum);
    failures += half_sum != 32.0 || one_sum != 64;

    numeric::Histogram histogram(10);
    std::vector<int> samples(1000);
    for (int i = 0; i < 1000; ++i)
        samples[i] = i * 7;
    histogram.add_all(samples);
    std::printf("histogram total %ld, bin 3 %ld\n", histogram.total(), histogram.count(3));
    failures += histogram.total() != 1000 || histogram.count(3) != 100;

    long scaled = Scaler<3>::scaled_sum(100) + Scaler<1>::scaled_sum(100);
    std::printf("class template: %ld\n", scaled);
    failures += scaled != 4 * 4950;

    if (failures) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("templates_classes: ok\n");
    return 0;
}
