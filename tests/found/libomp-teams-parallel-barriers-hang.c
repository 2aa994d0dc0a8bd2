/* libomp fails, uninstrumented: the program hangs (clang 14's libomp, every run with 3 threads, or it fails its assertion in kmp_tasking.cpp; gcc's libgomp runs it) */
/*
 * A parallel region of a league of teams on the host that passes two
 * barriers, then tasks in a later parallel region: the later region's tasks
 * wait for ever, or libomp fails its assertion
 * `nthreads == this_thr->th.th_team->t.t_nproc`. With one barrier it runs.
 * The original POMP interface measures a parallel region's closing barrier
 * by making it explicit, which turned a program with one barrier there into
 * one with two; pomp leaves that barrier implicit in a teams region
 * (`closing_barrier` in crates/core/src/rules/constructs.rs), so the program
 * the generator found (tests/regressions/pomp1-barrier-of-parallel-in-teams.c)
 * runs instrumented as it does uninstrumented.
 */
#include <stdio.h>

int main(void)
{
#pragma omp teams
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp barrier
    }
#pragma omp parallel
    {
#pragma omp task
        {
        }
    }
    printf("done\n");
    return 0;
}
