/* Fibonacci numbers by recursive tasks with taskwait, and a cutoff below
 * which the recursion runs without creating tasks. */
#include <stdio.h>

#define CUTOFF 12

static long fib_sequential(int n) { return n < 2 ? n : fib_sequential(n - 1) + fib_sequential(n - 2); }

static long tasks_created = 0;

static long fib(int n)
{
    if (n < CUTOFF)
        return fib_sequential(n);
    long x, y;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n) if (n > CUTOFF + 2)
    y = fib(n - 2);
#pragma omp atomic
    tasks_created += 2;
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    const int n = 27;
    long result = 0;
#pragma omp parallel
#pragma omp single
    result = fib(n);
    long expected = fib_sequential(n);
    /* Tasks are created at every node at or above the cutoff: a count that
     * only depends on n and the cutoff. */
    printf("fib(%d) = %ld, tasks %ld\n", n, result, tasks_created);
    if (result != expected) {
        printf("FAILED: expected %ld\n", expected);
        return 1;
    }
    printf("fib_tasks: ok\n");
    return 0;
}
