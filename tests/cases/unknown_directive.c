#include <stdio.h>
int main(void) {
    int n = 0;
#pragma omp paralel
    {
#pragma omp critical
        n++;
    }
#pragma omp parallel num_threads(2)
    {
#pragma omp for reduction(+ : n)
#pragma omp vendor_loop_hint(8)
        for (int i = 0; i < 4; i++)
            n += i;
#pragma omp atomic
        n++;
    }
    printf("%d\n", n);
    return 0;
}
