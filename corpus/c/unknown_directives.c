/* Directives pomp does not know -- a later specification's, a vendor's,
 * a typo -- are left as written (gcc ignores them with a warning) and the
 * rest of the file is measured. The code such a directive may apply to is
 * left alone: pomp cannot tell what it allows inside. */
#include <stdio.h>

#define N 64

int main(void)
{
    int failures = 0;
    long sum = 0;
    /* Between a loop directive and its loop: the loop stays the loop's. */
#pragma omp parallel for reduction(+ : sum)
#pragma omp flatten
    for (int i = 0; i < N; i++)
        sum += i;
    printf("unknown directive before a loop: %ld\n", sum);
    failures += sum != (long)N * (N - 1) / 2;

    /* Before a construct: that construct and what it holds are left alone. */
    int team = 0;
#pragma omp vendor_placement(spread)
#pragma omp parallel num_threads(2) reduction(+ : team)
    {
#pragma omp critical
        team += 1;
    }
    printf("unknown directive before a parallel region: %d\n", team > 0);
    failures += team < 1;

    /* Inside a measured region, with a clause of its own. */
    int count = 0;
#pragma omp parallel shared(count)
    {
#pragma omp single
        {
#pragma omp assume_coherent level(2)
            count += 10;
        }
#pragma omp atomic
        count++;
    }
    printf("unknown directive inside a region: %d\n", count > 10);
    failures += count <= 10;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("unknown_directives: ok\n");
    return 0;
}
