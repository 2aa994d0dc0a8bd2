/* A parallel loop two calls below main (main -> solve -> sweep -> parallel
 * for), reached twice, and a parallel region forked by main itself. Built
 * with --regions=functions, every thread's call path runs from main down to
 * each region. Arguments: the loop's length, the sweeps. Prints a checksum
 * and whether every thread of the team counted itself. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double sweep(long n)
{
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < n; i++)
        sum += (double)(i % 7) / (i % 5 + 1);
    return sum;
}

static double solve(long n, int sweeps)
{
    double total = 0;
    for (int s = 0; s < sweeps; s++)
        total += sweep(n + s);
    return total;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int sweeps = argc > 2 ? atoi(argv[2]) : 2;
    double total = solve(n, sweeps);
    int counted = 0;
#pragma omp parallel
    {
#pragma omp atomic
        counted++;
    }
    printf("checksum %.3f team complete %d\n", total, counted == omp_get_max_threads());
    return 0;
}
