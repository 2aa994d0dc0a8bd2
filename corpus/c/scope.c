/* The scope construct (OpenMP 5.1): a block every thread of the team runs,
 * with private and reduction clauses and an implicit barrier. */
#include <stdio.h>

int main(void)
{
    long team_total = 0;
    int threads = 0, stale = 0;
#pragma omp parallel shared(team_total, threads) reduction(+ : stale)
    {
#pragma omp atomic
        threads++;
        int scratch = -1;
#pragma omp scope private(scratch) reduction(+ : team_total)
        {
            scratch = 5;
            team_total += scratch;
        }
        /* After the scope's barrier every thread sees the full total. */
        stale += team_total != 5L * threads;
    }
    printf("scope: total per thread %ld, stale views %d\n", team_total / threads, stale);
    if (team_total != 5L * threads || stale != 0) {
        printf("FAILED\n");
        return 1;
    }
    printf("scope: ok\n");
    return 0;
}
