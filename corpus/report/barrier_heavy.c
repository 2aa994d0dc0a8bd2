/* Many barriers, and before each only the first thread works a little:
 * every other thread spends the round waiting, so synchronisation
 * dominates the parallel region. Arguments: rounds, work per round in
 * microseconds. */
#include "nap.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 500;
    long work_us = argc > 2 ? atol(argv[2]) : 200;
    int passed = 0;
#pragma omp parallel
    {
        for (int round = 0; round < rounds; round++) {
            if (omp_get_thread_num() == 0) {
                nap_us(work_us);
                passed++;
            }
#pragma omp barrier
        }
    }
    printf("rounds %d\n", passed);
    return 0;
}
