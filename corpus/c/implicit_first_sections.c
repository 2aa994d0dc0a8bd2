/* Sections constructs that leave out the first `section` directive and
 * start with a directive: an atomic, a taskloop, a critical section, a
 * user region. The first section holds that directive and
 * its statement, so its events enclose theirs. Sections run at once:
 * every update they share is atomic or in one critical section. */
#include <stdio.h>

static long counter, tasks, guarded, regions;

int main(void)
{
#pragma omp parallel
    {
#pragma omp sections
        {
#pragma omp atomic
            counter += 1;
#pragma omp section
#pragma omp atomic
            counter += 10;
        }

#pragma omp sections
        {
#pragma omp taskloop grainsize(2)
            for (int i = 0; i < 8; i++) {
#pragma omp atomic
                tasks += i;
            }
        }

#pragma omp sections
        {
#pragma omp critical (first)
            guarded += 1;
#pragma omp critical (first)
            guarded += 2;
#pragma omp section
#pragma omp critical (first)
            guarded += 4;
        }

#pragma omp sections
        {
#pragma pomp inst begin(first_section)
#pragma omp atomic
            regions += 1;
#pragma pomp inst end(first_section)
#pragma omp section
#pragma omp atomic
            regions += 2;
        }
    }
    printf("%ld %ld %ld %ld\n", counter, tasks, guarded, regions);
    return 0;
}
