/* libomp fails, uninstrumented: lastprivate and linear give back a wrong value (clang 14's libomp, with threads waiting passively as the tests run them: about every run with 2 threads, some with 3; gcc's libgomp runs it) */
/*
 * A worksharing loop with a dynamic schedule, which OpenMP 5 makes
 * nonmonotonic by default: libomp lets a thread steal chunks, so one
 * thread may run the chunk holding the last iteration and then an earlier
 * one. Each call that hands out a chunk sets the flag saying whether it
 * holds the last iteration, and clang's code gives the value back only
 * where the flag is set once the loop ends, from the private copy as the
 * thread's last chunk left it: the value of the sequentially last
 * iteration is lost, or replaced by an earlier one's. With
 * `schedule(monotonic: dynamic)`, or any other schedule, it runs. The
 * program generator writes `lastprivate` and `linear` on dynamically
 * scheduled loops only for toolchains whose runtime runs them
 * (LIBOMP_FAULTS in tests/generated.rs).
 */
#include <stdio.h>

int main(void)
{
    int wrong_lastprivate = 0, wrong_linear = 0;
    for (int rep = 0; rep < 1000; rep++) {
        long long last = -1, lin = 0;
#pragma omp parallel
        {
#pragma omp for schedule(dynamic) lastprivate(last)
            for (int i = 0; i < 20; i++)
                last = i;
#pragma omp for schedule(dynamic) linear(lin : 3)
            for (int i = 0; i < 20; i++)
                lin += 3;
        }
        wrong_lastprivate += last != 19;
        wrong_linear += lin != 60;
    }
    printf("wrong values given back: lastprivate %d, linear %d, of 1000 loops each\n",
           wrong_lastprivate, wrong_linear);
    return 0;
}
