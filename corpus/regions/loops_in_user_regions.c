/* pomp-corpus: regions loops,functions,calls=step* */
/* Loops measured inside hand-marked user regions, left by jumps that
 * leave the user region too: every region must end inner first. A
 * return, a goto out of the region and exit() from a loop in a region;
 * a break, a continue and a switch's break in such a loop, which end it
 * once; a goto back to the region's start; a user region in a loop in a
 * user region; a user region in a loop, left from a loop inside it; a
 * loop as the body of an unbraced if; a loop nothing leaves early; a
 * parallel region in a region, whose loops are not regions. */
#include <stdio.h>
#include <stdlib.h>

static int step(int v) { return v + 1; }

static int first_at_least(const int *values, int n, int wanted) {
#pragma pomp inst begin(search)
    for (int i = 0; i < n; i++)
        if (values[i] >= wanted)
            return i;
#pragma pomp inst end(search)
    return -1;
}

static int sum_before_negative(const int *values, int n) {
    int sum = 0;
#pragma pomp inst begin(summing)
    for (int i = 0; i < n; i++) {
        if (values[i] < 0)
            break;
        if (values[i] == 0)
            continue;
        switch (values[i]) {
        case 7:
            sum += 70;
            break;
        case 999:
            return -1;
        default:
            sum += values[i];
        }
        step(sum);
    }
#pragma pomp inst end(summing)
    return sum;
}

static int count_to(int n) {
    int count = 0;
#pragma pomp inst begin(counting)
    while (count < 100) {
        if (count == n)
            goto out;
        count = step(count);
    }
    count = -count;
#pragma pomp inst end(counting)
out:
    return count;
}

static int retry(int n) {
    int tries = 0;
#pragma pomp inst begin(retrying)
again:
    for (int i = 0; i < n; i++) {
        if (i == 2 && tries < 2) {
            tries++;
            goto again;
        }
        if (i > 5)
            return -tries;
    }
#pragma pomp inst end(retrying)
    return tries;
}

static int nested_regions(int n) {
    int found = -1;
#pragma pomp inst begin(outer)
    do {
#pragma pomp inst begin(inner)
        if (found * found > n)
            return found;
#pragma pomp inst end(inner)
        found++;
    } while (found < n);
#pragma pomp inst end(outer)
    return -found;
}

static int grid_search(int n, int wanted) {
    for (int i = 0; i < n; i++) {
#pragma pomp inst begin(row)
        for (int j = 0; j < n; j++)
            if (i * n + j == wanted)
                return i;
#pragma pomp inst end(row)
    }
    return -1;
}

static int pick(int c, int n) {
    int r = 0;
#pragma pomp inst begin(picking)
    if (c)
        for (int i = 0; i < n; i++)
            if (i == 3)
                return i;
    r = n;
#pragma pomp inst end(picking)
    return r;
}

static int plain_sum(int n) {
    int s = 0;
#pragma pomp inst begin(plain)
    for (int i = 0; i < n; i++)
        s += i;
#pragma pomp inst end(plain)
    return s;
}

int main(void) {
    int values[6] = {1, 0, 7, 4, -2, 9};
    int large[3] = {1, 999, 2};
    printf("first_at_least %d %d\n", first_at_least(values, 6, 5), first_at_least(values, 6, 50));
    printf("sum_before_negative %d %d\n", sum_before_negative(values, 6),
           sum_before_negative(large, 3));
    printf("count_to %d %d\n", count_to(4), count_to(200));
    printf("retry %d %d\n", retry(4), retry(9));
    printf("nested_regions %d %d\n", nested_regions(5), nested_regions(0));
    printf("grid_search %d %d\n", grid_search(4, 9), grid_search(2, 9));
    printf("pick %d %d %d\n", pick(1, 5), pick(1, 2), pick(0, 5));
    printf("plain_sum %d\n", plain_sum(5));
    int odd = 0;
#pragma pomp inst begin(team)
#pragma omp parallel for reduction(+ : odd)
    for (int i = 0; i < 9; i++)
        odd += i % 2;
#pragma pomp inst end(team)
    printf("odd %d\n", odd);
    fflush(stdout);
    int total = 0;
#pragma pomp inst begin(finish)
    for (;;) {
        total = step(total);
        if (total > 2)
            exit(0);
    }
#pragma pomp inst end(finish)
}
