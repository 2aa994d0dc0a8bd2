/* Known task counts: one thread creates `outer` tasks, each of which
 * creates `inner` tasks that sleep briefly and waits for them. Arguments:
 * outer, inner, sleep per inner task in microseconds. */
#include "nap.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int outer = argc > 1 ? atoi(argv[1]) : 40;
    int inner = argc > 2 ? atoi(argv[2]) : 3;
    long sleep_us = argc > 3 ? atol(argv[3]) : 50;
    long done = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < outer; i++) {
#pragma omp task shared(done)
            {
                for (int j = 0; j < inner; j++) {
#pragma omp task shared(done)
                    {
                        nap_us(sleep_us);
#pragma omp atomic
                        done++;
                    }
                }
#pragma omp taskwait
            }
        }
    }
    printf("tasks %ld\n", done);
    return 0;
}
