/* libomp fails, uninstrumented: the program aborts (clang 14's libomp, every run with 2 or 3 threads; gcc's libgomp runs it) */
/*
 * Parallel regions that create tasks, two of them or more, then a league
 * of teams on the host with a reduction: libomp 14 fails its assertion
 * `!(0 == (this_thr->th.th_info.ds.ds_tid))` in kmp_wait_release.h when
 * the league combines its reduction. Without the reduction, or after one
 * such parallel region only, it runs. The program generator leaves
 * reductions off `teams` for toolchains whose runtime fails on them
 * (`Feature::ReductionOnTeams` in LIBOMP_FAULTS, tests/generated.rs).
 */
#include <stdio.h>

int created, visited;

int main(void)
{
    long long total = 0;
    for (int round = 0; round < 2; round++) {
#pragma omp parallel master
#pragma omp task
        {
#pragma omp atomic
            created++;
        }
    }
#pragma omp teams num_teams(3) reduction(+:total)
#pragma omp distribute
    for (int i = 0; i < 8; i++) {
#pragma omp atomic
        visited++;
    }
    printf("created %d visited %d total %lld\n", created, visited, total);
    return created != 2 || visited != 8 || total != 0;
}
