/* Reductions over vectors: integer and floating dot products, minimum and
 * maximum with their positions, and a user-declared reduction. Floating
 * values are small integers so that every summation order is exact. */
#include <limits.h>
#include <stdio.h>

#define N 100000

typedef struct {
    long value;
    int index;
} located;

static located better_min(located a, located b)
{
    return (b.value < a.value || (b.value == a.value && b.index < a.index)) ? b : a;
}

#pragma omp declare reduction(min_located : located : omp_out = better_min(omp_out, omp_in)) \
    initializer(omp_priv = (located){LONG_MAX, INT_MAX})

static long xs[N], ys[N];
static double fx[N], fy[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        xs[i] = (i * 37L) % 1001 - 500;
        ys[i] = (i % 7) - 3;
        fx[i] = (double)(i % 16);
        fy[i] = 0.5;
    }

    long dot = 0, sequential_dot = 0;
    double fdot = 0, sequential_fdot = 0;
    long low = LONG_MAX, high = LONG_MIN;
    located lowest = {LONG_MAX, INT_MAX};
#pragma omp parallel for reduction(+ : dot, fdot) reduction(min : low) reduction(max : high) \
    reduction(min_located : lowest)
    for (int i = 0; i < N; i++) {
        dot += xs[i] * ys[i];
        fdot += fx[i] * fy[i];
        if (xs[i] < low)
            low = xs[i];
        if (xs[i] > high)
            high = xs[i];
        lowest = better_min(lowest, (located){xs[i], i});
    }

    long sequential_low = LONG_MAX, sequential_high = LONG_MIN;
    located sequential_lowest = {LONG_MAX, INT_MAX};
    for (int i = 0; i < N; i++) {
        sequential_dot += xs[i] * ys[i];
        sequential_fdot += fx[i] * fy[i];
        sequential_low = xs[i] < sequential_low ? xs[i] : sequential_low;
        sequential_high = xs[i] > sequential_high ? xs[i] : sequential_high;
        sequential_lowest = better_min(sequential_lowest, (located){xs[i], i});
    }

    printf("dot %ld, float dot %.1f, min %ld, max %ld, first min at %d\n", dot, fdot, low, high,
           lowest.index);
    if (dot != sequential_dot || fdot != sequential_fdot || low != sequential_low ||
        high != sequential_high || lowest.index != sequential_lowest.index) {
        printf("FAILED: sequential gives dot %ld, float dot %.1f, min %ld, max %ld, at %d\n",
               sequential_dot, sequential_fdot, sequential_low, sequential_high,
               sequential_lowest.index);
        return 1;
    }
    printf("reduction: ok\n");
    return 0;
}
