// try/catch as the structured block of a parallel region and inside
// worksharing loops: an exception must be caught in the thread and the
// construct that threw it.
#include <cstdio>
#include <stdexcept>

static int checked_divide(int a, int b)
{
    if (b == 0)
        throw std::domain_error("division by zero");
    return a / b;
}

int main()
{
    int failures = 0;

    int caught_in_region = 0;
#pragma omp parallel reduction(+ : caught_in_region)
    try {
        checked_divide(1, 0);
    } catch (const std::domain_error &) {
        caught_in_region = 1;
    }
    std::printf("every thread caught its exception: %d\n", caught_in_region >= 1);
    failures += caught_in_region < 1;

    int caught_in_loop = 0;
    long quotients = 0;
#pragma omp parallel for reduction(+ : caught_in_loop, quotients)
    for (int i = 0; i < 100; ++i) {
        try {
            quotients += checked_divide(100, i % 10);
        } catch (const std::domain_error &error) {
            caught_in_loop += error.what()[0] == 'd';
        }
    }
    std::printf("loop: caught %d, quotients %ld\n", caught_in_loop, quotients);
    failures += caught_in_loop != 10 || quotients != 10L * (100 + 50 + 33 + 25 + 20 + 16 + 14 + 12 + 11);

    int single_caught = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            try {
                throw std::runtime_error("inside single");
            } catch (const std::runtime_error &) {
                single_caught++;
            }
        }
    }
    std::printf("single caught: %d\n", single_caught);
    failures += single_caught != 1;

    if (failures) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("exceptions: ok\n");
    return 0;
}
