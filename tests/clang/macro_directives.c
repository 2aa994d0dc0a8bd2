/* OpenMP directives produced by macros: rewritten where a macro expands
   to the directive alone, reported and left alone where it expands to
   more. */
#include <stdio.h>

#define PARALLEL_FOR _Pragma("omp parallel for reduction(+ : total)")
#define OMP(directive) _Pragma(#directive)
#define TIMES(i, n) _Pragma("omp parallel for reduction(+ : total)") for (i = 0; i < (n); i++)
#define EMPTY
#define BODY { total += 2; }

int main(void) {
  long total = 0;
  int i;
  PARALLEL_FOR
  for (i = 0; i < 100; i++)
    total += i;
  OMP(omp parallel num_threads(2) reduction(+ : total))
  {
    OMP(omp single)
    total += 1000;
  }
  TIMES(i, 10)
    total += 3;
#pragma omp parallel num_threads(2) reduction(+ : total)
  EMPTY BODY
  printf("total %ld\n", total);
  return 0;
}
