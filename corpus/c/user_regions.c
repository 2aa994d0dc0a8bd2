/* pomp's own directives: user regions (#pragma pomp inst begin/end, also
 * left by return, break, continue and goto, but not by a break, continue
 * or goto that stays inside, nor by a lambda's return), control (init, finalize, on, off), noinstrument and
 * instrument, the original proposal's #pragma omp inst begin/end, and code
 * under #ifdef _POMP, which only the instrumented build compiles. Either
 * build prints the same. */
#include <stdio.h>

static int pomp_only_calls = 0;

static int classify(int value)
{
#pragma pomp inst begin(classify)
    if (value < 0)
        return -1;
    if (value == 0)
        return 0;
#pragma pomp inst end(classify)
    return 1;
}

/* Jumps out of a region close it; jumps that stay inside do not. */
static int jumps(int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
#pragma pomp inst begin(loop_body)
        if (i == 2)
            continue;
        if (i == 7)
            break;
        switch (i) {
        case 3:
            k += 100;
            break;
        default:
            k += i;
        }
        for (int j = 0; j < 5; j++) {
            if (j == 1)
                continue;
            if (j == 3)
                break;
            k++;
        }
        if (i == 5)
            goto five;
        if (i == 4)
            goto four;
        k += 1000;
    four:
        k += 10;
#pragma pomp inst end(loop_body)
    }
    return k;
five:
    return -k;
}

static long summed(int n)
{
    long total = 0;
#pragma omp inst begin(summed)
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < n; i++)
        total += i;
#pragma omp inst end(summed)
    return total;
}

int main(void)
{
#pragma pomp inst init
    int failures = 0;
    int signs = classify(-5) + classify(0) + classify(7) + classify(9);
    printf("signs: %d\n", signs);
    failures += signs != 1;

    printf("jumps: %d %d %d\n", jumps(2), jumps(5), jumps(6));
    failures += jumps(2) != 2025 || jumps(5) != 3153 || jumps(6) != -3160;

    printf("summed: %ld\n", summed(100));
    failures += summed(100) != 4950;

#pragma pomp inst off
    long quiet = 0;
#pragma omp parallel for reduction(+ : quiet)
    for (int i = 0; i < 10; i++)
        quiet += 1;
#pragma pomp inst on
    printf("quiet: %ld\n", quiet);
    failures += quiet != 10;

#pragma pomp noinstrument
    long plain = 0;
#pragma omp parallel for reduction(+ : plain)
    for (int i = 0; i < 10; i++)
        plain += 2;
#pragma pomp instrument
    printf("plain: %ld\n", plain);
    failures += plain != 20;

#ifdef _POMP
    pomp_only_calls++;
#endif
    /* Only whether the count is consistent is printed, not the count. */
    printf("pomp-only code consistent: %d\n", pomp_only_calls == 0 || pomp_only_calls == 1);

#pragma pomp inst begin(main_tail)
    if (failures) {
        printf("FAILED\n");
        return 1;
    }
#pragma pomp inst end(main_tail)
    printf("user_regions: ok\n");
#pragma pomp inst finalize
    return 0;
}
