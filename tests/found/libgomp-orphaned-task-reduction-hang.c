/* libgomp fails, uninstrumented: the program hangs (gcc 12's libgomp, about every run with 2 or 3 threads; clang's libomp runs it) */
/*
 * A taskgroup with task_reduction that no parallel region encloses: libgomp
 * gives the initial thread a team of one thread for the reduction's sake
 * and never ends it. Every parallel region after it then ends as if it were
 * nested in that team: its master frees the region's team at once, where
 * it would otherwise keep it for the next region, while the workers may
 * still be reading it on their way out of its last barrier. valgrind
 * reports those reads of freed memory; once the memory is reused for the
 * next region's team, the threads wait for each other for ever. Without
 * the taskgroup, or with the taskgroup inside a parallel region, it never
 * hangs. The program generator writes orphaned task reductions only for
 * toolchains whose runtime runs them (LIBGOMP_FAULTS in tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    int r = 0, last = 0;
#pragma omp taskgroup task_reduction(+ : r)
    {
    }
    for (int i = 0; i < 1000; i++) {
#pragma omp parallel reduction(max : last)
        last = i;
    }
    printf("%d %d\n", r, last);
    return 0;
}
