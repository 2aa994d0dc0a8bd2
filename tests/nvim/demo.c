#include <stdio.h>
/* café: ü ø 𝜋 */
int main(void) {
#pragma omp parallel
  {
#pragma omp single
    printf("single\n");
  }
  int a[4][4];
#pragma omp parallel for /* é𝜋 BROKEN */ colapse(2)
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      a[i][j] = i + j;
  printf("%d\n", a[3][3]);
  return 0;
}
