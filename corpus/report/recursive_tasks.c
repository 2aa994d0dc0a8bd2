/* Recursive tasks, tied and untied: fib(n) with a task per call down to a
 * cut-off, each level waiting for its two children; the untied tasks of
 * the top levels stay untied when instrumented with --pomp-keep-untied.
 * Arguments: n, cut-off. Prints fib(n) and the tasks made. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long tasks_made = 0;

static long fib(int n, int cutoff, int untied_levels)
{
    if (n < 2)
        return n;
    if (n < cutoff)
        return fib(n - 1, cutoff, 0) + fib(n - 2, cutoff, 0);
    long a = 0, b = 0;
    if (untied_levels > 0) {
#pragma omp task untied shared(a)
        a = fib(n - 1, cutoff, untied_levels - 1);
    } else {
#pragma omp task shared(a)
        a = fib(n - 1, cutoff, 0);
    }
#pragma omp task shared(b)
    b = fib(n - 2, cutoff, 0);
#pragma omp atomic
    tasks_made += 2;
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 18;
    int cutoff = argc > 2 ? atoi(argv[2]) : 10;
    long result = 0;
#pragma omp parallel
#pragma omp single
    result = fib(n, cutoff, 2);
    printf("fib %ld tasks %ld\n", result, tasks_made);
    return 0;
}
