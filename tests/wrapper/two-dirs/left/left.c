#include "config.h"
int left(void)
{
    int total = 0;
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < 10; i++)
        total += VALUE;
return total;
}
