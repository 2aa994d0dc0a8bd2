/* Nested parallelism and locks: an outer team of two whose threads each
 * fork an inner team, whose threads take an OpenMP lock, a nestable lock
 * and a critical section a known number of times. Arguments: rounds.
 * Prints the counts, which the lock and the critical section make exact. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long locked = 0, nested = 0, critical = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest_lock;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest_lock);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        {
            for (int i = 0; i < rounds; i++) {
                omp_set_lock(&lock);
                locked++;
                omp_unset_lock(&lock);
                omp_set_nest_lock(&nest_lock);
                omp_set_nest_lock(&nest_lock);
                nested++;
                omp_unset_nest_lock(&nest_lock);
                omp_unset_nest_lock(&nest_lock);
#pragma omp critical(count)
                critical++;
            }
        }
#pragma omp barrier
    }
    omp_destroy_nest_lock(&nest_lock);
    omp_destroy_lock(&lock);
    printf("locked %ld nested %ld critical %ld\n", locked, nested, critical);
    return 0;
}
