// The C++ attribute form of directives (OpenMP 5.1):
// [[omp::directive(...)]] and [[omp::sequence(...)]].
#include <cstdio>

int main()
{
    int failures = 0;
    long sum = 0;
    [[omp::directive(parallel for reduction(+ : sum))]]
    for (int i = 0; i < 100; ++i)
        sum += i;
    std::printf("attribute parallel for: %ld\n", sum);
    failures += sum != 4950;

    int singles = 0;
    [[omp::directive(parallel)]]
    {
        [[omp::directive(single)]]
        singles++;
    }
    std::printf("attribute parallel + single: %d\n", singles);
    failures += singles != 1;

    long critical_total = 0;
    [[omp::directive(parallel for)]]
    for (int i = 0; i < 50; ++i) {
        [[omp::directive(critical)]]
        critical_total += i;
    }
    std::printf("attribute critical: %ld\n", critical_total);
    failures += critical_total != 1225;

    if (failures) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("directives_attribute: ok\n");
    return 0;
}
