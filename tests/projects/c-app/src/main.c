/* The driver: no directives of its own. */
#include <stdio.h>
#include "app.h"

unsigned lcg(unsigned x)
{
    return x * 1103515245u + 12345u;
}

int main(void)
{
    printf("stencil %ld\n", stencil_checksum(10000, 20));
    printf("fib %ld\n", task_fib(24));
    printf("histogram %ld\n", histogram_peak(100000, 17));
    printf("multiples %ld\n", count_multiples(30000, 7));
    return 0;
}
