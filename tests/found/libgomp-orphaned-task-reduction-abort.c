/* libgomp fails, uninstrumented: the program aborts (gcc 12's libgomp, every run; clang's libomp runs it) */
/*
 * A taskgroup with task_reduction that no parallel region encloses, in the
 * body of a loop construct that none encloses either: libgomp gives the
 * initial thread a team of one thread for the reduction's sake, and that
 * team's state takes the place of the loop's. Asking for the loop's next
 * iterations then asks the team: with the schedule taken at run time the
 * program aborts, with schedule(dynamic) the iterations after the first
 * are lost (it prints 0 0). With a static schedule, or without the task
 * reduction, it prints 6 6. The program generator writes orphaned task
 * reductions only for toolchains whose runtime runs them (LIBGOMP_FAULTS
 * in tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    int r = 0, sum = 0;
#pragma omp for schedule(runtime)
    for (int i = 0; i < 4; i++) {
#pragma omp taskgroup task_reduction(+ : r)
        {
#pragma omp task in_reduction(+ : r)
            r += i;
        }
        sum += i;
    }
    printf("%d %d\n", r, sum);
    return 0;
}
