/* cancel and cancellation point in a parallel for. Cancellation is active
 * only with OMP_CANCELLATION=true, so what the program prints must not
 * depend on whether the loop was cut short: it searches for an element
 * and reports only what every run agrees on. */
#include <stdio.h>

#define N 10000

int main(void)
{
    static int values[N];
    for (int i = 0; i < N; i++)
        values[i] = (i * 7919) % N;
    const int wanted = 4321;

    int found_at = -1;
    /* parallel and for are written apart: gcc warns that a combined
     * parallel for is a nowait loop, which a cancelled loop must not be. */
#pragma omp parallel shared(found_at)
    {
#pragma omp for
        for (int i = 0; i < N; i++) {
            if (values[i] == wanted) {
#pragma omp atomic write
                found_at = i;
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
    }
    int correct = found_at >= 0 && values[found_at] == wanted;
    printf("found %d: %s\n", wanted, correct ? "yes" : "no");

    int cancelled_regions = 0;
#pragma omp parallel shared(cancelled_regions)
    {
#pragma omp single
        cancelled_regions++;
#pragma omp cancel parallel if (cancelled_regions > 100)
    }
    printf("regions: %d\n", cancelled_regions);

    if (!correct || cancelled_regions != 1) {
        printf("FAILED\n");
        return 1;
    }
    printf("cancel: ok\n");
    return 0;
}
