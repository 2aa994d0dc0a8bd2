/* A plain OpenMP program; workload.opari.c and workload.c.opari.inc are
 * what OPARI2 2.0.7 made of it (opari2 workload.c workload.opari.c). */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    long sum = 0;
    int critical_hits = 0, tasks_done = 0, lock_hits = 0, sections_done = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel reduction(+:sum)
    {
#pragma omp for
        for (int i = 0; i < 1000; i++) sum += i;
#pragma omp critical
        critical_hits++;
#pragma omp sections
        {
#pragma omp section
            {
#pragma omp atomic
                sections_done++;
            }
#pragma omp section
            {
#pragma omp atomic
                sections_done++;
            }
        }
#pragma omp single
        {
            for (int t = 0; t < 8; t++) {
#pragma omp task
                {
                    usleep(1000);
#pragma omp atomic
                    tasks_done++;
                }
            }
#pragma omp taskwait
        }
        omp_set_lock(&lock);
        lock_hits++;
        omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp master
        printf("team=%d\n", omp_get_num_threads());
    }
    omp_destroy_lock(&lock);
    printf("sum=%ld critical=%d sections=%d tasks=%d locks=%d\n", sum, critical_hits,
           sections_done, tasks_done, lock_hits);
    return 0;
}
