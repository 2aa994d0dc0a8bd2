/* Programs whose overhead classes are known, by the first argument:
 *   serial      the team sleeps 1 unit, the initial thread 8 alone, the
 *               team 1 again: loss of parallelism (idle while serial code
 *               runs) is most of the thread time (the run, as measured,
 *               begins at the first event);
 *   imbalanced  a loop whose last iteration sleeps 8 units and every other
 *               one none, one iteration per thread: synchronisation
 *               (the loop's implicit barrier) is most of it;
 *   critical    the team takes 4 units per thread, one at a time, each
 *               taken and slept inside one critical section: all but one
 *               thread wait to enter until the last unit is taken, so
 *               synchronisation (critical) is most of it, however unfair
 *               the lock (a thread that ran its share first would wait at
 *               the barrier instead);
 *   tasks       one thread creates 8 tasks per thread that sleep 1 unit
 *               each and waits for them at taskwait: every thread runs
 *               tasks, so work is most of it.
 * The second argument is the unit in milliseconds. */
#include "nap.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "serial";
    long unit_us = (argc > 2 ? atol(argv[2]) : 20) * 1000;
    long done = 0;
    if (strcmp(what, "serial") == 0) {
        for (int phase = 0; phase < 2; phase++) {
#pragma omp parallel reduction(+ : done)
            {
                nap_us(unit_us);
                done++;
            }
            if (phase == 0)
                nap_us(8 * unit_us);
        }
    } else if (strcmp(what, "imbalanced") == 0) {
        int n = omp_get_max_threads();
#pragma omp parallel for schedule(static, 1) reduction(+ : done)
        for (int i = 0; i < n; i++) {
            if (i == n - 1)
                nap_us(8 * unit_us);
            done++;
        }
    } else if (strcmp(what, "critical") == 0) {
        int units = 4 * omp_get_max_threads(), taken = 0;
#pragma omp parallel reduction(+ : done)
        for (;;) {
            int mine = 0;
#pragma omp critical
            if (taken < units) {
                taken++;
                mine = 1;
                nap_us(unit_us);
            }
            if (!mine)
                break;
            done++;
        }
    } else if (strcmp(what, "tasks") == 0) {
        int tasks = 8 * omp_get_max_threads();
#pragma omp parallel
#pragma omp single
        {
            for (int i = 0; i < tasks; i++) {
#pragma omp task
                nap_us(unit_us);
            }
#pragma omp taskwait
            done = tasks;
        }
    } else {
        fprintf(stderr, "known_classes: serial, imbalanced, critical or tasks\n");
        return 2;
    }
    printf("%s: %ld\n", what, done);
    return 0;
}
