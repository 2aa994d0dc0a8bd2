/* Task-recursive kernel: Fibonacci numbers with a task per call down to a
 * cut-off, below which calls run serially, as task-parallel codes do.
 * usage: fib [n] [cutoff] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib(int n, int cutoff) {
    if (n < cutoff) return fib_serial(n);
    long x, y;
#pragma omp task shared(x)
    x = fib(n - 1, cutoff);
#pragma omp task shared(y)
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 38;
    int cutoff = argc > 2 ? atoi(argv[2]) : 20;
    long result = 0;
    double start = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    result = fib(n, cutoff);
    double seconds = omp_get_wtime() - start;
    printf("seconds=%.6f fib=%ld\n", seconds, result);
    return 0;
}
