/* OpenMP 6.0 loop transformations and task_iteration. gcc 12 knows none of
 * them and ignores them with a warning, which leaves the loops as written:
 * the program prints the same either way. pomp leaves the transformations
 * as written and measures the constructs around them. */
#include <stdio.h>

#define N 48

int main(void)
{
    int failures = 0;
    static double a[N][N];
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
#pragma omp tile sizes(4) apply(intratile: unroll partial(2) apply(reverse))
    for (int i = 0; i < N; i++)
        sum += i;
    printf("tile with apply: %ld\n", sum);
    failures += sum != (long)N * (N - 1) / 2;

#pragma omp parallel for collapse(2)
#pragma omp interchange permutation(2, 1)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i + j;
    long diagonal = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : diagonal)
#pragma omp stripe sizes(3)
        for (int i = 0; i < N; i++)
            diagonal += (long)a[i][i];
    }
    printf("interchange and stripe: %ld\n", diagonal);
    failures += diagonal != (long)N * (N - 1);

    static long prefix[N];
    prefix[0] = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(strict: 4) nogroup
    for (int i = 1; i < N; i++) {
#pragma omp task_iteration depend(out: prefix[i])
        prefix[i] = i;
    }
    long last = 0;
#pragma omp split counts(8, omp_fill)
    for (int i = 0; i < N; i++)
        last += prefix[i];
#pragma omp fuse
    {
        for (int i = 0; i < N; i++)
            a[0][i] = 1;
        for (int j = 0; j < N; j++)
            a[1][j] = 2;
    }
    printf("taskloop with task_iteration, split and fuse: %ld %g\n", last,
           a[0][N - 1] + a[1][N - 1]);
    failures += last != sum || a[0][N - 1] + a[1][N - 1] != 3;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("openmp6_loops: ok\n");
    return 0;
}
