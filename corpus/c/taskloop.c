/* taskloop with grainsize and num_tasks, nogroup with taskwait, and
 * taskloop simd. */
#include <stdio.h>

#define N 500

int main(void)
{
    int failures = 0;
    static int hits[N];
    long by_grain = 0, by_tasks = 0, simd_sum = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp taskloop grainsize(16)
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                hits[i]++;
            }
#pragma omp taskloop num_tasks(7) reduction(+ : by_tasks)
            for (int i = 0; i < N; i++)
                by_tasks += i;
#pragma omp taskloop nogroup shared(by_grain)
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                by_grain += 2 * i;
            }
#pragma omp taskwait
#pragma omp taskloop simd reduction(+ : simd_sum)
            for (int i = 0; i < N; i++)
                simd_sum += 1;
        }
    }
    int once = 1;
    for (int i = 0; i < N; i++)
        once &= hits[i] == 1;
    printf("taskloop grainsize: every iteration once %d\n", once);
    printf("taskloop num_tasks sum %ld, nogroup sum %ld, simd count %ld\n", by_tasks, by_grain,
           simd_sum);
    failures += !once || by_tasks != (long)N * (N - 1) / 2 || by_grain != 2 * by_tasks ||
                simd_sum != N;
    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("taskloop: ok\n");
    return 0;
}
