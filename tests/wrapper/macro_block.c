#include <stdio.h>
#define BLOCK_BEGIN {
#define BLOCK_END }
int main(void)
{
    int n = 0;
#pragma omp parallel
    BLOCK_BEGIN
#pragma omp atomic
        n++;
    BLOCK_END
    printf("%d\n", n > 0);
    return 0;
}
