#include "app.h"

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib(int n)
{
    long x, y;
    if (n < 15)
        return fib_serial(n);
#pragma omp task shared(x)
    x = fib(n - 1);
#pragma omp task shared(y)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

long task_fib(int n)
{
    long result = 0;
#pragma omp parallel
    {
#pragma omp single
        result = fib(n);
    }
    return result;
}

long count_multiples(int n, int k)
{
    long count = 0;
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        if (i % k == 0) {
#pragma omp critical(counter)
            count++;
        }
    }
    return count;
}
