/* Parallel regions inside host teams. Code strictly inside a teams region
 * may call no OpenMP runtime routine, so the number of threads a measured
 * parallel region reports when the program does not ask for one is taken
 * before the teams construct; a parallel region nested in another one
 * inside teams may ask the runtime itself. default(none) on teams must
 * then list that value too. */
#include <stdio.h>

#define TEAMS 3

int main(void)
{
    int plain = 0, listed = 0, distributed = 0, requested = 0, nested = 0;

#pragma omp teams num_teams(TEAMS)
    {
#pragma omp parallel
        {
#pragma omp single
            {
#pragma omp atomic
                plain++;
            }
        }
    }

#pragma omp teams num_teams(TEAMS) default(none) shared(listed)
#pragma omp parallel
    {
#pragma omp masked
        {
#pragma omp atomic
            listed++;
        }
    }

#pragma omp teams num_teams(TEAMS) thread_limit(4)
#pragma omp distribute
    for (int i = 0; i < 8; i++) {
#pragma omp parallel if (i % 2 == 0)
        {
#pragma omp single
            {
#pragma omp atomic
                distributed += i;
            }
        }
    }

#pragma omp teams num_teams(TEAMS)
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel
        {
#pragma omp single
            {
#pragma omp atomic
                nested++;
            }
        }
#pragma omp single
        {
#pragma omp atomic
            requested++;
        }
    }

    /* Each team runs the region once however many teams it got. */
    printf("plain %d\n", plain > 0 && plain <= TEAMS);
    printf("listed %d\n", listed > 0 && listed <= TEAMS);
    printf("distributed %d\n", distributed);
    printf("requested %d\n", requested > 0 && requested <= TEAMS);
    printf("nested %d\n", nested >= requested && nested <= 2 * requested);
    return 0;
}
