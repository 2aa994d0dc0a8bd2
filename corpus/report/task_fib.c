/* Task-recursive Fibonacci: a task per call down to a cut-off, each call
 * waiting for its two children in a taskwait; one thread starts it in a
 * single construct and the team runs the tasks, at the single's barrier and
 * inside their taskwaits. Arguments: n, cut-off. Prints fib(n). */
#include <stdio.h>
#include <stdlib.h>

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
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 25;
    int cutoff = argc > 2 ? atoi(argv[2]) : 8;
    long result = 0;
#pragma omp parallel
#pragma omp single
    result = fib(n, cutoff);
    printf("fib %ld\n", result);
    return 0;
}
