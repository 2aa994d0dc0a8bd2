#include <omp.h>
#include <stdio.h>
#include "macro_block.h"

int main(void) {
  int n = 1000;
  long sum = 0;
#pragma omp parallel reduction(+ : sum)
  CHUNK_SETUP(n);
  for (int i = from; i < to; i++)
    sum += i;
  CHUNK_CLOSE;
  printf("sum %ld\n", sum);
  return sum == 499500 ? 0 : 1;
}
