/* Combined constructs under default(none) with every kind of clause the
 * OpenMP 5.2 rules for combined constructs distribute: lastprivate,
 * linear, firstprivate with lastprivate, private, reductions with the
 * task and inscan modifiers, allocate, and iteration variables declared
 * outside simd and loop nests. pomp writes each as a parallel region around
 * the rest; every item must then be listed on the parallel, or gcc rejects
 * the program, and each must keep its value semantics. */
#include <omp.h>
#include <stdio.h>

#define N 64

static int lastprivate_value(void)
{
    int last = -1, sum = 0;
#pragma omp parallel for default(none) reduction(+ : sum) lastprivate(last)
    for (int i = 0; i < N; i++) {
        sum += i;
        last = i * 2;
    }
    return last + sum;
}

static int linear_value(void)
{
    int lin = 3, out[N];
#pragma omp parallel for default(none) shared(out) linear(lin : 2)
    for (int i = 0; i < N; i++) {
        out[i] = lin;
        lin += 2;
    }
    return lin + out[N - 1];
}

static int first_and_last(void)
{
    int x = 5, check = 0;
#pragma omp parallel for default(none) firstprivate(x) lastprivate(x) reduction(+ : check)
    for (int i = 0; i < N; i++) {
        check += x >= 5;
        x = 5 + i;
    }
    return x + check;
}

static int private_in_simd(void)
{
    int scratch = 42, sum = 0;
#pragma omp parallel for simd default(none) private(scratch) reduction(+ : sum)
    for (int i = 0; i < N; i++) {
        scratch = i;
        sum += scratch;
    }
    return scratch + sum;
}

static int outer_iteration_variables(void)
{
    int i, j, sum = 0, k = -1;
#pragma omp parallel for simd default(none) reduction(+ : sum) collapse(2)
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            sum += i * j;
#pragma omp parallel loop default(none) reduction(+ : sum)
    for (k = 0; k < N; k++)
        sum += k;
    return sum + i + j + k;
}

static int task_reductions(void)
{
    int r = 0, s = 0;
#pragma omp parallel for default(none) reduction(task, + : r)
    for (int i = 0; i < 16; i++) {
#pragma omp task default(none) in_reduction(+ : r) firstprivate(i)
        r += i;
    }
#pragma omp parallel sections default(none) reduction(task, + : s)
    {
#pragma omp section
        {
#pragma omp task in_reduction(+ : s)
            s += 10;
        }
#pragma omp section
        s += 1;
    }
    return r + s;
}

static int scans(void)
{
    int in[N], prefix[N], total = 0;
    for (int i = 0; i < N; i++)
        in[i] = i % 5;
#pragma omp parallel for default(none) shared(in, prefix) reduction(inscan, + : total)
    for (int i = 0; i < N; i++) {
        total += in[i];
#pragma omp scan inclusive(total)
        prefix[i] = total;
    }
    return prefix[N - 1] + prefix[N / 2];
}

static int allocated(void)
{
    int x = 7, sum = 0;
#pragma omp parallel for default(none) firstprivate(x) allocate(omp_default_mem_alloc : x) reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += x;
    return sum;
}

static int masked_taskloops(void)
{
    int last = 0, sum = 0, i;
#pragma omp parallel masked taskloop default(none) lastprivate(last) shared(sum) grainsize(8)
    for (int t = 0; t < N; t++) {
#pragma omp atomic
        sum += t;
        last = t;
    }
#pragma omp parallel masked taskloop simd default(none) reduction(+ : sum)
    for (i = 0; i < N; i++)
        sum += 1;
    return last + sum + i;
}

int main(void)
{
    printf("lastprivate %d\n", lastprivate_value());
    printf("linear %d\n", linear_value());
    printf("first and last %d\n", first_and_last());
    printf("private in simd %d\n", private_in_simd());
    printf("iteration variables %d\n", outer_iteration_variables());
    printf("task reductions %d\n", task_reductions());
    printf("scans %d\n", scans());
    printf("allocated %d\n", allocated());
    printf("masked taskloops %d\n", masked_taskloops());
    return 0;
}
