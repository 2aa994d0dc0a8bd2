/* Regions where inserted code may call nothing: simd loops (with an atomic
 * inside, allowed since OpenMP 5.0), loop regions and worksharing loops
 * with order(concurrent), which may hold parallel regions but call no
 * OpenMP runtime routine, such as the omp_get_max_threads() that measuring
 * a parallel region evaluates. pomp measures the enclosing constructs and
 * leaves what is inside alone. */
#include <stdio.h>

#define N 64

int main(void)
{
    int total = 0, hits = 0;
#pragma omp parallel for simd reduction(+ : total)
    for (int i = 0; i < N; i++) {
        total += i;
#pragma omp atomic
        hits++;
    }
    printf("simd %d %d\n", total, hits);

    total = 0;
#pragma omp parallel for order(concurrent) reduction(+ : total)
    for (int i = 1; i <= 4; i++) {
#pragma omp parallel shared(total)
        {
#pragma omp single
            total += i;
        }
    }
    printf("order(concurrent) %d\n", total);

    total = 0;
#pragma omp parallel
    {
#pragma omp loop reduction(+ : total)
        for (int i = 1; i <= 4; i++) {
#pragma omp parallel shared(total)
            {
#pragma omp single
                total += 2 * i;
            }
        }
    }
    printf("loop %d\n", total);

    total = 0;
#pragma omp parallel loop reduction(+ : total)
    for (int i = 1; i <= 4; i++) {
#pragma omp simd reduction(+ : total)
        for (int j = 0; j < 8; j++)
            total += i;
    }
    printf("parallel loop %d\n", total);
    return 0;
}
