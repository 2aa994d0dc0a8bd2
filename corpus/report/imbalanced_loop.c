/* A deliberately imbalanced loop: iteration i sleeps (i + 1) units. With
 * schedule(static, 1) and as many iterations as threads, thread i works
 * i + 1 units, so the loop's imbalance (max - mean) / max is
 * (n - 1) / (2n). Arguments: the unit in milliseconds, the iterations. */
#include "nap.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long unit_ms = argc > 1 ? atol(argv[1]) : 30;
    int iterations = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
    long slept = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : slept)
    for (int i = 0; i < iterations; i++) {
        nap_us((i + 1) * unit_ms * 1000);
        slept += (i + 1) * unit_ms;
    }
    printf("slept %ld ms in %d iterations\n", slept, iterations);
    return 0;
}
