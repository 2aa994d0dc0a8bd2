/* pomp-corpus: variants */
/* Directives under #ifdef _OPENMP, as benchmark codes write them: the
 * directive guarded alone with its block after #endif (parallel, for,
 * critical, single, atomic, task, taskwait, barrier), a parallel region
 * whose braces open and close under guards, a directive only a newer
 * OpenMP sees, stand-ins for the runtime when OpenMP is off, and a
 * directive in code no compiler sees. Built without OpenMP, the program
 * runs serially and prints the same. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_thread_num(void) { return 0; }
#endif

#define N 1000

static long a[N], b[N];

static int check(const char *what, long got, long expected)
{
    printf("%-32s %ld\n", what, got);
    if (got != expected) {
        printf("FAILED: %s: expected %ld\n", what, expected);
        return 1;
    }
    return 0;
}

static long sum_guarded(void)
{
    long sum = 0;
    int i;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : sum) schedule(static)
#endif
    for (i = 0; i < N; i++)
        sum += a[i];
    return sum;
}

static long critical_single_atomic(void)
{
    long seen = 0, counted = 0, single_ran = 0;
#ifdef _OPENMP
#pragma omp parallel shared(seen, counted, single_ran)
#endif
    {
#ifdef _OPENMP
#pragma omp critical(guarded)
#endif
        seen = 1;
#ifdef _OPENMP
#pragma omp single
#endif
        {
            single_ran++;
        }
#ifdef _OPENMP
#pragma omp barrier
#endif
        if (omp_get_thread_num() == 0) {
#ifdef _OPENMP
#pragma omp atomic
#endif
            counted += 1;
        }
    }
    return seen + counted * 10 + single_ran * 100;
}

static long fib(int n)
{
    long x, y;
    if (n < 2)
        return n;
#ifdef _OPENMP
#pragma omp task shared(x) firstprivate(n)
#endif
    x = fib(n - 1);
#ifdef _OPENMP
#pragma omp task shared(y) firstprivate(n)
#endif
    y = fib(n - 2);
#ifdef _OPENMP
#pragma omp taskwait
#endif
    return x + y;
}

static long fib_in_parallel(int n)
{
    long result = 0;
#ifdef _OPENMP
#pragma omp parallel
#pragma omp single
#endif
    result = fib(n);
    return result;
}

/* The braces of the region exist only with OpenMP. */
static long scaled_squares(long scale)
{
    long norm = 0;
    int i;
#ifdef _OPENMP
#pragma omp parallel shared(norm) firstprivate(scale)
    {
#pragma omp for reduction(+ : norm) schedule(static)
#endif
        for (i = 0; i < N; i++)
            norm += scale * b[i] * b[i];
#ifdef _OPENMP
    }
#endif
    return norm;
}

static long dot(void)
{
    long d = 0;
    int i;
#if defined(_OPENMP) && _OPENMP >= 201307
#pragma omp simd reduction(+ : d)
#endif
    for (i = 0; i < N; i++)
        d += a[i] * b[i];
    return d;
}

static long stale(void)
{
    long s = 0;
    int i;
#if 0
#pragma omp parallel for ordered
#endif
    for (i = 0; i < 10; i++)
        s += i;
    return s;
}

int main(void)
{
    int failures = 0;
    long expected_dot = 0, expected_squares = 0;
    for (int i = 0; i < N; i++) {
        a[i] = i % 17;
        b[i] = (i * 7) % 13;
        expected_dot += a[i] * b[i];
        expected_squares += 3 * b[i] * b[i];
    }
    failures += check("guarded parallel for", sum_guarded(), 7979);
    failures += check("guarded critical, single, atomic", critical_single_atomic(), 111);
    failures += check("guarded tasks", fib_in_parallel(15), 610);
    failures += check("braces under guards", scaled_squares(3), expected_squares);
    failures += check("simd of a newer OpenMP", dot(), expected_dot);
    failures += check("directive never compiled", stale(), 45);
    return failures;
}
