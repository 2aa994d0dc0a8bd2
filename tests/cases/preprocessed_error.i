# 1 "loops.c"
void zero(int *a, int n) {
  int i;
        
# 10 "loops.c"
#pragma omp for
# 12 "loops.c"
  a[0] = 1;
  for (i = 0; i < n; i++) a[i] = 0;
}
