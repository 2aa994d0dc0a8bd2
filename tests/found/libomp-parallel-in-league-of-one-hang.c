/* libomp fails, uninstrumented: the program hangs (clang 14's libomp, every run with 2 or 3 threads; gcc's libgomp runs it) */
/*
 * A league of one team on the host whose team forks a parallel region,
 * then tasks in a later parallel region: libomp 14 leaves the initial
 * thread's task bookkeeping as if it were still in the league, and the
 * later region's tasks wait for ever (or fail its assertions
 * `this_thr->th.th_task_team == ...` in kmp_runtime.cpp and
 * `nthreads == this_thr->th.th_team->t.t_nproc` in kmp_tasking.cpp).
 * With two teams or more, or without the parallel region in the league,
 * it runs. The program generator writes leagues of one team only for
 * toolchains whose runtime runs them (LIBOMP_FAULTS in
 * tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    int created = 0;
#pragma omp teams num_teams(1)
#pragma omp parallel num_threads(1)
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
