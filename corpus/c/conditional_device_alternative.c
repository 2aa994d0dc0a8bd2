/* pomp-corpus: variants -DOPENMP_TARGET */
/* A device directive and its host alternative for one loop, the device
 * one first, as codes that may offload write it: compiled with
 * OPENMP_TARGET the loop is a target region, otherwise a parallel loop on
 * the host. Each alternative is measured when it is compiled; the host
 * one is not device code for lying after the device one. */
#include <stdio.h>

#define N 2000

int main(void)
{
    static double a[N];
    double sum = 0.0;

#if defined(OPENMP_TARGET)
#pragma omp target teams distribute parallel for map(tofrom: a[0:N])
#elif defined(_OPENMP)
#pragma omp parallel for
#endif
    for (int i = 0; i < N; i++) {
        a[i] = 0.5 * i;
    }

#if defined(OPENMP_TARGET)
#pragma omp target teams distribute parallel for reduction(+: sum) map(to: a[0:N])
#elif defined(_OPENMP)
#pragma omp parallel for reduction(+: sum)
#else
    /* serial */
#endif
    for (int i = 0; i < N; i++) {
        sum += a[i];
    }

    /* Measured under every setting and interface: the original one has
     * no events for target regions. */
    int threads = 0;
#pragma omp parallel
    {
#pragma omp atomic
        threads++;
    }

    printf("sum %.1f, threads seen %s\n", sum, threads > 0 ? "yes" : "no");
    return 0;
}
