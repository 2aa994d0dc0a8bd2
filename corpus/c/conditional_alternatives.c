/* pomp-corpus: variants -DSCHED_CYCLIC -DUSE_BUCKETS -DNEW_CODE -DSCHED_CYCLIC,-DUSE_BUCKETS */
/* Directives chosen by macros the file does not define, as NPB IS writes
 * them: alternative directives for one loop, alone and inside a region,
 * alternative stretches of a region, a directive whose loop is chosen by a
 * conditional, one guarded by a newer OpenMP with a fallback, and a
 * conditional holding only another compiler's pragma between a directive
 * and its loop. Every setting of the macros prints the same. */
#include <stdio.h>

#define NUM_KEYS 4096
#define NUM_BUCKETS 64

static int keys[NUM_KEYS];
static long counts[NUM_BUCKETS];

static int check(const char *what, long got, long expected)
{
    printf("%-34s %ld\n", what, got);
    if (got != expected) {
        printf("FAILED: %s: expected %ld\n", what, expected);
        return 1;
    }
    return 0;
}

static long count_keys(void)
{
    int i;
    long total = 0;
#ifdef SCHED_CYCLIC
    #pragma omp parallel for private(i) schedule(static,1)
#else
    #pragma omp parallel for private(i) schedule(dynamic)
#endif
    for (i = 0; i < NUM_BUCKETS; i++) {
        long n = 0;
        for (int k = 0; k < NUM_KEYS; k++)
            if (keys[k] % NUM_BUCKETS == i)
                n++;
        counts[i] = n;
    }
    for (i = 0; i < NUM_BUCKETS; i++)
        total += counts[i] * (i + 1);
    return total;
}

static long rank_keys(void)
{
    long total = 0;
    int i;
#pragma omp parallel private(i) reduction(+ : total)
    {
#ifdef USE_BUCKETS
        #pragma omp for schedule(static)
        for (i = 0; i < NUM_BUCKETS; i++)
            total += counts[i];
#else
        #pragma omp for nowait schedule(static)
        for (i = 0; i < NUM_KEYS; i++)
            total += 1;
        #pragma omp barrier
#endif

#ifdef SCHED_CYCLIC
        #pragma omp for schedule(static,1)
#else
        #pragma omp for schedule(dynamic)
#endif
        for (i = 0; i < NUM_BUCKETS; i++)
            total += i;
    }
    return total;
}

static long weighted(long factor)
{
    long s = 0;
    int i;
#pragma omp parallel for reduction(+ : s)
#ifdef NEW_CODE
    for (i = 0; i < NUM_KEYS; i++) s += (long)keys[i] * factor;
#else
    for (i = NUM_KEYS - 1; i >= 0; i--) s += factor * keys[i];
#endif
    return s;
}

static long sum_of_keys(void)
{
    long s = 0;
#if defined(_OPENMP) && _OPENMP >= 201307
    #pragma omp parallel for simd reduction(+ : s)
#elif defined(_OPENMP)
    #pragma omp parallel for reduction(+ : s)
#endif
#ifdef __INTEL_COMPILER
    #pragma simd
#endif
    for (int i = 0; i < NUM_KEYS; i++)
        s += keys[i];
    return s;
}

int main(void)
{
    int failures = 0;
    long expected_count = 0, expected_sum = 0;
    for (int k = 0; k < NUM_KEYS; k++) {
        keys[k] = (k * 37 + 11) % 1000;
        expected_sum += keys[k];
    }
    for (int k = 0; k < NUM_KEYS; k++)
        expected_count += keys[k] % NUM_BUCKETS + 1;
    failures += check("alternative parallel for", count_keys(), expected_count);
    failures += check("alternatives inside a region", rank_keys(), NUM_KEYS + 2016);
    failures += check("a loop chosen by a conditional", weighted(3), 3 * expected_sum);
    failures += check("newer OpenMP or its fallback", sum_of_keys(), expected_sum);
    return failures;
}
