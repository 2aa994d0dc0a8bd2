#include <stdlib.h>
#include "app.h"

long histogram_peak(int n, int buckets)
{
    long *counts = calloc(buckets, sizeof *counts);
    long peak = 0;
#pragma omp parallel
    {
        int i;
#pragma omp for schedule(dynamic, 64)
        for (i = 0; i < n; i++) {
            int bucket = (int)(((long)i * i) % buckets);
#pragma omp atomic
            counts[bucket]++;
        }
#pragma omp barrier
#pragma omp master
        {
            int b;
            for (b = 0; b < buckets; b++)
                if (counts[b] > peak)
                    peak = counts[b];
        }
    }
    free(counts);
    return peak;
}
