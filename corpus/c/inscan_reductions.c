/* Prefix sums with inscan reductions on combined constructs: pomp keeps
 * these whole (written as separate directives, clang 14 with libomp gets
 * them wrong), and measures them from outside. */
#include <stdio.h>

#define N 1000

static int a[N], inclusive[N], exclusive[N];
static double weights[N], running[N];

static long checksum(const int *values)
{
    long sum = 0;
    for (int i = 0; i < N; i++)
        sum += (long)values[i] * (i % 7 + 1);
    return sum;
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = (i * 37) % 101 - 50;
        weights[i] = 0.5 * (i % 9);
    }

    int x = 0;
#pragma omp parallel for reduction(inscan, +: x)
    for (int i = 0; i < N; i++) {
        x += a[i];
#pragma omp scan inclusive(x)
        inclusive[i] = x;
    }

    int y = 0;
#pragma omp parallel for reduction(inscan, +: y)
    for (int i = 0; i < N; i++) {
        exclusive[i] = y;
#pragma omp scan exclusive(y)
        y += a[i];
    }

    double w = 0.0;
    int hits = 0;
#pragma omp parallel for simd reduction(inscan, +: w, hits)
    for (int i = 0; i < N; i++) {
        w += weights[i];
        hits += a[i] > 25;
#pragma omp scan inclusive(w, hits)
        running[i] = w + hits;
    }

    int m = -1000;
    int threads = 3;
#pragma omp parallel for reduction(inscan, max: m) num_threads(threads) if(N > 10)
    for (int i = 0; i < N; i++) {
        if (a[i] > m)
            m = a[i];
#pragma omp scan inclusive(m)
        exclusive[i] += m;
    }

    printf("inclusive: last %d checksum %ld\n", inclusive[N - 1], checksum(inclusive));
    printf("exclusive: first %d checksum %ld\n", exclusive[0], checksum(exclusive));
    printf("running: last %.1f middle %.1f hits %d\n", running[N - 1], running[N / 2], hits);
    return 0;
}
