/* collapse over loops that are not perfectly nested: since OpenMP 5.0 a
 * loop of the nest may hold code before and after the next loop
 * (compilers that only collapse perfect nests, such as gcc before 14,
 * reject it). */
#include <stdio.h>

int main(void) {
  enum { N = 6, M = 5 };
  int a[N][M], i, j, total = 0;
#pragma omp parallel for collapse(2) reduction(+ : total) default(none) shared(a)
  for (i = 0; i < N; i++) {
    int offset = 10 * i;
    for (j = 0; j < M; j++) {
      a[i][j] = offset + j;
      total += a[i][j];
    }
    offset = 0;
  }
  printf("total %d\n", total);
  return total == 810 ? 0 : 1;
}
