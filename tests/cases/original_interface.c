/* The original POMP interface: descriptors, renamed barrier events, the
 * proposal's own directives, and a task, which that interface cannot see. */
#include <omp.h>
#include <stdio.h>

int main(void) {
    int sum = 0;
#pragma omp inst init
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 8; i++)
        sum += i;
#pragma omp inst begin(report)
#pragma omp parallel sections
    {
#pragma omp section
        printf("first\n");
#pragma omp section
        printf("second\n");
    }
#pragma omp parallel
#pragma omp single
#pragma omp task
    sum++;
#ifdef _POMP
    printf("instrumented for the interface of %d\n", _POMP);
#endif
#pragma omp inst end(report)
#pragma omp inst finalize
    return sum == 29 ? 0 : 1;
}
