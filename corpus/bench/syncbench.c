/* EPCC syncbench-style overhead of a parallel region and of a parallel
 * loop: many regions back to back, each thread doing a short delay in each
 * (EPCC's delay loop). Prints the time of the regions and the time per
 * region. parallel_in_calls forks the parallel regions two function calls
 * below main, which a profile of functions shows above each region.
 * usage: syncbench parallel|parallel_for|parallel_in_calls [regions] [delay] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void delay(int length) {
    volatile int a = 0;
    for (int i = 0; i < length; i++) a += i;
}

static void parallel_regions(long regions, int length) {
    for (long r = 0; r < regions; r++) {
#pragma omp parallel
        delay(length);
    }
}

static void regions_in_calls(long regions, int length) { parallel_regions(regions, length); }

static void calls(long regions, int length) { regions_in_calls(regions, length); }

int main(int argc, char **argv) {
    const char *test = argc > 1 ? argv[1] : "parallel";
    long regions = argc > 2 ? atol(argv[2]) : 200000;
    int length = argc > 3 ? atoi(argv[3]) : 50;
    int threads = omp_get_max_threads();
    int loop = strcmp(test, "parallel_for") == 0;
    int in_calls = strcmp(test, "parallel_in_calls") == 0;
    if (!loop && !in_calls && strcmp(test, "parallel") != 0) {
        fprintf(stderr, "syncbench: unknown test %s\n", test);
        return 2;
    }
    double start = omp_get_wtime();
    if (in_calls) {
        calls(regions, length);
    } else if (loop) {
        for (long r = 0; r < regions; r++) {
#pragma omp parallel for
            for (int i = 0; i < threads; i++) delay(length);
        }
    } else {
        parallel_regions(regions, length);
    }
    double seconds = omp_get_wtime() - start;
    printf("seconds=%.6f us_per_region=%.4f\n", seconds, seconds * 1e6 / regions);
    return 0;
}
