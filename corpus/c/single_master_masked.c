/* single (with copyprivate, with nowait), master, masked with and without
 * filter, and parallel masked. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int failures = 0;

    int singles = 0, broadcast_mismatches = 0;
#pragma omp parallel reduction(+ : broadcast_mismatches)
    {
        int token;
#pragma omp single copyprivate(token)
        {
            token = 1234;
            singles++;
        }
        broadcast_mismatches += token != 1234;
    }
    printf("single copyprivate: ran %d, mismatches %d\n", singles, broadcast_mismatches);
    failures += singles != 1 || broadcast_mismatches != 0;

    int nowait_singles = 0;
#pragma omp parallel
    {
#pragma omp single nowait
        nowait_singles++;
#pragma omp barrier
    }
    printf("single nowait: ran %d\n", nowait_singles);
    failures += nowait_singles != 1;

    int master_runs = 0, masked_runs = 0, filtered_runs = 0, on_thread_zero = 1;
#pragma omp parallel
    {
#pragma omp master
        {
            master_runs++;
            on_thread_zero &= omp_get_thread_num() == 0;
        }
#pragma omp masked
        masked_runs++;
        /* Thread 1 exists only with two or more threads; the filter then
         * picks it, and otherwise no thread runs the block. */
#pragma omp masked filter(omp_get_num_threads() > 1 ? 1 : 0)
        filtered_runs++;
    }
    printf("master %d masked %d filtered %d on thread zero %d\n", master_runs, masked_runs,
           filtered_runs, on_thread_zero);
    failures += master_runs != 1 || masked_runs != 1 || filtered_runs != 1 || !on_thread_zero;

    int parallel_masked_runs = 0;
#pragma omp parallel masked
    {
        parallel_masked_runs++;
    }
    printf("parallel masked: ran %d\n", parallel_masked_runs);
    failures += parallel_masked_runs != 1;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("single_master_masked: ok\n");
    return 0;
}
