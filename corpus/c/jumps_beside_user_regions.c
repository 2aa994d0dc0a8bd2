/* A macro the grammar cannot read (SKIP_IF writes an `if`) around a jump,
 * in a function without user regions, in a file with one elsewhere: jumps
 * leave a user region only within its own function, so this block is
 * instrumented; in the function holding the region, the same text is
 * refused (tests/cases/jump_in_syntax_error.c). */
#include <stdio.h>

#define SKIP_IF(condition) if (condition)
#define STOP_WHEN(condition) if (condition)

static int positive_sum(int n)
{
    int sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++) {
        int value = i % 7 - 3;
        {
            SKIP_IF(value < 0) continue;
        }
        sum += value;
    }
    return sum;
}

static int first_over(const int *values, int n, int limit)
{
    int found = -1;
#pragma omp parallel
    {
#pragma omp single
        for (int i = 0; i < n; i++) {
            {
                STOP_WHEN(values[i] > limit) {
                    found = i;
                    break;
                }
            }
        }
    }
    return found;
}

static int counted(int n)
{
    int count = 0;
#pragma pomp inst begin(counting)
    for (int i = 0; i < n; i++) {
        if (i == 50)
            return count;
        count += i % 3 == 0;
    }
#pragma pomp inst end(counting)
    return count;
}

int main(void)
{
    int values[100];
    for (int i = 0; i < 100; i++)
        values[i] = (i * 37) % 101;
    printf("positive sum: %d\n", positive_sum(1000));
    printf("first over 90: %d\n", first_over(values, 100, 90));
    printf("counted: %d %d\n", counted(20), counted(80));
    return 0;
}
