/* pomp-corpus: variants -DREVERSE_SWEEP */
/* Loop headers split by conditionals, their body shared: on _OPENMP, as
 * NPB LU sweeps backwards only in parallel (with a guarded flush in the
 * body), and on a macro the file does not define, as codes pick an index
 * type per platform; a function head split the same way; and a region
 * whose closing brace is chosen by a conditional. Every setting prints the
 * same. */
#include <stdio.h>

#define N 512

static long v[N], w[N];

static int check(const char *what, long got, long expected)
{
    printf("%-34s %ld\n", what, got);
    if (got != expected) {
        printf("FAILED: %s: expected %ld\n", what, expected);
        return 1;
    }
    return 0;
}

static void sweep(int ist, int iend)
{
    int i;
#pragma omp parallel
    {
#pragma omp for nowait schedule(static)
#if defined(_OPENMP)
        for (i = iend; i >= ist; i--) {
#else
        for (i = ist; i <= iend; i++) {
#endif
            v[i] = 3 * i + 1;
#if defined(_OPENMP)
#pragma omp flush(v)
#endif
        }
    }
}

static long checksum(void)
{
    long s = 0;
#pragma omp parallel for reduction(+ : s)
#ifdef REVERSE_SWEEP
    for (long i = N - 1; i >= 0; i--) {
#else
    for (int i = 0; i < N; i++) {
#endif
        long term = v[i] * (i % 7);
#pragma omp critical(sum)
        {
            w[i] = term;
        }
        s += term;
    }
    return s;
}

#ifdef REVERSE_SWEEP
static long weights(long first, long n) {
#else
static long weights(int first, int n) {
#endif
    long total = 0;
#pragma omp parallel for reduction(+ : total)
    for (long i = first; i < first + n; i++)
        total += w[i];
    return total;
}

static long ordered_pairs(void)
{
    long pairs = 0;
#pragma omp parallel reduction(+ : pairs)
    {
#pragma omp for
        for (int i = 0; i < N; i++)
            pairs += v[i] > v[N - 1 - i];
#ifdef REVERSE_SWEEP
    }
#else
    }
#endif
    return pairs;
}

int main(void)
{
    int failures = 0;
    long expected = 0;
    sweep(0, N - 1);
    for (int i = 0; i < N; i++)
        expected += (3L * i + 1) * (i % 7);
    failures += check("split header on _OPENMP", v[N - 1], 3 * (N - 1) + 1);
    failures += check("split header on a macro", checksum(), expected);
    failures += check("split function head", weights(0, N), expected);
    failures += check("closing brace chosen by a macro", ordered_pairs(), N / 2);
    return failures;
}
