/* pomp-corpus: regions loops */
/* Outermost loops as regions: every way out of a loop (its end, break,
 * continue, return, goto out, exit()), a loop that is the body of an
 * unbraced if or else, while and do loops, loops holding OpenMP
 * constructs and loops inside them, which are not regions. */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static int find(const int *values, int n, int wanted) {
    for (int i = 0; i < n; i++) {
        if (values[i] == wanted)
            return i;
    }
    return -1;
}

static int sum_until(int limit) {
    int sum = 0, i = 0;
    while (1) {
        if (i > limit)
            goto done;
        if (i % 2)
            { i++; continue; }
        sum += i++;
    }
done:
    return sum;
}

static int nested(int n) {
    int count = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j > i)
                break;
            count++;
        }
    return count;
}

static int choose(int c) {
    int total = 0;
    if (c)
        for (int k = 0; k < 3; k++)
            total += k;
    else
        while (total < 5)
            total += 2;
    return total;
}

/* Entered by a jump past where its region would begin: left alone. */
static int entered(int n) {
    int s = 0;
    goto inside;
    while (s < n) {
    inside:
        s++;
    }
    switch (n) {
    case 0:
        do {
            s--;
    case 1:
            s += 2;
        } while (s < 2 * n);
    }
    return s;
}

int main(void) {
    int values[5] = {1, 2, 3, 4, 5};
    int total = 0;
    do {
        total++;
    } while (total < 10);
#pragma omp parallel for reduction(+:total)
    for (int j = 0; j < 4; j++)
        total += j;
    for (int r = 0; r < 2; r++) {
#pragma omp parallel
        {
#pragma omp single
            for (int inner = 0; inner < 2; inner++) {
#pragma omp atomic
                total++;
            }
        }
    }
    printf("find %d\n", find(values, 5, 4));
    printf("sum_until %d\n", sum_until(6));
    printf("nested %d\n", nested(4));
    printf("choose %d %d\n", choose(1), choose(0));
    printf("entered %d %d\n", entered(3), entered(1));
    printf("total %d\n", total);
    fflush(stdout);
    for (;;) {
        if (total > 0)
            exit(0);
    }
}
