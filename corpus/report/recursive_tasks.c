/* Recursive tasks, tied and untied: fib(n) with a task per call down to a
 * cut-off, each level waiting for its two children; the tasks of the top
 * levels are untied, and stay so when instrumented with
 * --pomp-keep-untied. Arguments: n, cut-off. Prints fib(n) and the tasks
 * made. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long tasks_made = 0;

static long fib(int n, int cutoff)
{
    if (n < 2)
        return n;
    if (n < cutoff)
        return fib(n - 1, cutoff) + fib(n - 2, cutoff);
    long a = 0, b = 0;
#pragma omp task shared(a)
    a = fib(n - 1, cutoff);
#pragma omp task shared(b)
    b = fib(n - 2, cutoff);
#pragma omp atomic
    tasks_made += 2;
#pragma omp taskwait
    return a + b;
}

/* The top `levels` levels, in untied tasks. */
static long fib_untied(int n, int cutoff, int levels)
{
    if (levels == 0 || n < cutoff)
        return fib(n, cutoff);
    long a = 0, b = 0;
#pragma omp task untied shared(a)
    a = fib_untied(n - 1, cutoff, levels - 1);
#pragma omp task untied shared(b)
    b = fib_untied(n - 2, cutoff, levels - 1);
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
    result = fib_untied(n, cutoff, 2);
    printf("fib %ld tasks %ld\n", result, tasks_made);
    return 0;
}
