/* Task-creation benchmark: in one parallel region every thread creates
 * TASKS_PER_THREAD tasks, each of which increments a shared counter.
 * Prints the time of the parallel region. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long tasks_per_thread = argc > 1 ? atol(argv[1]) : 100000;
    long counter = 0;
    double start = omp_get_wtime();
#pragma omp parallel shared(counter)
    {
        for (long i = 0; i < tasks_per_thread; i++) {
#pragma omp task shared(counter)
            {
#pragma omp atomic
                counter++;
            }
        }
    }
    double seconds = omp_get_wtime() - start;
    long expected = tasks_per_thread * omp_get_max_threads();
    printf("seconds=%.6f counter=%ld expected=%ld\n", seconds, counter, expected);
    return counter == expected ? 0 : 1;
}
