/* Nested parallel regions, and orphaned directives: for, barrier, single
 * and critical in functions that are called from inside a parallel region
 * (and once from outside any). Also barrier and flush, and control flow
 * that leaves loops early without leaving a construct. */
#include <omp.h>
#include <stdio.h>

#define N 120

static int table[N];

static long orphaned_fill_and_sum(void)
{
    static long total;
#pragma omp single
    total = 0;
#pragma omp for
    for (int i = 0; i < N; i++)
        table[i] = i + 1;
#pragma omp barrier
    long mine = 0;
#pragma omp for nowait
    for (int i = 0; i < N; i++)
        mine += table[i];
#pragma omp critical(orphan_total)
    total += mine;
#pragma omp barrier
    return total;
}

static int first_negative(const int *values, int n)
{
    /* break and continue stay inside the loop body: no construct is left. */
    int index = -1;
    for (int i = 0; i < n; i++) {
        if (values[i] >= 0)
            continue;
        index = i;
        break;
    }
    return index;
}

int main(void)
{
    int failures = 0;
    const long expected = (long)N * (N + 1) / 2;

    int wrong_totals = 0;
#pragma omp parallel reduction(+ : wrong_totals)
    wrong_totals += orphaned_fill_and_sum() != expected;
    printf("orphaned in parallel: wrong totals %d\n", wrong_totals);
    failures += wrong_totals != 0;

    long alone = orphaned_fill_and_sum();
    printf("orphaned outside parallel: %ld\n", alone);
    failures += alone != expected;

    omp_set_max_active_levels(2);
    long inner_iterations = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner_iterations)
    {
        long mine = 0;
#pragma omp parallel num_threads(2) reduction(+ : mine)
        {
#pragma omp for
            for (int i = 0; i < 10; i++)
                mine++;
        }
        inner_iterations += mine == 10;
    }
    int outer_threads = 0;
#pragma omp parallel num_threads(2)
#pragma omp atomic
    outer_threads++;
    printf("nested: every inner team did all its work: %d\n",
           inner_iterations == outer_threads);
    failures += inner_iterations != outer_threads;

    /* flush: a producer publishes data, then a flag; the consumer waits. */
    int data = 0, ready = 0, received = -1;
#pragma omp parallel num_threads(2) shared(data, ready, received)
    {
        if (omp_get_num_threads() == 1) {
            data = 99;
            received = data;
        } else if (omp_get_thread_num() == 0) {
            data = 99;
#pragma omp flush
#pragma omp atomic write
            ready = 1;
#pragma omp flush(ready)
        } else {
            int seen = 0;
            while (!seen) {
#pragma omp flush(ready)
#pragma omp atomic read
                seen = ready;
            }
#pragma omp flush
            received = data;
        }
#pragma omp barrier
    }
    printf("flush handshake: %d\n", received);
    failures += received != 99;

    int values[] = {3, 1, 4, -1, 5, -9};
    int negative_at = -2;
#pragma omp parallel shared(negative_at)
    {
#pragma omp single
        negative_at = first_negative(values, 6);
    }
    printf("first negative at %d\n", negative_at);
    failures += negative_at != 3;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("nested_orphaned: ok\n");
    return 0;
}
