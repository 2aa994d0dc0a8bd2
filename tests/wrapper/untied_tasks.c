#include <stdio.h>
int main(void)
{
    int n = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task untied
            n++;
#pragma omp task untied
            n++;
#pragma omp task untied
            n++;
#pragma omp task untied
            n++;
#pragma omp task untied
            n++;
#pragma omp taskwait
    }
printf("%d\n", n);
    return 0;
}
