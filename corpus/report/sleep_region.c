/* A user region that sleeps a known time on the initial thread while the
 * other threads have nothing to do, then a parallel region so that the run
 * has a team. Argument: the nap in milliseconds. */
#include "nap.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 200;
#pragma pomp inst begin(nap)
    nap_us(ms * 1000);
#pragma pomp inst end(nap)
    int team = 0;
#pragma omp parallel
    {
#pragma omp atomic
        team++;
    }
    printf("team %d\n", team);
    return 0;
}
