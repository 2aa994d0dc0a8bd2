#include <stdlib.h>
#include "app.h"
#include "stencil_weights.h"

long stencil_checksum(int n, int sweeps)
{
    long *a = malloc(sizeof *a * n);
    long *b = malloc(sizeof *b * n);
    int i, s;
    for (i = 0; i < n; i++)
        a[i] = lcg(i) % 100;
    for (s = 0; s < sweeps; s++) {
#pragma omp parallel for
        for (i = 1; i < n - 1; i++)
            b[i] = (WEIGHT_LEFT * a[i - 1] + WEIGHT_CENTRE * a[i] + WEIGHT_RIGHT * a[i + 1]) / 4;
        b[0] = a[0];
        b[n - 1] = a[n - 1];
        long *t = a;
        a = b;
        b = t;
    }
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (i = 0; i < n; i++)
        sum += a[i] * (i % 7 + 1);
    free(a);
    free(b);
    return sum;
}
