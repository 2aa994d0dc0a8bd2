/* pomp-corpus: regions functions */
/* C functions as regions: early returns whose values call functions,
 * gotos out of loops, recursion, a function holding OpenMP constructs,
 * and exit() ending the program from main. */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static int calls;

static int bump(int v) {
    calls++;
    return v;
}

int first_negative(const int *values, int n) {
    int i;
    for (i = 0; i < n; i++) {
        if (values[i] < 0)
            goto found;
    }
    return bump(-1);
found:
    return bump(i);
}

long fib(int n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

double parallel_sum(const int *values, int n) {
    double sum = 0;
    int i;
#pragma omp parallel for reduction(+ : sum)
    for (i = 0; i < n; i++)
        sum += values[i];
    if (sum < 0)
        return -sum;
    return sum;
}

void report(int code) {
    printf("report %d calls %d\n", code, calls);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int values[] = {3, 1, 4, -1, 5, -9, 2, 6};
    (void)argv;
    printf("first negative %d\n", first_negative(values, 8));
    printf("first negative %d\n", first_negative(values, 3));
    printf("fib %ld\n", fib(15));
    printf("sum %.1f\n", parallel_sum(values, 8));
    report(argc);
    if (argc > 0) {
        printf("leaving through exit\n");
        exit(0);
    }
    return 1;
}
