/* libomp fails, uninstrumented: the program does not compile (clang 14 crashes, at -O0 as at -O1; gcc compiles and runs it) */
/*
 * An `if` clause that applies to `simd` (here unmodified on `parallel for
 * simd`) over a loop holding an inner loop whose body a jump always skips
 * to a label at its end: clang 14 aborts while generating code
 * ("corrupted double-linked list", or a segmentation fault). With
 * `if(parallel: ...)` it compiles. The program generator names the leaf
 * of every `if` on a construct ending in `simd` for clang
 * (`Feature::IfOnSimd` in CLANG_14_LACKS, tests/generated.rs).
 */
#include <stdio.h>

void add_late(int n, long long *a)
{
#pragma omp parallel for simd if(n > 6)
    for (int i = 0; i < 8; i++) {
        int j = -1;
        while (++j < 2) {
            if (j < 4)
                goto next;
            a[i] += 1;
        next:;
        }
    }
}

int main(void)
{
    long long a[8] = {0};
    add_late(8, a);
    long long total = 0;
    for (int i = 0; i < 8; i++)
        total += a[i];
    printf("sum %lld\n", total);
    return total != 0;
}
