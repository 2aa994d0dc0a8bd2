/* libgomp fails, uninstrumented: the program does not compile (gcc 12 stops with an internal compiler error at -O1 and above; clang compiles and runs it) */
/*
 * A loop construct with `reduction` whose iterations the team of the
 * enclosing parallel region shares, in a loop after a `switch` on a
 * constant whose cases all break: gcc 12 fails in
 * expand_omp_for_static_nochunk (omp-expand.cc). Without the reduction,
 * with `for` in place of `loop`, or at -O0, it compiles. The program
 * generator leaves reductions off loop constructs a team shares for gcc
 * (`Feature::ReductionOnTeamLoopConstruct` in LIBGOMP_FAULTS,
 * tests/generated.rs). One thread: clang 14 runs every iteration of such
 * a loop construct on every thread of the team.
 */
#include <stdio.h>

long long sum_twice(void)
{
    long long sum = 0;
#pragma omp parallel num_threads(1) shared(sum)
    for (int round = 0; round < 2; round++) {
        switch (round % 1) {
        case 0:
            if (round % 2 == 0)
                break;
            break;
        }
#pragma omp loop reduction(+:sum)
        for (int i = 0; i < 6; i++)
            sum += i;
    }
    return sum;
}

int main(void)
{
    long long sum = sum_twice();
    printf("sum %lld\n", sum);
    return sum != 30;
}
