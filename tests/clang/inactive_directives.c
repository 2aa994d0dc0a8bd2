/* Directives in branches the compiler skips are not instrumented; those
   it compiles are, whichever they are. */
#include <stdio.h>

int main(void) {
  int count = 0, i;
#pragma omp parallel num_threads(3)
  {
#ifdef USE_CRITICAL
#pragma omp critical
#else
#pragma omp atomic
#endif
    count++;
#if 0
#pragma omp for
    this is not C and no loop follows;
#endif
#pragma omp barrier
  }
#if defined(_OPENMP)
#pragma omp parallel for reduction(+ : count)
#else
#error "compiled without OpenMP"
#endif
  for (i = 0; i < 10; i++)
    count += 1;
  printf("count %d\n", count);
  return 0;
}
