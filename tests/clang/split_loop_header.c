/* A loop whose header depends on a macro: each setting is one loop. */
#include <stdio.h>

#define N 1000

static long triangle(int n) {
  long sum = 0;
  int i;
#pragma omp parallel for reduction(+ : sum)
#ifdef WIDE
  for (i = 0; i < 2 * n; i++) {
#else
  for (i = 0; i < n; i++) {
#endif
    sum += i;
  }
  return sum;
}

int main(void) {
  long squares = 0;
  int j;
#pragma omp parallel
  {
#pragma omp for reduction(+ : squares) schedule(static)
#if defined(WIDE) && WIDE > 1
    for (j = 0; j < 3 * N; j++)
#elif defined(WIDE)
    for (j = 0; j < 2 * N; j++)
#else
    for (j = 0; j < N; j++)
#endif
      squares += (long)j * j;
  }
  printf("triangle %ld squares %ld\n", triangle(N), squares);
  return 0;
}
