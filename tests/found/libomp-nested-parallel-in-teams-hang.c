/* libomp fails, uninstrumented: the program hangs (clang 14's libomp, about every run with 2 or 3 threads; gcc's libgomp runs it) */
/*
 * A parallel region nested in a parallel region of a league of teams on
 * the host, then tasks in a later parallel region: libomp 14 leaves its
 * bookkeeping of the nested teams' tasks inconsistent, and the later
 * region's tasks wait for ever (or fail its assertion
 * `nthreads == this_thr->th.th_team->t.t_nproc` in kmp_tasking.cpp).
 * Without the innermost parallel region, or without the tasks, it runs.
 * The program generator nests parallel regions in teams only for
 * toolchains whose runtime runs them (LIBOMP_FAULTS in
 * tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    int created = 0;
#pragma omp teams num_teams(2)
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
    }
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < 3; k++) {
#pragma omp task
        {
#pragma omp atomic
            created++;
        }
    }
    printf("%d\n", created);
    return 0;
}
