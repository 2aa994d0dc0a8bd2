/* Combined and SIMD loop constructs: parallel for, parallel for simd,
 * for simd, simd, parallel for with default(none) and reduction, and the
 * loop construct, alone and as parallel loop. */
#include <stdio.h>

#define N 1000

static double xs[N], ys[N];

static double dot_parallel_for(void)
{
    double dot = 0;
#pragma omp parallel for reduction(+ : dot) schedule(static)
    for (int i = 0; i < N; i++)
        dot += xs[i] * ys[i];
    return dot;
}

static double dot_default_none(const double *x, const double *y, int n)
{
    double dot = 0;
#pragma omp parallel for default(none) shared(x, y, n) reduction(+ : dot)
    for (int i = 0; i < n; i++)
        dot += x[i] * y[i];
    return dot;
}

int main(void)
{
    int failures = 0;
    for (int i = 0; i < N; i++) {
        xs[i] = i % 10;
        ys[i] = 2.0;
    }
    /* 100 runs of 0..9 times 2: exact in double. */
    const double expected = 100 * 45 * 2.0;

    double a = dot_parallel_for();
    double b = dot_default_none(xs, ys, N);

    double c = 0;
#pragma omp parallel for simd reduction(+ : c)
    for (int i = 0; i < N; i++)
        c += xs[i] * ys[i];

    double d = 0;
#pragma omp parallel
    {
#pragma omp for simd reduction(+ : d) schedule(simd : static)
        for (int i = 0; i < N; i++)
            d += xs[i] * ys[i];
    }

    double e = 0;
#pragma omp simd reduction(+ : e)
    for (int i = 0; i < N; i++)
        e += xs[i] * ys[i];

    static double scaled[N];
#pragma omp parallel loop
    for (int i = 0; i < N; i++)
        scaled[i] = 3 * xs[i];
    double f = 0;
#pragma omp parallel
    {
#pragma omp loop reduction(+ : f)
        for (int i = 0; i < N; i++)
            f += scaled[i];
    }

    const double results[] = {a, b, c, d, e, f / 3 * 2};
    const char *const names[] = {"parallel for",        "parallel for default(none)",
                                 "parallel for simd",   "for simd",
                                 "simd",                "parallel loop + loop"};
    for (int k = 0; k < 6; k++) {
        printf("%-28s %.1f\n", names[k], results[k]);
        if (results[k] != expected) {
            printf("FAILED: %s expected %.1f\n", names[k], expected);
            failures++;
        }
    }
    if (failures)
        return 1;
    printf("combined_loops: ok\n");
    return 0;
}
