/* libgomp fails, uninstrumented: linear gives back a wrong value (gcc 12 with libgomp, every run, with any thread count; clang with libomp runs it) */
/*
 * A worksharing loop with a dynamic schedule, a `linear` clause and a
 * reduction with the `task` modifier: gcc gives the linear variable back
 * as if one iteration fewer had run (12 where the sequentially last
 * iteration leaves 15), in a team of one thread too. With a static
 * schedule, or without the `task` modifier, it runs; in a larger program
 * the value it gives back depended on the thread count (fixed form seed
 * 308359). The program generator writes `linear` beside a task
 * reduction only for toolchains that run it (LIBGOMP_FAULTS in
 * tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    long long lin = 3, r = 0;
#pragma omp parallel num_threads(1)
#pragma omp for schedule(dynamic) linear(lin : 3) reduction(task, + : r)
    for (int i = 0; i < 4; i++) {
        lin += 3;
        r += i;
    }
    printf("%lld %lld\n", lin, r);
    return 0;
}
